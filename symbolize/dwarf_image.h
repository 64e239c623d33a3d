#pragma once
// A debuginfo file as libdw needs it for source lines and inline frames.
//
// libdw (elfutils 0.188) decompresses every compressed .debug_* section of a
// file when it opens its DWARF, with zlib, whether a lookup ever reads it or
// not (a libc's location lists are a quarter of its debuginfo). A
// DwarfImage is the same ELF file rebuilt in memory:
//
//   ELF header | program headers | sections, in index order | section headers
//
// - the sections libdw reads for units, scopes, ranges and lines
//   (kept_dwarf_section) are stored uncompressed (zlib with libdeflate,
//   zstd with libzstd: ELF gABI, "Section Compression");
// - every other .debug_* / .zdebug_* section becomes SHT_NOBITS (libdw
//   skips it);
// - every other section (symbol tables, notes, .gnu_debugaltlink) is copied
//   as it is, at the same index, so symbols keep their st_shndx.
// Program headers are copied unchanged (libdwfl reads their addresses for
// the bias, never the bytes their p_offset names).
//
// Sizes come from the file and are bounded: a compressed section may not
// claim more than compressed_sections.h allows.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <elf.h>

#include "common/anonymous_buffer.h"
#include "common/byte_reader.h"

namespace swprof {

// The DWARF sections a DwarfImage keeps: what dwarf_begin_elf, unit and
// DIE walks, dwarf_ranges and the line tables read.
bool kept_dwarf_section(std::string_view name);

class DwarfImage {
 public:
  // A section this big decompresses on a second thread while write() does
  // the others.
  static constexpr uint64_t kSecondThreadBytes = uint64_t{1} << 20;

  // The plan for `file` (the whole ELF file), or nullopt when rebuilding
  // would save nothing (no compressed .debug_* section) or the file is not
  // a 64-bit little-endian ELF file with section headers (left to libelf).
  // Throws Error naming the damage when a header or a section lies outside
  // the file.
  static std::optional<DwarfImage> plan(Bytes file);

  size_t size() const { return size_; }

  // Writes the image of the file planned into `out` (size() bytes, zeroed;
  // the file must still be there), the biggest section on a thread of its
  // own when it is big. A kept section that cannot
  // be decompressed (a claimed size over the bounds, an unknown method, a
  // damaged stream) becomes SHT_NOBITS and is named by problems().
  void write(std::span<uint8_t> out);

  // "its .debug_info section claims 8 GiB uncompressed from 12 KiB", ...
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  enum class Action : uint8_t { kHeaderOnly, kCopy, kDecompress, kDrop };
  struct Section {
    Action action = Action::kHeaderOnly;
    Bytes in;                 // the section's bytes in the file (kCopy, kDecompress)
    uint32_t compression = 0;  // ch_type (kDecompress)
    uint64_t out_offset = 0;
    uint64_t out_size = 0;  // bytes written at out_offset
    std::string name;
  };

  DwarfImage() = default;
  void lay_out();
  uint64_t place_compressed(size_t index, uint64_t& alignment);
  bool decompress(size_t index, std::span<uint8_t> out) const;
  size_t section_for_second_thread() const;
  void drop(size_t index, const std::string& problem);
  void set_header(size_t index, const Elf64_Shdr& header);
  Elf64_Shdr header(size_t index) const;

  Elf64_Ehdr ehdr_{};
  Bytes phdrs_;             // in the file
  uint64_t out_phoff_ = 0;  // in the image
  uint64_t out_shoff_ = 0;
  std::vector<uint8_t> shdrs_;  // Elf64_Shdr[], as the image has them
  std::vector<Section> sections_;
  size_t size_ = 0;
  std::vector<std::string> problems_;
};

// The image of a planned file in anonymous memory (in huge pages where the
// kernel gives them: a few faults for a libc's 9 MB instead of 2,300), for
// libdwfl to read as an ELF file in memory; empty when the memory cannot
// be had.
AnonymousBuffer write_to_memory(DwarfImage& image);

}  // namespace swprof
