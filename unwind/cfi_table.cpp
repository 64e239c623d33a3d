#include "unwind/cfi_table.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <string_view>
#include <tuple>

namespace swprof {
namespace cfi_detail {
namespace {

template <typename T>
std::optional<uint64_t> read_as_u64(ByteReader& r) {
  auto v = r.read<T>();
  if (!v) return std::nullopt;
  // Signed formats sign-extend (two's complement wrap-around is the intent).
  return static_cast<uint64_t>(static_cast<std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>(*v));
}

// The value of the low-nibble format of `encoding`, before it is made relative.
std::optional<uint64_t> read_format(ByteReader& r, uint8_t format) {
  switch (format) {
    case kPeAbsptr: return read_as_u64<uint64_t>(r);  // 64-bit ELF: a pointer is 8 bytes
    case kPeUleb128: return read_uleb128(r);
    case kPeUdata2: return read_as_u64<uint16_t>(r);
    case kPeUdata4: return read_as_u64<uint32_t>(r);
    case kPeUdata8: return read_as_u64<uint64_t>(r);
    case kPeSleb128: {
      auto v = read_sleb128(r);
      if (!v) return std::nullopt;
      return static_cast<uint64_t>(*v);
    }
    case kPeSdata2: return read_as_u64<int16_t>(r);
    case kPeSdata4: return read_as_u64<int32_t>(r);
    case kPeSdata8: return read_as_u64<int64_t>(r);
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<uint64_t> read_encoded_pointer(ByteReader& r, uint8_t encoding, const PointerBase& base) {
  if (encoding == kPeOmit || (encoding & kPeIndirect)) return std::nullopt;
  const uint64_t field_vaddr = base.section_vaddr + r.offset();
  auto raw = read_format(r, encoding & 0x0f);
  if (!raw) return std::nullopt;
  // Relative values wrap modulo 2^64, as the linker computed them.
  switch (encoding & 0x70) {
    case 0x00: return *raw;
    case kPePcrel: return field_vaddr + *raw;
    case kPeDatarel: return base.datarel + *raw;
    default: return std::nullopt;  // textrel, funcrel, aligned: not used on x86-64 Linux
  }
}

std::optional<EhFrameHdrTable> read_eh_frame_hdr_table(Bytes hdr, uint64_t hdr_vaddr) {
  // LSB 5.0 §10.6.2: version, eh_frame_ptr_enc, fde_count_enc, table_enc,
  // eh_frame_ptr, fde_count, then fde_count pairs (initial_location, address),
  // datarel values being relative to the start of .eh_frame_hdr.
  ByteReader r(hdr);
  const PointerBase base{hdr_vaddr, hdr_vaddr};
  auto version = r.read<uint8_t>();
  auto ptr_enc = r.read<uint8_t>();
  auto count_enc = r.read<uint8_t>();
  auto table_enc = r.read<uint8_t>();
  if (!version || *version != 1 || !ptr_enc || !count_enc || !table_enc) return std::nullopt;
  if (*ptr_enc != kPeOmit && !read_encoded_pointer(r, *ptr_enc, base)) return std::nullopt;
  if (*count_enc == kPeOmit || *table_enc == kPeOmit) return std::nullopt;
  auto count = read_encoded_pointer(r, *count_enc, base);
  if (!count) return std::nullopt;
  // Each entry takes at least 2 bytes: a count beyond that is corrupt.
  if (*count > r.remaining() / 2) return std::nullopt;
  return EhFrameHdrTable{hdr_vaddr + r.offset(), r.offset(), *count, *table_enc};
}

bool cfa_program_registers_ok(Bytes program, uint8_t address_format) {
  ByteReader r(program);
  // libdw's LEB128 reader stops after 10 bytes of an over-long number, takes
  // it for UINT64_MAX and goes on with the next byte: so does the scan, so
  // that both see the same next instruction.
  auto leb = [&r](auto read) -> std::optional<uint64_t> {
    const size_t at = r.offset();
    if (auto v = read(r)) return static_cast<uint64_t>(*v);
    if (r.offset() - at == 10) return UINT64_MAX;
    return std::nullopt;  // cut short by the end of the program
  };
  bool too_large = false;
  auto reg = [&] {
    auto n = leb(read_uleb128);
    too_large = too_large || (n && *n > kMaxCfiRegister);
    return n && !too_large;
  };
  auto uleb = [&] { return leb(read_uleb128).has_value(); };
  auto sleb = [&] { return leb(read_sleb128).has_value(); };
  auto block = [&] {
    auto n = leb(read_uleb128);
    return n && r.skip(static_cast<size_t>(std::min<uint64_t>(*n, SIZE_MAX)));
  };
  while (!r.at_end()) {
    const uint8_t op = *r.read<uint8_t>();
    if (op >> 6) {  // DW_CFA_advance_loc, DW_CFA_offset, DW_CFA_restore: a register is below 64, in the opcode
      if ((op >> 6) == (DW_CFA_offset >> 6) && !uleb()) return true;  // DW_CFA_offset's offset was cut
      continue;
    }
    bool ok = true;
    switch (op) {
      case DW_CFA_nop: case DW_CFA_remember_state: case DW_CFA_restore_state: case DW_CFA_GNU_window_save: break;
      case DW_CFA_set_loc: ok = read_encoded_pointer(r, address_format, {}).has_value(); break;
      case DW_CFA_advance_loc1: ok = r.skip(1); break;
      case DW_CFA_advance_loc2: ok = r.skip(2); break;
      case DW_CFA_advance_loc4: ok = r.skip(4); break;
      case DW_CFA_MIPS_advance_loc8: ok = r.skip(8); break;
      case DW_CFA_def_cfa_offset: case DW_CFA_GNU_args_size: ok = uleb(); break;
      case DW_CFA_def_cfa_offset_sf: ok = sleb(); break;
      case DW_CFA_def_cfa_expression: ok = block(); break;
      case DW_CFA_restore_extended: case DW_CFA_undefined: case DW_CFA_same_value: case DW_CFA_def_cfa_register:
        ok = reg();
        break;
      case DW_CFA_offset_extended: case DW_CFA_def_cfa: case DW_CFA_val_offset:
      case DW_CFA_GNU_negative_offset_extended:
        ok = reg() && uleb();
        break;
      case DW_CFA_offset_extended_sf: case DW_CFA_def_cfa_sf: case DW_CFA_val_offset_sf: ok = reg() && sleb(); break;
      case DW_CFA_register: ok = reg() && reg(); break;
      case DW_CFA_expression: case DW_CFA_val_expression: ok = reg() && block(); break;
      default: return true;  // libdw stops here too
    }
    if (!ok) return !too_large;
  }
  return true;
}

std::optional<std::vector<EhFrameHdrEntry>> parse_eh_frame_hdr(Bytes hdr, uint64_t hdr_vaddr) {
  auto table = read_eh_frame_hdr_table(hdr, hdr_vaddr);
  if (!table) return std::nullopt;
  ByteReader r(hdr);
  r.skip(table->offset);
  const PointerBase base{hdr_vaddr, hdr_vaddr};
  std::vector<EhFrameHdrEntry> entries;
  entries.reserve(static_cast<size_t>(table->fde_count));
  for (uint64_t i = 0; i < table->fde_count; ++i) {
    auto location = read_encoded_pointer(r, table->encoding, base);
    auto fde = read_encoded_pointer(r, table->encoding, base);
    if (!location || !fde) return std::nullopt;
    entries.push_back({*location, *fde});
  }
  return entries;
}

}  // namespace cfi_detail

namespace {

using namespace cfi_detail;

struct CfiDeleter {
  void operator()(Dwarf_CFI* c) const { dwarf_cfi_end(c); }
};
struct DwarfDeleter {
  void operator()(Dwarf* d) const { dwarf_end(d); }
};
struct FrameDeleter {
  void operator()(Dwarf_Frame* f) const { std::free(f); }  // dwarf_cfi_addrframe's frame is malloc'd
};
using CfiPtr = std::unique_ptr<Dwarf_CFI, CfiDeleter>;
using DwarfPtr = std::unique_ptr<Dwarf, DwarfDeleter>;
using FramePtr = std::unique_ptr<Dwarf_Frame, FrameDeleter>;

struct SectionRef {
  Elf_Data* data = nullptr;
  uint64_t vaddr = 0;
  Bytes bytes() const {
    if (!data || !data->d_buf) return {};
    return Bytes(static_cast<const uint8_t*>(data->d_buf), data->d_size);
  }
};

std::optional<SectionRef> find_section(Elf* elf, std::string_view name) {
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return std::nullopt;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS) continue;
    const char* sname = elf_strptr(elf, shstrndx, sh.sh_name);
    if (!sname || name != sname) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) return std::nullopt;
    return SectionRef{data, sh.sh_addr};
  }
  return std::nullopt;
}

bool fits_int32(int64_t v) { return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max(); }
bool fits_int16(int64_t v) { return v >= std::numeric_limits<int16_t>::min() && v <= std::numeric_limits<int16_t>::max(); }

// DW_OP_bregN off / DW_OP_bregx N off: the register and offset, when `op` is one.
std::optional<std::pair<uint8_t, int64_t>> breg_of(const Dwarf_Op& op) {
  if (op.atom >= DW_OP_breg0 && op.atom <= DW_OP_breg31) {
    const int reg = op.atom - DW_OP_breg0;
    if (reg >= kRegCount) return std::nullopt;
    return std::pair<uint8_t, int64_t>{static_cast<uint8_t>(reg), static_cast<int64_t>(op.number)};
  }
  if (op.atom == DW_OP_bregx) {
    if (op.number >= kRegCount) return std::nullopt;
    return std::pair<uint8_t, int64_t>{static_cast<uint8_t>(op.number), static_cast<int64_t>(op.number2)};
  }
  return std::nullopt;
}

bool set_register_offset_cfa(CfiRule& rule, uint8_t reg, int64_t off) {
  if (!fits_int32(off)) return false;
  rule.cfa = reg == kRsp ? CfaRule::kRspOffset : reg == kRbp ? CfaRule::kRbpOffset : CfaRule::kRegOffset;
  rule.cfa_reg = reg;
  rule.cfa_offset = static_cast<int32_t>(off);
  return true;
}

// The PLT expression (see CfaRule::kPlt); sets K and the rsp offset.
bool match_plt_expression(const Dwarf_Op* ops, size_t n, CfiRule& rule) {
  static constexpr uint8_t kShape[] = {DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, DW_OP_lit0,
                                       DW_OP_ge,    DW_OP_lit3,   DW_OP_shl,   DW_OP_plus};
  if (n != std::size(kShape)) return false;
  for (size_t i = 0; i < n; ++i) {
    if (i == 4) {
      if (ops[i].atom < DW_OP_lit0 || ops[i].atom > DW_OP_lit31) return false;
    } else if (ops[i].atom != kShape[i]) {
      return false;
    }
  }
  const auto rsp_off = static_cast<int64_t>(ops[0].number);
  if (ops[1].number != 0 || !fits_int32(rsp_off)) return false;
  rule.cfa = CfaRule::kPlt;
  rule.cfa_reg = kRsp;
  rule.cfa_offset = static_cast<int32_t>(rsp_off);
  rule.plt_threshold = static_cast<uint8_t>(ops[4].atom - DW_OP_lit0);
  return true;
}

// The CFA rule of a row, from dwarf_frame_cfa (DWARF 5 §6.4.2.2). A
// register+offset CFA comes back as one DW_OP_bregx op (number = register,
// number2 = offset); DW_CFA_def_cfa_expression comes back as its ops.
bool convert_cfa(Dwarf_Frame* frame, CfiRule& rule) {
  Dwarf_Op* ops = nullptr;
  size_t n = 0;
  if (dwarf_frame_cfa(frame, &ops, &n) != 0 || n == 0 || !ops) return false;  // CFA undefined or invalid
  if (n == 1) {
    auto breg = breg_of(ops[0]);
    return breg && set_register_offset_cfa(rule, breg->first, breg->second);
  }
  if (n == 2 && ops[1].atom == DW_OP_deref) {
    auto breg = breg_of(ops[0]);
    if (!breg || !fits_int32(breg->second)) return false;
    rule.cfa = CfaRule::kDerefReg;
    rule.cfa_reg = breg->first;
    rule.cfa_offset = static_cast<int32_t>(breg->second);
    return true;
  }
  return match_plt_expression(ops, n, rule);
}

// One register's rule, from dwarf_frame_register (see libdw.h):
//   nops 0, ops == ops_mem       -> undefined
//   nops 0, ops == nullptr       -> same value
//   [call_frame_cfa (plus_uconst off)] (stack_value)  -> at / value CFA+off
//   [call_frame_cfa, bregN off]  -> DW_CFA_expression (libdw pushes the CFA first, DWARF 5 §6.4.2.3)
std::optional<std::pair<SavedRule, int64_t>> convert_register(Dwarf_Frame* frame, int regno) {
  Dwarf_Op ops_mem[3];
  Dwarf_Op* ops = nullptr;
  size_t n = 0;
  if (dwarf_frame_register(frame, regno, ops_mem, &ops, &n) != 0) return std::nullopt;
  if (n == 0) return std::pair{ops == nullptr ? SavedRule::kSameValue : SavedRule::kUndefined, int64_t{0}};
  if (ops[0].atom != DW_OP_call_frame_cfa) return std::nullopt;
  bool value = false;
  if (ops[n - 1].atom == DW_OP_stack_value) {
    value = true;
    --n;
  }
  if (n == 1) return std::pair{value ? SavedRule::kValCfa : SavedRule::kAtCfa, int64_t{0}};
  if (n == 2 && ops[1].atom == DW_OP_plus_uconst)
    return std::pair{value ? SavedRule::kValCfa : SavedRule::kAtCfa, static_cast<int64_t>(ops[1].number)};
  if (n == 2 && !value) {
    auto breg = breg_of(ops[1]);
    if (breg && breg->first == kRbp) return std::pair{SavedRule::kAtRbp, breg->second};
  }
  return std::nullopt;
}

// The CfiRule of one interpreted row, or nullopt when some part of it has no
// CfiRule equivalent.
std::optional<CfiRule> convert_row(Dwarf_Frame* frame, int ra_column, bool signal) {
  if (ra_column != kRip) return std::nullopt;
  CfiRule rule;
  if (!convert_cfa(frame, rule)) return std::nullopt;
  for (int slot = 0; slot < kSavedSlotCount; ++slot) {
    auto saved = convert_register(frame, kSavedSlotReg[slot]);
    if (!saved || !fits_int16(saved->second)) return std::nullopt;
    rule.saved[slot] = saved->first;
    rule.saved_offset[slot] = static_cast<int16_t>(saved->second);
  }
  // rbx is callee-saved (x86-64 psABI §3.2.1), so a row that does not
  // mention it means "same value". libdw's x86-64 default rules mark DWARF
  // register 0 instead of 3 as same-value (backends/x86_64_cfi.c), so an
  // unmentioned rbx reads as undefined; compilers never emit an explicit
  // DW_CFA_undefined for rbx, so undefined is read as the ABI default.
  if (rule.saved[kSlotRbx] == SavedRule::kUndefined) rule.saved[kSlotRbx] = SavedRule::kSameValue;
  // The caller's rsp is the CFA by definition (x86-64 psABI; libdw's default
  // rule is DW_CFA_val_offset rsp, 0). Anything else cannot be expressed.
  auto rsp = convert_register(frame, kRsp);
  if (!rsp) return std::nullopt;
  const bool rsp_is_cfa = (rsp->first == SavedRule::kValCfa && rsp->second == 0) || rsp->first == SavedRule::kUndefined;
  if (!rsp_is_cfa) return std::nullopt;
  if (signal) rule.flags |= kCfiSignalFrame;
  rule.finalize();
  return rule;
}

struct RuleHash {
  size_t operator()(const CfiRule& r) const {
    uint64_t h = static_cast<uint32_t>(r.cfa_offset);
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ull + (h >> 29); };
    mix(static_cast<uint64_t>(r.cfa) | uint64_t{r.cfa_reg} << 8 | uint64_t{r.plt_threshold} << 16 | uint64_t{r.flags} << 24);
    for (int i = 0; i < kSavedSlotCount; ++i)
      mix(static_cast<uint64_t>(r.saved[i]) | static_cast<uint64_t>(static_cast<uint16_t>(r.saved_offset[i])) << 8);
    return static_cast<size_t>(h);
  }
};

}  // namespace

// Collects rows from the CFI sources, then sorts, de-overlaps and merges them.
class CfiTableBuilder {
 public:
  explicit CfiTableBuilder(const ElfBinary& binary, const CfiCompileOptions& options)
      : binary_(binary), options_(options) {}

  std::shared_ptr<const CfiTable> build();
  static std::shared_ptr<const CfiTable> empty() {
    static const std::shared_ptr<const CfiTable> table(new CfiTable());
    return table;
  }

 private:
  struct RawRow {
    uint64_t start, end;
    uint32_t rule;
    uint8_t source;  // lower wins where rows overlap
  };
  struct FdeRange {
    uint64_t lo, hi;
  };
  enum Source : uint8_t { kEhFrame = 0, kDebugFrame = 1 };

  void compile_eh_frame();
  void compile_debug_frame();
  std::vector<FdeRange> eh_frame_fdes_from_hdr(const SectionRef& eh_frame);
  std::vector<FdeRange> walk_fdes(const SectionRef& section, bool eh_frame);
  std::optional<FdeRange> decode_fde(const SectionRef& section, bool eh_frame, const Dwarf_FDE& fde);
  std::optional<uint8_t> fde_encoding(const SectionRef& section, bool eh_frame, Dwarf_Off cie_offset);
  bool fde_registers_ok(const SectionRef& section, bool eh_frame, const Dwarf_FDE& fde, uint8_t encoding,
                        ByteReader after_range);
  std::optional<bool> cie_augmented_if_registers_ok(const SectionRef& section, bool eh_frame, Dwarf_Off cie_offset);
  void compile_fde(Dwarf_CFI* cfi, FdeRange range, Source source);
  uint32_t intern(const CfiRule& rule);
  std::shared_ptr<const CfiTable> finish();

  const ElfBinary& binary_;
  CfiCompileOptions options_;
  // A private libelf handle over the binary's bytes: libelf is not
  // thread-safe per handle, and the binary's own handle may be in use by
  // other threads (symbolization) while this table compiles.
  ElfPtr elf_;
  const unsigned char* ident_ = nullptr;
  std::vector<RawRow> rows_;
  std::vector<CfiRule> rules_;
  std::unordered_map<CfiRule, uint32_t, RuleHash> rule_ids_;
  std::map<Dwarf_Off, std::optional<uint8_t>> cie_encodings_;
  std::map<Dwarf_Off, std::optional<bool>> cie_registers_ok_;  // by CIE offset: whether augmented ('z'), when ok
  // Set when an FDE or CIE of the section being compiled names a register
  // above kMaxCfiRegister: libdw may choose that FDE for any address, so the
  // section is left out.
  bool refused_registers_ = false;
  CfiTableStats stats_;
};

std::shared_ptr<const CfiTable> CfiTable::compile(const ElfBinary& binary, const CfiCompileOptions& options) {
  return CfiTableBuilder(binary, options).build();
}

std::shared_ptr<const CfiTable> CfiTableBuilder::build() {
  Bytes file = binary_.file_bytes();
  if (!file.empty()) {
    // elf_memory only reads the image for a native-endian file; it never writes it.
    elf_.reset(elf_memory(const_cast<char*>(reinterpret_cast<const char*>(file.data())), file.size()));
  }
  if (elf_ && elf_kind(elf_.get()) == ELF_K_ELF) {
    ident_ = reinterpret_cast<const unsigned char*>(elf_getident(elf_.get(), nullptr));
    if (ident_) {
      compile_eh_frame();
      if (options_.use_debug_frame) compile_debug_frame();
    }
  }
  return finish();
}

void CfiTableBuilder::compile_eh_frame() {
  auto eh_frame = find_section(elf_.get(), ".eh_frame");
  if (!eh_frame) return;
  CfiPtr cfi(dwarf_getcfi_elf(elf_.get()));
  if (!cfi) return;
  std::vector<FdeRange> fdes;
  refused_registers_ = false;
  cie_registers_ok_.clear();
  if (options_.use_eh_frame_hdr) fdes = eh_frame_fdes_from_hdr(*eh_frame);
  if (fdes.empty()) fdes = walk_fdes(*eh_frame, true);
  if (refused_registers_) {
    stats_.skipped_fdes += fdes.size();
    return;
  }
  for (const FdeRange& fde : fdes) compile_fde(cfi.get(), fde, kEhFrame);
}

void CfiTableBuilder::compile_debug_frame() {
  auto debug_frame = find_section(elf_.get(), ".debug_frame");
  if (!debug_frame) return;
  DwarfPtr dwarf(dwarf_begin_elf(elf_.get(), DWARF_C_READ, nullptr));
  if (!dwarf) return;
  Dwarf_CFI* cfi = dwarf_getcfi(dwarf.get());  // owned by `dwarf`
  if (!cfi) return;
  refused_registers_ = false;
  cie_registers_ok_.clear();
  const std::vector<FdeRange> fdes = walk_fdes(*debug_frame, false);
  if (refused_registers_) {
    stats_.skipped_fdes += fdes.size();
    return;
  }
  for (const FdeRange& fde : fdes) compile_fde(cfi, fde, kDebugFrame);
}

std::vector<CfiTableBuilder::FdeRange> CfiTableBuilder::eh_frame_fdes_from_hdr(const SectionRef& eh_frame) {
  auto hdr_section = find_section(elf_.get(), ".eh_frame_hdr");
  if (!hdr_section) return {};
  auto entries = parse_eh_frame_hdr(hdr_section->bytes(), hdr_section->vaddr);
  if (!entries) return {};
  std::vector<FdeRange> fdes;
  fdes.reserve(entries->size());
  for (const EhFrameHdrEntry& e : *entries) {
    const uint64_t offset = e.fde_vaddr - eh_frame.vaddr;
    Dwarf_CFI_Entry entry;
    Dwarf_Off next = 0;
    if (e.fde_vaddr < eh_frame.vaddr || offset >= eh_frame.data->d_size ||
        dwarf_next_cfi(ident_, eh_frame.data, true, offset, &next, &entry) != 0 || dwarf_cfi_cie_p(&entry)) {
      ++stats_.skipped_fdes;
      continue;
    }
    auto range = decode_fde(eh_frame, true, entry.fde);
    if (!range) {
      ++stats_.skipped_fdes;
      continue;
    }
    if (range->lo != e.initial_location) ++stats_.skipped_fdes;  // the table disagrees with the FDE
    else if (range->hi > range->lo) fdes.push_back(*range);
  }
  return fdes;
}

std::vector<CfiTableBuilder::FdeRange> CfiTableBuilder::walk_fdes(const SectionRef& section, bool eh_frame) {
  std::vector<FdeRange> fdes;
  Dwarf_Off offset = 0;
  while (offset < section.data->d_size) {
    Dwarf_CFI_Entry entry;
    Dwarf_Off next = 0;
    const int rc = dwarf_next_cfi(ident_, section.data, eh_frame, offset, &next, &entry);
    if (rc == 1) break;  // the end (or a zero terminator)
    if (rc != 0) {
      ++stats_.skipped_fdes;
      // libdw sets `next` when the broken entry can be stepped over.
      if (next == static_cast<Dwarf_Off>(-1) || next <= offset) break;
      offset = next;
      continue;
    }
    if (next <= offset) break;
    offset = next;
    if (dwarf_cfi_cie_p(&entry)) continue;
    auto range = decode_fde(section, eh_frame, entry.fde);
    if (!range) ++stats_.skipped_fdes;
    else if (range->hi > range->lo) fdes.push_back(*range);
  }
  return fdes;
}

// initial_location and address_range of an FDE, encoded with its CIE's 'R'
// encoding (LSB 5.0 §10.5.1.2; the range uses only the value format).
// .debug_frame FDEs hold plain 8-byte addresses (DWARF 5 §6.4.1).
std::optional<CfiTableBuilder::FdeRange> CfiTableBuilder::decode_fde(const SectionRef& section, bool eh_frame,
                                                                     const Dwarf_FDE& fde) {
  auto encoding = fde_encoding(section, eh_frame, fde.CIE_pointer);
  if (!encoding) return std::nullopt;
  const auto* section_start = static_cast<const uint8_t*>(section.data->d_buf);
  if (!fde.start || fde.end < fde.start) return std::nullopt;
  ByteReader r(Bytes(fde.start, static_cast<size_t>(fde.end - fde.start)));
  const PointerBase base{section.vaddr + static_cast<uint64_t>(fde.start - section_start), 0};
  auto lo = read_encoded_pointer(r, *encoding, base);
  auto length = read_encoded_pointer(r, *encoding & 0x0f, base);
  if (!lo || !length) return std::nullopt;
  if (!fde_registers_ok(section, eh_frame, fde, *encoding, r)) {
    refused_registers_ = true;
    return std::nullopt;
  }
  uint64_t hi = 0;
  if (__builtin_add_overflow(*lo, *length, &hi)) return std::nullopt;
  return FdeRange{*lo, hi};
}

// Whether the registers of the FDE's instructions (after its address range
// and, when the CIE has 'z', its augmentation data) and of its CIE's initial
// instructions are all at most kMaxCfiRegister.
bool CfiTableBuilder::fde_registers_ok(const SectionRef& section, bool eh_frame, const Dwarf_FDE& fde,
                                       uint8_t encoding, ByteReader after_range) {
  auto augmented = cie_augmented_if_registers_ok(section, eh_frame, fde.CIE_pointer);
  if (!augmented) return false;
  if (*augmented) {
    auto n = read_uleb128(after_range);
    if (!n || !after_range.skip(static_cast<size_t>(std::min<uint64_t>(*n, SIZE_MAX)))) return true;  // no program
  }
  return cfa_program_registers_ok(*after_range.bytes(after_range.remaining()), encoding & 0x0f);
}

// For the CIE at `cie_offset`: nullopt when its initial instructions name a
// register above kMaxCfiRegister, else whether its FDEs carry augmentation
// data ('z'); false for a CIE that cannot be read (libdw cannot use it either).
std::optional<bool> CfiTableBuilder::cie_augmented_if_registers_ok(const SectionRef& section, bool eh_frame,
                                                                   Dwarf_Off cie_offset) {
  auto cached = cie_registers_ok_.find(cie_offset);
  if (cached != cie_registers_ok_.end()) return cached->second;
  std::optional<bool> result = false;
  Dwarf_CFI_Entry entry;
  Dwarf_Off next = 0;
  if (dwarf_next_cfi(ident_, section.data, eh_frame, cie_offset, &next, &entry) == 0 && dwarf_cfi_cie_p(&entry) &&
      entry.cie.augmentation && entry.cie.initial_instructions &&
      entry.cie.initial_instructions_end >= entry.cie.initial_instructions) {
    const Bytes program(entry.cie.initial_instructions,
                        static_cast<size_t>(entry.cie.initial_instructions_end - entry.cie.initial_instructions));
    const uint8_t encoding = fde_encoding(section, eh_frame, cie_offset).value_or(kPeAbsptr);
    if (cfa_program_registers_ok(program, encoding & 0x0f)) result = entry.cie.augmentation[0] == 'z';
    else result = std::nullopt;
  }
  cie_registers_ok_.emplace(cie_offset, result);
  return result;
}

// The FDE pointer encoding of the CIE at `cie_offset`: the 'R' entry of its
// 'z' augmentation data (LSB 5.0 §10.5.1.1), absptr when it has none.
std::optional<uint8_t> CfiTableBuilder::fde_encoding(const SectionRef& section, bool eh_frame, Dwarf_Off cie_offset) {
  if (!eh_frame) return kPeAbsptr;
  auto cached = cie_encodings_.find(cie_offset);
  if (cached != cie_encodings_.end()) return cached->second;
  std::optional<uint8_t> result;
  Dwarf_CFI_Entry entry;
  Dwarf_Off next = 0;
  if (dwarf_next_cfi(ident_, section.data, true, cie_offset, &next, &entry) == 0 && dwarf_cfi_cie_p(&entry) &&
      entry.cie.augmentation) {
    const std::string_view aug = entry.cie.augmentation;
    if (aug.empty()) {
      result = kPeAbsptr;
    } else if (aug[0] == 'z' && entry.cie.augmentation_data) {
      ByteReader r(Bytes(entry.cie.augmentation_data, entry.cie.augmentation_data_size));
      uint8_t encoding = kPeAbsptr;
      bool ok = true;
      for (char c : aug.substr(1)) {
        if (c == 'R') {
          ok = r.read_into(encoding);
        } else if (c == 'L') {
          ok = r.skip(1);
        } else if (c == 'P') {
          // The personality pointer: skip its encoded value (only its format matters).
          uint8_t personality = 0;
          ok = r.read_into(personality) && read_encoded_pointer(r, personality & 0x0f, {}).has_value();
        } else if (c != 'S' && c != 'B' && c != 'G') {
          ok = false;  // an unknown letter: the data after it cannot be located
        }
        if (!ok) break;
      }
      if (ok) result = encoding;
    }
  }
  cie_encodings_.emplace(cie_offset, result);
  return result;
}

// Rows of one FDE: libdw interprets the CFA program up to `addr` and reports
// the row holding it as [start, end); the next row starts at `end`.
void CfiTableBuilder::compile_fde(Dwarf_CFI* cfi, FdeRange range, Source source) {
  bool any = false;
  uint64_t addr = range.lo;
  while (addr < range.hi) {
    Dwarf_Frame* raw = nullptr;
    const int rc = dwarf_cfi_addrframe(cfi, addr, &raw);
    FramePtr frame(raw);
    if (rc != 0 || !frame) {
      ++stats_.skipped_fdes;
      break;
    }
    Dwarf_Addr start = 0, end = 0;
    bool signal = false;
    const int ra_column = dwarf_frame_info(frame.get(), &start, &end, &signal);
    if (ra_column < 0 || start > addr || end <= addr) {
      ++stats_.skipped_fdes;  // a row that does not hold addr: corrupt, and no way to the next row
      break;
    }
    const uint64_t row_end = std::min<uint64_t>(end, range.hi);
    ++stats_.interpreted;
    if (auto rule = convert_row(frame.get(), ra_column, signal)) {
      rows_.push_back({addr, row_end, intern(*rule), source});
      any = true;
    } else {
      ++stats_.skipped_rows;
    }
    addr = row_end;
  }
  if (any) ++stats_.fdes;
}

uint32_t CfiTableBuilder::intern(const CfiRule& rule) {
  auto [it, inserted] = rule_ids_.try_emplace(rule, static_cast<uint32_t>(rules_.size()));
  if (inserted) rules_.push_back(rule);
  return it->second;
}

std::shared_ptr<const CfiTable> CfiTableBuilder::finish() {
  std::stable_sort(rows_.begin(), rows_.end(), [](const RawRow& a, const RawRow& b) {
    return std::tie(a.start, a.source) < std::tie(b.start, b.source);
  });
  std::shared_ptr<CfiTable> table(new CfiTable());
  table->starts_.reserve(rows_.size() + 1);
  table->rule_index_.reserve(rows_.size() + 1);
  uint64_t covered = 0;  // end of the last row kept; a later row starting below it is trimmed
  bool have_row = false;
  for (RawRow row : rows_) {
    if (have_row && row.start < covered) row.start = covered;
    if (row.start >= row.end) continue;
    auto& starts = table->starts_;
    auto& index = table->rule_index_;
    if (have_row && row.start == covered && index.back() == row.rule) {
      covered = row.end;  // adjacent and identical: extend the previous row
      continue;
    }
    if (have_row && row.start > covered) {
      starts.push_back(covered);  // a gap between FDEs
      index.push_back(CfiTable::kNoRule);
    }
    starts.push_back(row.start);
    index.push_back(row.rule);
    covered = row.end;
    have_row = true;
    ++stats_.rows;
  }
  if (have_row) {
    table->starts_.push_back(covered);
    table->rule_index_.push_back(CfiTable::kNoRule);
  }
  table->starts_.shrink_to_fit();
  table->rule_index_.shrink_to_fit();
  table->rules_ = std::move(rules_);
  stats_.rules = table->rules_.size();
  table->stats_ = stats_;
  return table;
}

namespace {

const char* dwarf_reg_name(unsigned reg) {
  static constexpr const char* kNames[kRegCount] = {"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8",
                                                    "r9",  "r10", "r11", "r12", "r13", "r14", "r15", "rip"};
  return reg < kRegCount ? kNames[reg] : "?";
}

std::string signed_offset(int64_t off) { return (off < 0 ? "-" : "+") + std::to_string(off < 0 ? -off : off); }

std::string describe_saved(SavedRule how, int64_t off) {
  switch (how) {
    case SavedRule::kUndefined: return "undef";
    case SavedRule::kSameValue: return "same";
    case SavedRule::kAtCfa: return "[cfa" + signed_offset(off) + "]";
    case SavedRule::kValCfa: return "cfa" + signed_offset(off);
    case SavedRule::kAtRbp: return "[rbp" + signed_offset(off) + "]";
  }
  return "?";
}

}  // namespace

std::string describe(const CfiRule& rule) {
  const std::string base = std::string(dwarf_reg_name(rule.cfa_reg)) + signed_offset(rule.cfa_offset);
  std::string out = "cfa=";
  switch (rule.cfa) {
    case CfaRule::kRspOffset:
    case CfaRule::kRbpOffset:
    case CfaRule::kRegOffset: out += base; break;
    case CfaRule::kDerefReg: out += "[" + base + "]"; break;
    case CfaRule::kPlt: out += "plt(" + base + ",k=" + std::to_string(rule.plt_threshold) + ")"; break;
  }
  out += " ra=" + describe_saved(rule.ra(), rule.saved_offset[kSlotRa]);
  for (int slot = kSlotRbp; slot < kSavedSlotCount; ++slot) {
    if (rule.saved[slot] == SavedRule::kSameValue) continue;
    out += std::string(" ") + dwarf_reg_name(kSavedSlotReg[slot]) + "=" + describe_saved(rule.saved[slot], rule.saved_offset[slot]);
  }
  if (rule.flags & kCfiSignalFrame) out += " signal";
  return out;
}

std::optional<CfiTable::Row> CfiTable::row_at(uint64_t vaddr) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), vaddr);
  if (it == starts_.begin() || it == starts_.end()) return std::nullopt;
  const size_t i = static_cast<size_t>(it - starts_.begin()) - 1;
  if (rule_index_[i] == kNoRule) return std::nullopt;
  return Row{starts_[i], starts_[i + 1], &rules_[rule_index_[i]]};
}

size_t CfiTable::memory_bytes() const {
  return starts_.capacity() * sizeof(uint64_t) + rule_index_.capacity() * sizeof(uint32_t) +
         rules_.capacity() * sizeof(CfiRule);
}

std::shared_ptr<const CfiTable> CfiTableCache::get(const std::shared_ptr<const ElfBinary>& binary) {
  if (!binary) return CfiTableBuilder::empty();
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard lock(mutex_);
    auto& slot = entries_[binary.get()];
    if (!slot) {
      slot = std::make_shared<Entry>();
      slot->binary = binary;
    }
    entry = slot;
  }
  // Compile outside the map lock: other binaries are served meanwhile, and
  // threads wanting this binary wait for the one compiling it.
  std::call_once(entry->once, [&] {
    entry->table = CfiTable::compile(*entry->binary, options_);
    compiled_.fetch_add(1, std::memory_order_relaxed);
  });
  return entry->table;
}

}  // namespace swprof
