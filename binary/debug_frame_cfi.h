#pragma once
// libdw's CFI over a binary's .debug_frame, without opening the binary's
// DWARF: what the reference compile (CfiCompileOptions::reference_per_row)
// asks for rows.
//
// libdw reads .debug_frame only through a Dwarf handle (dwarf_getcfi), and
// dwarf_begin_elf reads every DWARF section of the file it is given: with
// elfutils 0.188 it decompresses each compressed .debug_* section (all of a
// `gcc -gz` binary's DWARF but a .debug_frame too small to compress), and
// over a read-only image of the file that decompression writes the section
// header in place and faults. So libdw gets an image holding only
// .debug_frame:
//
//   Elf64_Ehdr (the binary's class, byte order and machine, no program headers)
//   | .debug_frame | .shstrtab | section headers (null, .debug_frame, .shstrtab)
//
// .debug_frame's FDEs hold absolute addresses (DWARF 5 §6.4.1), and libdw
// reads them with the file's address size and the machine's initial rules:
// the rows are the ones libdw gives over the whole file.

#include <elfutils/libdw.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "binary/dwarf_handle.h"
#include "binary/fde_reader.h"
#include "common/elf_handle.h"

namespace swprof {

class DebugFrameCfi {
 public:
  // The CFI of `debug_frame`, a section of `elf` (find_section); nullptr
  // when libdw does not read it as CFI (empty, not a native-endian 64-bit
  // ELF file).
  static std::unique_ptr<DebugFrameCfi> open(Elf* elf, const SectionRef& debug_frame);

  DebugFrameCfi(const DebugFrameCfi&) = delete;
  DebugFrameCfi& operator=(const DebugFrameCfi&) = delete;

  // Owned by this object.
  Dwarf_CFI* cfi() const { return cfi_; }
  // The image libdw reads (the section, two names and three headers).
  size_t image_bytes() const { return image_.size(); }

 private:
  DebugFrameCfi() = default;

  // Destroyed in reverse: the Dwarf handle, then libelf's, then the bytes.
  std::vector<uint8_t> image_;
  ElfPtr elf_;
  DwarfPtr dwarf_;
  Dwarf_CFI* cfi_ = nullptr;  // owned by dwarf_
};

}  // namespace swprof
