#pragma once
// Writes Go function tables (binary/go_pclntab.h) for tests and fuzz seeds,
// in each layout, from a list of functions described by their runs of pcsp,
// line and inline-index values; and a small ELF image holding one (code,
// table, funcdata and a moduledata), with or without section headers.
//
// Image layout (all PT_LOAD, vaddr = file offset + kGoImageBase):
//   ELF header, program headers | code at text_start (R+X) |
//   pclntab (R) | gofunc: inline trees (R) | moduledata (RW) | [section headers]

#include <cstdint>
#include <string>
#include <vector>

#include "binary/go_pclntab.h"

namespace swprof::testing {

// A run of one value over `length` bytes of code.
struct GoRun {
  uint32_t length = 0;
  int32_t value = 0;
};

struct GoInlineSpec {
  std::string name;
  int32_t parent_pc = 0;  // offset from the function's entry of the call it replaces
  int32_t file_line = 0;  // 1.16-1.19: the call site's line; 1.20+: the start line
};

struct GoFuncSpec {
  std::string name;
  uint32_t size = 16;
  std::vector<GoRun> sp;     // pcsp; consecutive runs must differ in value
  std::vector<GoRun> lines;  // pcln
  std::string file = "main.go";
  uint8_t flag = 0;
  int32_t start_line = 0;  // 1.20+
  std::vector<GoInlineSpec> inlines;
  std::vector<GoRun> inline_index;  // pcdata[2]: index into `inlines`, -1 outside
  bool hole = false;               // functab funcoff ~0 (1.18+)
};

struct GoTableSpec {
  GoPclntab::Layout layout = GoPclntab::Layout::kGo120;
  uint64_t text_start = 0;  // 0: right after the ELF headers of the image
  std::vector<GoFuncSpec> funcs;
  std::vector<uint8_t> code;  // bytes at text_start (padded with int3 to the functions' size)
};

inline constexpr uint64_t kGoImageBase = 0x400000;

// The table at vaddr `table_vaddr` with its funcdata at `gofunc_vaddr`.
struct GoTableBytes {
  std::vector<uint8_t> table;
  std::vector<uint8_t> gofunc;
};
GoTableBytes build_go_table(const GoTableSpec& spec, uint64_t text_start, uint64_t table_vaddr,
                            uint64_t gofunc_vaddr);

// The parse() input of a table built at those addresses (its bytes must
// outlive the GoPclntab).
GoPclntabInput go_table_input(const GoTableBytes& bytes, uint64_t text_start, uint64_t table_vaddr,
                              uint64_t gofunc_vaddr);

// An ELF image with the code, the table (section .gopclntab when
// `section_headers`), the inline trees and a moduledata pointing at them.
struct GoElfImage {
  std::vector<uint8_t> bytes;
  uint64_t text_start = 0, table_vaddr = 0, gofunc_vaddr = 0;
};
GoElfImage build_go_elf(const GoTableSpec& spec, bool section_headers);

// Three functions for every layout: main.leaf (frameless, an inlined call
// of main.inner inside main.middle), main.framed (prologue `push rbp; mov
// rbp, rsp; sub rsp, 24`), runtime.goexit (TopFrame), runtime.sigtramp
// (TopFrame), runtime.systemstack (SPWrite).
GoTableSpec sample_go_table(GoPclntab::Layout layout);

}  // namespace swprof::testing
