#include "symbolize/dwarf_image.h"

#include <libdeflate.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <future>
#include <memory>
#include <system_error>

#include "common/error.h"
#include "binary/compressed_sections.h"

namespace swprof {
namespace {

// ELF gABI: ch_type of a compressed section (libelf 0.188 knows only zlib).
constexpr uint32_t kCompressZlib = 1;
constexpr uint32_t kCompressZstd = 2;

// What libdw reads to find units, walk DIEs (names, abstract origins,
// specifications), their address ranges and the line tables (DWARF 4 and 5).
constexpr std::array<std::string_view, 11> kKeptSections = {
    ".debug_info",     ".debug_abbrev", ".debug_str",         ".debug_line",
    ".debug_line_str", ".debug_ranges", ".debug_rnglists",    ".debug_aranges",
    ".debug_str_offsets", ".debug_addr", ".debug_sup"};

uint64_t align_up(uint64_t at, uint64_t alignment) { return (at + alignment - 1) / alignment * alignment; }

// A section's alignment as the image uses it: a power of two up to a page.
uint64_t usable_alignment(uint64_t a) { return a == 0 || (a & (a - 1)) != 0 || a > 4096 ? 8 : a; }

// `size` bytes at `offset` of `file`; throws Error naming `what` when they
// are not all inside it.
Bytes range_of(Bytes file, uint64_t offset, uint64_t size, const std::string& what) {
  if (offset > file.size() || size > file.size() - offset) throw Error(what + " lies outside the file");
  return file.subspan(offset, size);
}

std::string section_label(const std::string& name) { return name.empty() ? "unnamed" : name; }

struct DecompressorDeleter {
  void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};
using DecompressorPtr = std::unique_ptr<libdeflate_decompressor, DecompressorDeleter>;

// Inflates the zlib stream `in` into exactly `out`.
bool inflate_zlib(Bytes in, std::span<uint8_t> out) {
  const DecompressorPtr d(libdeflate_alloc_decompressor());
  size_t actual = 0;
  return d &&
         libdeflate_zlib_decompress(d.get(), in.data(), in.size(), out.data(), out.size(), &actual) ==
             LIBDEFLATE_SUCCESS &&
         actual == out.size();
}

// Decompresses the zstd frame `in` into exactly `out`.
bool inflate_zstd(Bytes in, std::span<uint8_t> out) {
  const size_t n = ZSTD_decompress(out.data(), out.size(), in.data(), in.size());
  return !ZSTD_isError(n) && n == out.size();
}

// Makes the pages of `region` present and writable in one call, on the
// thread that is about to write them: each thread of write() then pays for
// its own sections' pages, at the same time, instead of page by page as it
// writes. Only a hint: without MADV_POPULATE_WRITE (Linux < 5.14) the
// writes fault the pages in.
void prefault(std::span<uint8_t> region) {
  if (region.empty()) return;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(region.data()) & ~(page - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(region.data() + region.size());
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
}

}  // namespace

bool kept_dwarf_section(std::string_view name) {
  std::string plain(name);
  if (name.starts_with(".zdebug_")) plain = "." + plain.substr(2);  // GNU's older compressed sections
  return std::find(kKeptSections.begin(), kKeptSections.end(), plain) != kKeptSections.end();
}

Elf64_Shdr DwarfImage::header(size_t index) const {
  Elf64_Shdr s;
  std::memcpy(&s, shdrs_.data() + index * sizeof s, sizeof s);
  return s;
}

void DwarfImage::set_header(size_t index, const Elf64_Shdr& s) {
  std::memcpy(shdrs_.data() + index * sizeof s, &s, sizeof s);
}

std::optional<DwarfImage> DwarfImage::plan(Bytes file) {
  ByteReader reader(file);
  const auto eh = reader.read<Elf64_Ehdr>();
  if (!eh || std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_ident[EI_DATA] != ELFDATA2LSB)
    return std::nullopt;
  // Extended numbering (e_shnum 0, e_shstrndx SHN_XINDEX) is left to libelf.
  if (eh->e_shoff == 0 || eh->e_shnum == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
      eh->e_shstrndx == SHN_UNDEF || eh->e_shstrndx >= eh->e_shnum ||
      (eh->e_phnum != 0 && eh->e_phentsize != sizeof(Elf64_Phdr)))
    return std::nullopt;

  DwarfImage image;
  image.ehdr_ = *eh;
  const Bytes headers = range_of(file, eh->e_shoff, uint64_t{eh->e_shnum} * sizeof(Elf64_Shdr), "its section headers");
  image.shdrs_.assign(headers.begin(), headers.end());
  if (eh->e_phnum)
    image.phdrs_ = range_of(file, eh->e_phoff, uint64_t{eh->e_phnum} * sizeof(Elf64_Phdr), "its program headers");
  const Elf64_Shdr names_header = image.header(eh->e_shstrndx);
  const Bytes names = names_header.sh_type == SHT_NOBITS
                          ? Bytes()
                          : range_of(file, names_header.sh_offset, names_header.sh_size, "its section name table");
  bool compressed = false;
  image.sections_.resize(eh->e_shnum);
  for (size_t i = 1; i < image.sections_.size(); ++i) {
    const Elf64_Shdr s = image.header(i);
    Section& out = image.sections_[i];
    if (s.sh_name < names.size()) {
      const char* text = reinterpret_cast<const char*>(names.data()) + s.sh_name;
      out.name.assign(text, strnlen(text, names.size() - s.sh_name));
    }
    if (s.sh_type == SHT_NOBITS) continue;
    const bool dwarf = is_dwarf_section(out.name);
    if (dwarf && ((s.sh_flags & SHF_COMPRESSED) != 0 || out.name.starts_with(".zdebug_"))) compressed = true;
    if (dwarf && !kept_dwarf_section(out.name)) {
      out.action = Action::kDrop;
      continue;
    }
    out.action = dwarf && (s.sh_flags & SHF_COMPRESSED) != 0 ? Action::kDecompress : Action::kCopy;
    out.in = range_of(file, s.sh_offset, s.sh_size, "its " + section_label(out.name) + " section");
  }
  if (!compressed) return std::nullopt;
  image.lay_out();
  return image;
}

// Places the headers and each section's bytes, and rewrites the section
// headers for the image.
void DwarfImage::lay_out() {
  uint64_t at = sizeof(Elf64_Ehdr);
  if (!phdrs_.empty()) {
    out_phoff_ = align_up(at, 8);
    at = out_phoff_ + phdrs_.size();
  }
  for (size_t i = 1; i < sections_.size(); ++i) {
    Section& section = sections_[i];
    Elf64_Shdr s = header(i);
    uint64_t alignment = usable_alignment(s.sh_addralign);
    uint64_t size = section.action == Action::kCopy ? s.sh_size : 0;
    if (section.action == Action::kDecompress) size = place_compressed(i, alignment);
    if (section.action == Action::kDecompress) {
      s.sh_flags &= ~static_cast<uint64_t>(SHF_COMPRESSED);
      s.sh_size = size;
      s.sh_addralign = alignment;
    }
    if (section.action == Action::kDrop) {
      s.sh_type = SHT_NOBITS;
      s.sh_flags &= ~static_cast<uint64_t>(SHF_COMPRESSED);
    }
    at = align_up(at, alignment);
    section.out_offset = at;
    section.out_size = size;
    s.sh_offset = at;
    set_header(i, s);
    at += size;
  }
  out_shoff_ = align_up(at, 8);
  size_ = out_shoff_ + shdrs_.size();
}

// The uncompressed size of compressed section `index` (gABI Elf64_Chdr),
// and its alignment; 0 after dropping it when its header is unusable.
uint64_t DwarfImage::place_compressed(size_t index, uint64_t& alignment) {
  Section& section = sections_[index];
  Elf64_Chdr ch{};
  if (section.in.size() < sizeof ch) {
    drop(index, "is too short for its compression header");
    return 0;
  }
  std::memcpy(&ch, section.in.data(), sizeof ch);
  const uint64_t packed = section.in.size() - sizeof ch;
  if (ch.ch_type != kCompressZlib && ch.ch_type != kCompressZstd) {
    drop(index, "is compressed with an unknown method (" + std::to_string(ch.ch_type) + ")");
    return 0;
  }
  if (std::string problem = inflation_problem(ch.ch_size, packed); !problem.empty()) {
    drop(index, problem);
    return 0;
  }
  section.compression = ch.ch_type;
  alignment = usable_alignment(ch.ch_addralign);
  return ch.ch_size;
}

void DwarfImage::drop(size_t index, const std::string& problem) {
  Section& section = sections_[index];
  section.action = Action::kDrop;
  section.out_size = 0;
  Elf64_Shdr s = header(index);
  s.sh_type = SHT_NOBITS;
  s.sh_flags &= ~static_cast<uint64_t>(SHF_COMPRESSED);
  s.sh_offset = section.out_offset;
  set_header(index, s);
  problems_.push_back("its " + section_label(section.name) + " section " + problem);
}

// Decompresses section `index` into its place in `out` (left zeroed when
// it does not decompress); touches nothing else, so sections can be
// decompressed on several threads.
bool DwarfImage::decompress(size_t index, std::span<uint8_t> out) const {
  const Section& section = sections_[index];
  const Bytes packed = section.in.subspan(sizeof(Elf64_Chdr));
  const std::span<uint8_t> into = out.subspan(section.out_offset, section.out_size);
  prefault(into);
  const bool ok = section.compression == kCompressZlib ? inflate_zlib(packed, into) : inflate_zstd(packed, into);
  if (!ok) std::fill(into.begin(), into.end(), 0);
  return ok;
}

// The biggest section to decompress (a libc's .debug_info: 2/3 of the
// bytes), when it is worth a thread of its own; 0 (the null section) when
// none is.
size_t DwarfImage::section_for_second_thread() const {
  size_t biggest = 0;
  for (size_t i = 1; i < sections_.size(); ++i)
    if (sections_[i].action == Action::kDecompress && sections_[i].out_size > sections_[biggest].out_size) biggest = i;
  return sections_[biggest].out_size >= kSecondThreadBytes ? biggest : 0;
}

void DwarfImage::write(std::span<uint8_t> out) {
  if (out.size() != size_) throw Error("a DWARF image written into " + std::to_string(out.size()) + " bytes, not " +
                                       std::to_string(size_));
  Elf64_Ehdr eh = ehdr_;
  eh.e_phoff = phdrs_.empty() ? 0 : out_phoff_;
  eh.e_shoff = out_shoff_;
  std::memcpy(out.data(), &eh, sizeof eh);
  if (!phdrs_.empty()) std::memcpy(out.data() + out_phoff_, phdrs_.data(), phdrs_.size());
  size_t apart = section_for_second_thread();
  std::future<bool> apart_done;
  try {
    if (apart) apart_done = std::async(std::launch::async, [this, apart, out] { return decompress(apart, out); });
  } catch (const std::system_error&) {
    apart = 0;  // no thread to be had: all on this one
  }
  std::vector<size_t> damaged;
  for (size_t i = 1; i < sections_.size(); ++i) {
    const Section& section = sections_[i];
    if (section.action == Action::kCopy && !section.in.empty()) {
      const std::span<uint8_t> into = out.subspan(section.out_offset, section.in.size());
      prefault(into);
      std::memcpy(into.data(), section.in.data(), section.in.size());
    }
    if (section.action == Action::kDecompress && i != apart && !decompress(i, out)) damaged.push_back(i);
  }
  if (apart && !apart_done.get()) damaged.push_back(apart);
  std::sort(damaged.begin(), damaged.end());
  for (size_t i : damaged) drop(i, "does not decompress (damaged)");
  std::memcpy(out.data() + out_shoff_, shdrs_.data(), shdrs_.size());
}

// Each section's writer populates its own pages (prefault), so the biggest
// section's pages come in on its own thread.
AnonymousBuffer write_to_memory(DwarfImage& image) {
  AnonymousBuffer out = AnonymousBuffer::allocate(image.size());
  if (!out.empty()) image.write(std::span<uint8_t>(out.data(), out.size()));
  return out;
}

}  // namespace swprof
