#pragma once
// What one binary knows about its addresses: function symbols, source lines
// and inline chains. Each binary gets its own offline libdwfl session holding
// only that file at its own link addresses, so queries use ELF virtual
// addresses (Mapping::to_vaddr) and need no process layout.
//
// libdwfl does the finding: symbols from .symtab, else .dynsym, and the
// minidebuginfo symbol table (.gnu_debugdata, xz); separate debuginfo by
// build-id (<root>/.build-id/xx/yyyy.debug) and by .gnu_debuglink (beside the
// binary, in its .debug/ folder, under <root>/<its folder>/), checked against
// the build-id or the link's CRC; then the separate debuginfo of its
// build-id in the build-id cache (SymbolizerOptions::build_id_cache) and in
// the recording's archive (SymbolizerOptions::archive). libdw
// reads lines and scopes. In-memory images (the vDSO) are named from
// ElfBinary's own symbol table; archived copies of binaries are read from
// memory like the files they were.

#include <elfutils/libdwfl.h>

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "binary/elf_binary.h"
#include "binary/compressed_sections.h"
#include "symbolize/dwarf_image.h"
#include "symbolize/symbolizer.h"

namespace swprof {

struct DwflDeleter {
  void operator()(Dwfl* d) const { dwfl_end(d); }
};
using DwflPtr = std::unique_ptr<Dwfl, DwflDeleter>;

// One address range of a function (DW_TAG_subprogram) and its DIE.
struct DwarfFunctionRange {
  Dwarf_Addr low = 0, high = 0;
  Dwarf_Die die{};
};

class DebugInfo {
 public:
  DebugInfo(std::shared_ptr<const ElfBinary> binary, const SymbolizerOptions& options);
  DebugInfo(const DebugInfo&) = delete;
  DebugInfo& operator=(const DebugInfo&) = delete;

  // The frames at ELF virtual address `vaddr`, innermost first: the inlined
  // functions (inlined = true), then the real function. Fills function, file,
  // line, decl_line and function_offset; never empty.
  std::vector<SourceFrame> frames_at(uint64_t vaddr);

  // Does now what the first frames_at would do first: reads the symbols,
  // and checks the DWARF when source lines are wanted (which may rebuild
  // the debuginfo in memory). Not for a Go binary, whose functions are
  // named from its pclntab without either. For a thread of its own before
  // the first lookup: nothing else may use this DebugInfo meanwhile.
  void prepare();

  // The file the DWARF comes from: the binary itself, or the separate
  // debuginfo found for it; empty when there is no usable DWARF.
  std::string dwarf_file();

  // The separate debuginfo on disk that a report would read for this
  // binary (by build-id, by .gnu_debuglink), found without reading its
  // DWARF: what the build-id cache keeps beside the binary. Empty when the
  // binary has its own DWARF or there is none.
  std::string separate_debuginfo_on_disk() const;

  // Problems met so far (damaged or mismatched debuginfo), each once.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  static int find_debuginfo(Dwfl_Module* mod, void** userdata, const char* modname, Dwarf_Addr base,
                            const char* file_name, const char* debuglink_file, GElf_Word debuglink_crc,
                            char** debuginfo_file_name);
  int debuginfo_on_disk(const char* debuglink_file, const char* file_name, GElf_Word debuglink_crc,
                        char** debuginfo_file_name) const;
  struct AltLink {
    std::string name;
    std::vector<uint8_t> build_id;
  };
  std::optional<AltLink> debugaltlink() const;
  std::vector<std::string> supplementary_candidates(const AltLink& link) const;
  int supplementary_on_disk(const AltLink& link, const std::vector<std::string>& candidates,
                            char** debuginfo_file_name) const;
  bool only_regular_files(const std::vector<std::string>& places);
  UniqueFd binary_descriptor(std::string& problem);
  bool has_build_id_of_binary(int fd) const;
  int dwarf_image_of(int fd, char** debuginfo_file_name);
  int within_bounds(int fd, const char* file_name);
  std::vector<OversizedSection> oversized_sections_read(Elf* elf) const;
  void warn_oversized(const OversizedSection& section, const std::string& file);
  // The module DWARF lookups use, and the difference between its addresses
  // and module_'s.
  Dwfl_Module* dwarf_module() const { return image_module_ ? image_module_ : module_; }
  Dwarf_Addr to_dwarf_module(Dwarf_Addr addr) const { return addr - module_bias_ + (image_module_ ? image_bias_ : module_bias_); }
  std::vector<std::string> debuginfo_candidates(const char* debuglink_file, const char* file_name) const;
  std::vector<std::string> debuglink_candidates(const char* debuglink_file, const std::string& path) const;
  void note_rejected_debuginfo(const char* debuglink_file);
  int cached_debuginfo(char** debuginfo_file_name);
  int archived_debuginfo(char** debuginfo_file_name);
  std::vector<std::string> absolute_roots() const;
  void check_dwarf();
  bool supplementary_file_safe(Dwarf* dwarf);
  void add_dwarf_frames(Dwarf_Addr addr, SourceFrame& outer, std::vector<SourceFrame>& frames);

  // The function ranges of one compile unit, sorted by address, built on
  // the unit's first lookup: finding the function of an address is then a
  // binary search, and only that function's DIEs are walked for its inline
  // chain, never the whole unit again.
  using CuIndex = std::vector<DwarfFunctionRange>;
  const CuIndex& cu_index(Dwarf_Die* cu);

  // The module's function symbols as libdwfl chose them (.symtab of the
  // binary or its debuginfo, else .dynsym, plus minidebuginfo), sorted once:
  // dwfl_module_addrinfo scans the whole table on every call.
  struct Symbol {
    Dwarf_Addr start;
    uint64_t size;
    Dwarf_Addr section_end;  // a symbol without a size reaches at most here
    const char* name;  // owned by the module's Elf
    uint8_t rank;      // among aliases: global 0, weak 1, local 2
  };
  void load_symbols();
  const Symbol* symbol_at(Dwarf_Addr addr) const;

  std::string die_name(Dwarf_Die* die) const;
  std::string symbol_name(const char* name) const;
  void name_plt_stub(uint64_t vaddr, SourceFrame& frame) const;
  void name_startup_function(uint64_t vaddr, SourceFrame& frame) const;
  bool add_go_frames(uint64_t vaddr, std::vector<SourceFrame>& frames) const;
  void warn(const std::string& message);

  std::shared_ptr<const ElfBinary> binary_;
  SymbolizerOptions options_;
  // libdwfl keeps pointers to the callbacks and the path string.
  std::string debuginfo_path_;
  char* debuginfo_path_ptr_ = nullptr;
  Dwfl_Callbacks callbacks_{};
  DwflPtr dwfl_;
  Dwfl_Module* module_ = nullptr;  // owned by dwfl_
  Dwarf_Addr module_bias_ = 0;     // module address - ELF vaddr (0 for an offline ET_DYN at base 0)
  // A separate debuginfo rebuilt as a DwarfImage in memory, read by a
  // session of its own (libdwfl takes separate debuginfo only as a
  // descriptor): its symbols and DWARF are the module's. Declared in this
  // order so the session ends before the memory goes.
  AnonymousBuffer image_;
  std::string image_source_;  // the file it was rebuilt from
  DwflPtr image_dwfl_;
  Dwfl_Module* image_module_ = nullptr;  // owned by image_dwfl_
  Dwarf_Addr image_bias_ = 0;            // image_module_ address - ELF vaddr
  bool dwarf_checked_ = false;
  bool dwarf_usable_ = false;
  bool found_separate_debuginfo_ = false;
  std::string debuginfo_found_;  // the separate debuginfo's path, when libdwfl reads it from disk
  std::string dwarf_problem_;  // why the separate debuginfo's DWARF is not read (damage found before libdw)
  std::unordered_map<Dwarf_Off, CuIndex> cu_indexes_;  // by the unit DIE's offset
  std::vector<Symbol> symbols_;  // by start, best alias first
  bool symbols_loaded_ = false;
  std::vector<std::string> warnings_;
};

}  // namespace swprof
