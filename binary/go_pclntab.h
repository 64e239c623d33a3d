#pragma once
// Go's function table (the "pclntab"): for every Go function its entry, name,
// the pc-value tables that give the stack-pointer delta (pcsp), the source
// file (pcfile) and line (pcln) at each pc, its flags, and its inline tree.
// Go keeps it in every binary, also in those stripped with -ldflags=-s -w.
//
// Layouts (src/runtime/symtab.go, runtime2.go, debug/gosym/pclntab.go of each
// release): Go 1.16-1.17 (magic 0xfffffffa), 1.18-1.19 (0xfffffff0, adds
// textStart and 32-bit functab entries), 1.20+ (0xfffffff1, adds
// _func.startLine and a 16-byte inlinedCall). Function IDs are renumbered
// between releases: nothing here uses them, only flags and names.
//
// Every read is bounds-checked; a damaged table gives nullopt for the
// lookup it damages (or no table at all when its header does not validate).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/byte_reader.h"

namespace swprof {

class ElfBinary;

struct GoLine {
  std::string_view file;
  int32_t line = 0;
};

// One frame at a pc: an inlined function (inlined = true) or the real one.
struct GoFrame {
  std::string_view name;
  std::string_view file;
  int32_t line = 0;
  bool inlined = false;
};

// The bytes of a loaded image by virtual address (the file images of its
// PT_LOAD segments): where funcdata and moduledata are read.
struct GoImage {
  struct Segment {
    uint64_t vaddr = 0;
    Bytes bytes;
  };
  std::vector<Segment> segments;
  // From vaddr to the end of its segment's image; empty outside.
  Bytes at(uint64_t vaddr) const;
};

// What GoPclntab::parse reads: the table and what the binary says around it.
struct GoPclntabInput {
  Bytes table;  // from the header on (to the end of its section or segment image)
  uint64_t table_vaddr = 0;
  std::optional<uint64_t> text_start;  // moduledata.text (1.18+); else the header's textStart
  std::optional<uint64_t> gofunc;      // moduledata.gofunc (1.18+): base of funcdata offsets
  GoImage image;                       // for funcdata (inline trees)
  std::string version;                 // "go1.19.8" from .go.buildinfo, when known
};

class GoPclntab {
 public:
  enum class Layout : uint8_t { kGo116, kGo118, kGo120 };
  // _func.flag (1.17+).
  enum Flag : uint8_t { kTopFrame = 1, kSpWrite = 2, kAsm = 4 };

  struct Func {
    uint64_t entry = 0, end = 0;
    uint32_t offset = 0;  // of its _func in pclntable
    int32_t name_off = 0;
    uint32_t pcsp = 0, pcfile = 0, pcln = 0, npcdata = 0, cu_offset = 0;
    int32_t start_line = 0;  // 1.20+; 0 before
    uint8_t flag = 0;
    uint8_t nfuncdata = 0;
  };

  // Found by the `.gopclntab` section, the `runtime.pclntab` symbol, or a
  // scan of the PT_LOAD images for a header that validates (stripped
  // binaries without section headers; external linking puts the table in
  // .data.rel.ro). nullptr: not Go, or no table that validates.
  static std::unique_ptr<const GoPclntab> find(const ElfBinary& binary);
  static std::unique_ptr<const GoPclntab> parse(GoPclntabInput input);

  Layout layout() const { return layout_; }
  const std::string& version() const { return version_; }
  uint64_t table_vaddr() const { return table_vaddr_; }
  uint64_t text_start() const { return text_start_; }  // 1.16: the first function's entry
  size_t size() const { return nfunc_; }
  uint64_t min_pc() const { return min_pc_; }
  uint64_t max_pc() const { return max_pc_; }
  // Whether inline trees can be read (1.18+ needs moduledata.gofunc).
  bool has_inline_trees() const { return layout_ == Layout::kGo116 || gofunc_.has_value(); }

  // The i-th function of the functab; nullopt when its _func is damaged.
  std::optional<Func> func(size_t i) const;
  // The function holding vaddr; nullopt outside [min_pc, max_pc) or damaged.
  std::optional<Func> func_at(uint64_t vaddr) const;

  std::string_view name(const Func& f) const { return name_at(f.name_off); }
  // Bytes below the return address at pc (Go's traceback: CFA = rsp + d + 8).
  std::optional<int32_t> sp_delta(const Func& f, uint64_t pc) const;
  std::optional<GoLine> line(const Func& f, uint64_t pc) const;
  // 1.20+: _func.startLine; before: the line at the entry (0 when unknown).
  int32_t start_line(const Func& f) const;
  // The frames at pc, innermost first: the functions inlined there
  // (inlined = true), then f itself. Each frame's file:line is where
  // execution is in that function.
  void frames_at(const Func& f, uint64_t pc, std::vector<GoFrame>& out) const;

  // The outermost frame of a goroutine or thread: runtime.goexit,
  // runtime.mstart, runtime.rt0_go, or any TopFrame function except the
  // signal trampoline (whose caller is the interrupted code).
  bool is_bottom(const Func& f) const;
  // The function moves rsp to another stack (SPWrite: systemstack, mcall,
  // asmcgocall, morestack, the vDSO calls...): the frames above it are on a
  // stack that was not copied.
  bool switches_stack(const Func& f) const { return (f.flag & kSpWrite) && !is_bottom(f); }

 private:
  GoPclntab() = default;
  bool read_header();
  bool validate();
  std::optional<uint64_t> functab_entry(size_t i) const;  // pc of entry i (i == nfunc: the end)
  std::optional<uint32_t> functab_funcoff(size_t i) const;
  std::string_view name_at(int32_t off) const;
  std::string_view file_name(const Func& f, int32_t fileno) const;
  std::optional<int32_t> pc_value(uint32_t table_off, uint64_t entry, uint64_t pc) const;
  std::optional<uint32_t> pcdata_offset(const Func& f, uint32_t index) const;
  Bytes inline_tree(const Func& f) const;
  std::optional<GoFrame> inlined_call(Bytes tree, int32_t index, uint64_t entry, uint64_t& parent_pc) const;

  Bytes table_;
  uint64_t table_vaddr_ = 0;
  Layout layout_ = Layout::kGo120;
  uint8_t quantum_ = 1;
  uint64_t nfunc_ = 0;
  uint64_t text_start_ = 0;
  uint64_t funcname_ = 0, cutab_ = 0, filetab_ = 0, pctab_ = 0, pclntable_ = 0;  // offsets in table_
  uint64_t min_pc_ = 0, max_pc_ = 0;
  std::optional<uint64_t> gofunc_;
  GoImage image_;
  std::string version_;
};

const char* go_layout_name(GoPclntab::Layout layout);

}  // namespace swprof
