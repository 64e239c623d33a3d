#include "support/compressed_dwarf.h"

#include <gelf.h>

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

}  // namespace swprof::testing
