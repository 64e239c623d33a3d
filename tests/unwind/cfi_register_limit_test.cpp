// CFA programs naming absurd register numbers are refused before libdw's
// interpreter sizes a row for them (cfi_detail::cfa_program_registers_ok).

#include <catch2/catch.hpp>
#include <dwarf.h>

#include <vector>

#include "fuzz/elf_image.h"
#include "unwind/cfi_table.h"

using namespace swprof;
using namespace swprof::cfi_detail;

namespace {

bool ok(std::vector<uint8_t> program) { return cfa_program_registers_ok(Bytes(program.data(), program.size()), kPeUdata4); }

// A .debug_frame holding one CIE (code align 1, data align -8, ra column 16)
// whose initial instructions are `cie_program`, and one FDE for
// [0x1000, 0x1040) with `fde_program`. DWARF 5 §6.4.1, 64-bit addresses.
std::vector<uint8_t> debug_frame(const std::vector<uint8_t>& cie_program, const std::vector<uint8_t>& fde_program) {
  std::vector<uint8_t> out;
  auto put32 = [&out](uint32_t v) { for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i))); };
  auto put64 = [&out](uint64_t v) { for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i))); };
  std::vector<uint8_t> cie = {1, 0, 1, 0x78, 16};  // version 1, "", code 1, data -8, ra 16
  cie.insert(cie.end(), cie_program.begin(), cie_program.end());
  while ((cie.size() + 4) % 8) cie.push_back(DW_CFA_nop);
  put32(static_cast<uint32_t>(cie.size() + 4));
  put32(0xffffffff);  // CIE id
  out.insert(out.end(), cie.begin(), cie.end());
  std::vector<uint8_t> fde_program_padded = fde_program;
  while ((fde_program_padded.size() + 4 + 16) % 8) fde_program_padded.push_back(DW_CFA_nop);
  put32(static_cast<uint32_t>(4 + 16 + fde_program_padded.size()));
  put32(0);  // CIE pointer
  put64(0x1000);
  put64(0x40);
  out.insert(out.end(), fde_program_padded.begin(), fde_program_padded.end());
  return out;
}

std::shared_ptr<const CfiTable> compile_debug_frame(const std::vector<uint8_t>& section) {
  auto binary = ElfBinary::from_image(
      "debug_frame", fuzz::make_elf_image({{".debug_frame", 0, Bytes(section.data(), section.size())}}));
  REQUIRE(binary);
  return CfiTable::compile(*binary);
}

}  // namespace

TEST_CASE("CFA programs with ordinary registers pass the register check", "[cfi]") {
  CHECK(ok({}));
  CHECK(ok({DW_CFA_def_cfa, 7, 8, DW_CFA_offset | 16, 1}));                    // cfa=rsp+8 ra=[cfa-8]
  CHECK(ok({DW_CFA_advance_loc | 1, DW_CFA_def_cfa_offset, 16, DW_CFA_offset | 6, 2}));
  CHECK(ok({DW_CFA_expression, 6, 2, DW_OP_breg6, 0, DW_CFA_val_offset, 0xff, 0x01, 0}));  // register 255: the limit
  CHECK(ok({DW_CFA_set_loc, 0, 0x10, 0, 0, DW_CFA_register, 3, 12, DW_CFA_remember_state, DW_CFA_restore_state}));
}

TEST_CASE("CFA programs naming a register above the limit are refused", "[cfi]") {
  CHECK_FALSE(ok({DW_CFA_offset_extended, 0x80, 0x02, 1}));                     // register 256
  CHECK_FALSE(ok({DW_CFA_def_cfa_register, 0xff, 0xff, 0xff, 0x7f}));          // register 2^28 - 1
  CHECK_FALSE(ok({DW_CFA_def_cfa, 7, 8, DW_CFA_val_expression, 0x90, 0x4e, 1, DW_OP_lit0}));
  CHECK_FALSE(ok({DW_CFA_register, 3, 0x80, 0x08}));                           // the second operand counts too
}

TEST_CASE("the register check reads past an over-long LEB128 number as libdw does", "[cfi]") {
  // libdw takes 10 bytes of a longer number for UINT64_MAX and goes on: the
  // register after the 12-byte offset is interpreted, and is too large.
  std::vector<uint8_t> program = {DW_CFA_offset | 5};
  program.insert(program.end(), 11, 0x95);
  program.insert(program.end(), {0x23, DW_CFA_undefined, 0x80, 0x80, 0x80, 0x20});
  CHECK_FALSE(ok(program));
  CHECK_FALSE(ok({DW_CFA_undefined, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}));
}

TEST_CASE("the register check stops where libdw's interpreter stops", "[cfi]") {
  CHECK(ok({0x3f, DW_CFA_def_cfa_register, 0xff, 0xff, 0x7f}));  // an unknown instruction first
  CHECK(ok({DW_CFA_def_cfa, 7}));                                // a cut operand
  CHECK(ok({DW_CFA_advance_loc4, 1, 2}));
}

TEST_CASE("a .debug_frame naming a huge register is left out, not interpreted", "[cfi]") {
  const std::vector<uint8_t> good_cie = {DW_CFA_def_cfa, 7, 8, DW_CFA_offset | 16, 1};
  auto table = compile_debug_frame(debug_frame(good_cie, {DW_CFA_advance_loc | 4, DW_CFA_def_cfa_offset, 16}));
  CHECK(table->stats().fdes == 1);
  REQUIRE(table->lookup(0x1008));
  CHECK(describe(*table->lookup(0x1008)) == "cfa=rsp+16 ra=[cfa-8]");

  // 2^26 registers of 16 bytes: a gigabyte for libdw's row, were it interpreted.
  auto bad_fde = compile_debug_frame(debug_frame(good_cie, {DW_CFA_undefined, 0x80, 0x80, 0x80, 0x20}));
  CHECK(bad_fde->empty());
  CHECK(bad_fde->stats().skipped_fdes == 1);
  auto bad_cie = compile_debug_frame(debug_frame({DW_CFA_def_cfa, 0x80, 0x80, 0x80, 0x20, 8}, {}));
  CHECK(bad_cie->empty());
  CHECK(bad_cie->stats().skipped_fdes == 1);
}
