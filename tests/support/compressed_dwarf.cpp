#include "support/compressed_dwarf.h"

#include <gelf.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "binary/elf_binary.h"
#include "support/cli_harness.h"

namespace swprof::testing {

bool write_compressed_dwarf_plain_debug_frame(const std::string& plain, const std::string& out, const std::string& dir) {
  const std::string frame = out + ".debug_frame";
  const std::string without = out + ".without_debug_frame";
  const char* objcopy = "/usr/bin/objcopy";
  return run({objcopy, "--dump-section", ".debug_frame=" + frame, plain, without}, dir).exit_code == 0 &&
         run({objcopy, "--remove-section", ".debug_frame", "--compress-debug-sections=zlib", plain, without}, dir)
                 .exit_code == 0 &&
         run({objcopy, "--add-section", ".debug_frame=" + frame, without, out}, dir).exit_code == 0;
}

bool section_compressed(const std::string& path, const std::string& name) {
  auto binary = ElfBinary::open(path);
  auto section = binary ? binary->section(name) : std::nullopt;
  GElf_Shdr sh;
  return section && gelf_getshdr(section->scn, &sh) && (sh.sh_flags & SHF_COMPRESSED) != 0;
}

std::vector<uint8_t> zlib_zeros_section(const std::string& prefix, uint64_t total) {
  z_stream z{};
  if (deflateInit(&z, 1) != Z_OK) return {};
  std::vector<uint8_t> out(sizeof(Elf64_Chdr));
  std::vector<uint8_t> zeros(1 << 20, 0);
  std::vector<uint8_t> chunk(1 << 16);
  auto pump = [&](const uint8_t* in, size_t n, int flush) {
    z.next_in = const_cast<uint8_t*>(in);
    z.avail_in = static_cast<uInt>(n);
    do {
      z.next_out = chunk.data();
      z.avail_out = static_cast<uInt>(chunk.size());
      deflate(&z, flush);
      out.insert(out.end(), chunk.data(), chunk.data() + (chunk.size() - z.avail_out));
    } while (z.avail_out == 0);
  };
  pump(reinterpret_cast<const uint8_t*>(prefix.data()), prefix.size(), Z_NO_FLUSH);
  for (uint64_t left = total - prefix.size(); left > 0;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(left, zeros.size()));
    left -= n;
    pump(zeros.data(), n, left ? Z_NO_FLUSH : Z_FINISH);
  }
  deflateEnd(&z);
  Elf64_Chdr ch{};
  ch.ch_type = ELFCOMPRESS_ZLIB;
  ch.ch_size = total;
  ch.ch_addralign = 1;
  std::memcpy(out.data(), &ch, sizeof ch);
  return out;
}

}  // namespace swprof::testing
