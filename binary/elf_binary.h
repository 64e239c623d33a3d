#pragma once
// One ELF file (or in-memory ELF image such as the vDSO), opened once and
// shared by every sample that maps it. Gives the unwinder what it needs:
// sections (.eh_frame, .eh_frame_hdr, .debug_frame, .text), code bytes by
// virtual address, function symbols, the load bias of a mapping, and the
// libelf handle for elfutils. All reads are bounds-checked against the file.

#include <libelf.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "binary/function_starts.h"
#include "binary/plt_entries.h"
#include "binary/startup_functions.h"
#include "common/byte_reader.h"
#include "common/elf_handle.h"
#include "common/regular_file.h"
#include "common/unique_fd.h"

namespace swprof {

struct ElfSection {
  uint64_t addr = 0;  // sh_addr (virtual address when loaded; 0 for non-alloc sections)
  uint64_t offset = 0;
  Bytes data;         // the section's bytes in the file (empty for NOBITS)
  Elf_Scn* scn = nullptr;
  size_t index = 0;   // its section header index
  uint32_t type = 0;  // sh_type
  uint32_t link = 0;  // sh_link: the index of a related section (a relocation's symbol table, ...)
  uint64_t entsize = 0;
  uint64_t addralign = 0;
};

// One PT_LOAD program header.
struct LoadSegment {
  uint64_t vaddr, memsz, offset, filesz;
  bool exec;
  bool write = false;
};

class GoPclntab;
class LazyCfiTable;

struct FunctionSymbol {
  uint64_t start = 0;  // ELF virtual address
  uint64_t size = 0;
  std::string name;
};

class ElfBinary {
 public:
  // nullptr when the file cannot be opened or is not a 64-bit ELF.
  static std::shared_ptr<ElfBinary> open(const std::string& path);
  // The same, with the reason when there is no binary. Only a regular file is
  // opened (common/regular_file.h): a path named by a recording may be a FIFO
  // or a device.
  static FileResult<std::shared_ptr<ElfBinary>> open_file(const std::string& path);
  // The same for a file already opened (open_regular_file) from `path`.
  static FileResult<std::shared_ptr<ElfBinary>> open_file(RegularFile file, const std::string& path);
  static std::shared_ptr<ElfBinary> from_image(const std::string& name, std::vector<uint8_t> image);

  ElfBinary(const ElfBinary&) = delete;
  ElfBinary& operator=(const ElfBinary&) = delete;

  const std::string& path() const { return path_; }
  // A new descriptor of the file this binary was read from (the same open
  // file: never another one put at its path since); invalid for an image.
  UniqueFd duplicate_descriptor() const;
  Elf* elf() const { return elf_.get(); }
  Bytes file_bytes() const { return file_; }
  const std::vector<uint8_t>& build_id() const { return build_id_; }
  uint64_t entry() const { return entry_; }

  // Sections are indexed once when the file is opened, so lookups never call
  // into libelf (whose lazy loading is not safe from several threads).
  std::optional<ElfSection> section(const std::string& name) const;
  // The section with header index `index` (what sh_link names).
  std::optional<ElfSection> section_at_index(size_t index) const;

  // The PLT stubs of this binary, named as perf names them (binary/plt_entries.h),
  // read on first use from any thread and kept for the binary's lifetime.
  const PltEntries& plt_entries() const;

  // The functions this binary's code holds, found from its symbols, CFI,
  // entry points and calls (binary/function_starts.h): computed on first use
  // from any thread and kept for the binary's lifetime.
  const FunctionStarts& function_starts() const;
  // The start-up functions of an executable without symbols
  // (binary/startup_functions.h): found on first use from any thread.
  const StartupFunctions& startup_functions() const;
  // Whether function_starts() has run its discovery (for tests and info).
  bool function_starts_discovered() const { return starts_done_.load(std::memory_order_acquire); }

  // The binary's DWARF CFI (binary/lazy_cfi_table.h): its FDEs indexed on
  // first use from any thread, each compiled on its first lookup; kept for
  // the binary's lifetime.
  const LazyCfiTable& cfi_table() const;

  // [vaddr, vaddr + filesz) of each executable PT_LOAD segment, in header order.
  const std::vector<std::pair<uint64_t, uint64_t>>& executable_ranges() const { return executable_ranges_; }
  // The file offset of ELF vaddr; nullopt outside every segment's file image.
  std::optional<uint64_t> file_offset_of(uint64_t vaddr) const;

  // Go's function table (binary/go_pclntab.h), found on first use from any
  // thread; nullptr when this is not a Go binary (or its table is unreadable).
  const GoPclntab* go_pclntab() const;

  // The PT_LOAD segments, in program header order.
  const std::vector<LoadSegment>& segments() const { return segments_; }

  // The bias for a mapping of this file at `map_start` with file offset
  // `map_offset`: ELF vaddr = runtime address - bias. nullopt when no PT_LOAD
  // segment holds that file offset.
  std::optional<uint64_t> load_bias(uint64_t map_start, uint64_t map_offset) const;

  // Copies code bytes at ELF virtual address [vaddr, vaddr + n) from the file;
  // false when any byte is outside a loaded segment's file image.
  bool read_code(uint64_t vaddr, void* dst, size_t n) const;
  // Up to `max` bytes from vaddr within its segment (fewer at the segment
  // end); with `executable_only`, empty unless the segment is executable.
  Bytes code_at(uint64_t vaddr, size_t max, bool executable_only = false) const;

  // Copies [vaddr, vaddr + n) of an executable segment's file image, for a
  // check of a few bytes at many scattered pcs: a page read through the
  // file's mapping stays resident, with the pages the kernel maps around it,
  // so in a big segment (kScatteredReadLimit or more) the bytes are read
  // with pread instead, leaving the mapping untouched. False when any byte
  // is outside.
  bool read_code_scattered(uint64_t vaddr, void* dst, size_t n) const;
  static constexpr uint64_t kScatteredReadLimit = uint64_t{4} << 20;

  // The function symbol containing vaddr (.symtab, else .dynsym).
  const FunctionSymbol* function_at(uint64_t vaddr) const;
  const FunctionSymbol* function_named(const std::string& name) const;
  // Every function symbol, sorted by start (.symtab, else .dynsym: see symbols_from_symtab()).
  const std::vector<FunctionSymbol>& functions() const { return functions_; }
  bool symbols_from_symtab() const { return symbols_from_symtab_; }

 private:
  ElfBinary() = default;
  bool init();
  void load_sections();
  void load_symbols();
  bool plain_enough(size_t index) const;

  std::string path_;
  UniqueFd fd_;
  std::vector<uint8_t> image_;  // owned bytes for in-memory images
  ElfPtr elf_;
  Bytes file_;
  uint64_t entry_ = 0;
  std::vector<uint8_t> build_id_;
  std::vector<LoadSegment> segments_;
  std::vector<std::pair<uint64_t, uint64_t>> executable_ranges_;
  std::vector<std::pair<std::string, ElfSection>> sections_;
  std::vector<FunctionSymbol> functions_;  // sorted by start
  bool symbols_from_symtab_ = false;
  mutable std::once_flag plt_once_;
  mutable std::unique_ptr<const PltEntries> plt_entries_;
  mutable std::once_flag starts_once_;
  mutable std::unique_ptr<const FunctionStarts> function_starts_;
  mutable std::atomic<bool> starts_done_{false};
  mutable std::once_flag startup_once_;
  mutable StartupFunctions startup_functions_;
  mutable std::once_flag cfi_once_;
  mutable std::shared_ptr<const LazyCfiTable> cfi_table_;  // shared_ptr: LazyCfiTable is incomplete here
  mutable std::once_flag go_once_;
  mutable std::shared_ptr<const GoPclntab> go_pclntab_;  // shared_ptr: GoPclntab is incomplete here
};

}  // namespace swprof
