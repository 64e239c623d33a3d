#include "binary/cfi_table.h"

#include "binary/cfa_program.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include <algorithm>
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

// A row as libdw presents it: the CFA rule and register rules as lists of
// DWARF operations (see libdw.h). LibdwRow reads them from libdw's
// Dwarf_Frame; InterpretedRow builds the same lists from a CfaState of the
// one-pass interpreter (cfa_program.h), so both convert through one path.
constexpr size_t kRowOpsMax = 12;  // more operations than any convertible rule has

struct LibdwRow {
  Dwarf_Frame* frame;
  bool cfa(Dwarf_Op* /*mem*/, const Dwarf_Op** ops, size_t* n) const {
    Dwarf_Op* out = nullptr;
    if (dwarf_frame_cfa(frame, &out, n) != 0) return false;
    *ops = out;
    return true;
  }
  bool reg(int regno, Dwarf_Op* mem, const Dwarf_Op** ops, size_t* n) const {
    Dwarf_Op* out = nullptr;
    if (dwarf_frame_register(frame, regno, mem, &out, n) != 0) return false;
    *ops = out;
    return true;
  }
};

// The DWARF expression `expr` as libdw interns it, for the operations a
// CfiRule can use (DWARF 5 §2.5.1); false for any other operation (no rule
// could use it either).
bool parse_expression(Bytes expr, Dwarf_Op* mem, size_t* n) {
  ByteReader r(expr);
  while (!r.at_end()) {
    if (*n == kRowOpsMax) return false;
    Dwarf_Op op{};
    op.atom = r.read<uint8_t>().value();
    std::optional<uint64_t> number = 0;
    if (op.atom >= DW_OP_breg0 && op.atom <= DW_OP_breg31) {
      auto v = read_sleb128(r);
      number = v ? std::optional<uint64_t>(static_cast<uint64_t>(*v)) : std::nullopt;
    } else if (op.atom == DW_OP_bregx) {
      number = read_uleb128(r);
      auto v = read_sleb128(r);
      if (!v) return false;
      op.number2 = static_cast<uint64_t>(*v);
    } else if (op.atom == DW_OP_plus_uconst) {
      number = read_uleb128(r);
    } else if (!(op.atom >= DW_OP_lit0 && op.atom <= DW_OP_lit31) && op.atom != DW_OP_deref && op.atom != DW_OP_and &&
               op.atom != DW_OP_ge && op.atom != DW_OP_shl && op.atom != DW_OP_plus) {
      return false;
    }
    if (!number) return false;
    op.number = *number;
    mem[(*n)++] = op;
  }
  return true;
}

struct InterpretedRow {
  const CfaState& state;
  bool cfa(Dwarf_Op* mem, const Dwarf_Op** ops, size_t* n) const {
    *ops = mem;
    *n = 0;
    switch (state.cfa) {
      case CfaState::kCfaUndefined: return true;
      case CfaState::kCfaInvalid: return false;
      case CfaState::kCfaOffset:
        mem[0] = Dwarf_Op{};
        mem[0].atom = DW_OP_bregx;
        mem[0].number = state.cfa_register;
        mem[0].number2 = state.cfa_offset;
        *n = 1;
        return true;
      case CfaState::kCfaExpression: return parse_expression(state.cfa_expression, mem, n);
    }
    return false;
  }
  bool reg(int regno, Dwarf_Op* mem, const Dwarf_Op** ops, size_t* n) const {
    const CfaRegisterRule& rule = state.regs[static_cast<size_t>(regno)];
    *ops = mem;
    *n = 0;
    auto push = [&](uint8_t atom, uint64_t number = 0) {
      mem[*n] = Dwarf_Op{};
      mem[*n].atom = atom;
      mem[*n].number = number;
      ++*n;
    };
    switch (rule.kind) {
      case CfaRegisterRule::kUnspecified:
      case CfaRegisterRule::kUndefined: return true;
      case CfaRegisterRule::kSameValue: *ops = nullptr; return true;
      case CfaRegisterRule::kOffset:
      case CfaRegisterRule::kValOffset:
        push(DW_OP_call_frame_cfa);
        if (rule.value != 0) push(DW_OP_plus_uconst, static_cast<uint64_t>(rule.value));
        if (rule.kind == CfaRegisterRule::kValOffset) push(DW_OP_stack_value);
        return true;
      case CfaRegisterRule::kRegister: push(DW_OP_regx, static_cast<uint64_t>(rule.value)); return true;
      case CfaRegisterRule::kExpression:
      case CfaRegisterRule::kValExpression:
        push(DW_OP_call_frame_cfa);
        if (!parse_expression(rule.expression, mem, n) || *n == kRowOpsMax) return false;
        if (rule.kind == CfaRegisterRule::kValExpression) push(DW_OP_stack_value);
        return true;
    }
    return false;
  }
};

// The CFA rule of a row (DWARF 5 §6.4.2.2). A register+offset CFA comes as
// one DW_OP_bregx op (number = register, number2 = offset);
// DW_CFA_def_cfa_expression comes as its ops.
template <typename Row>
bool convert_cfa(const Row& row, CfiRule& rule) {
  Dwarf_Op mem[kRowOpsMax];
  const Dwarf_Op* ops = nullptr;
  size_t n = 0;
  if (!row.cfa(mem, &ops, &n) || n == 0 || !ops) return false;  // CFA undefined or invalid
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

// One register's rule (see dwarf_frame_register in libdw.h):
//   nops 0, ops != nullptr       -> undefined
//   nops 0, ops == nullptr       -> same value
//   [call_frame_cfa (plus_uconst off)] (stack_value)  -> at / value CFA+off
//   [call_frame_cfa, bregN off]  -> DW_CFA_expression (libdw pushes the CFA first, DWARF 5 §6.4.2.3)
template <typename Row>
std::optional<std::pair<SavedRule, int64_t>> convert_register(const Row& row, int regno) {
  Dwarf_Op mem[kRowOpsMax];
  const Dwarf_Op* ops = nullptr;
  size_t n = 0;
  if (!row.reg(regno, mem, &ops, &n)) return std::nullopt;
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
template <typename Row>
std::optional<CfiRule> convert_row(const Row& row, uint64_t ra_column, bool signal) {
  if (ra_column != kRip) return std::nullopt;
  CfiRule rule;
  if (!convert_cfa(row, rule)) return std::nullopt;
  for (int slot = 0; slot < kSavedSlotCount; ++slot) {
    auto saved = convert_register(row, kSavedSlotReg[slot]);
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
  auto rsp = convert_register(row, kRsp);
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
    Dwarf_Off cie_offset;
    Bytes instructions;  // the FDE's CFA program
  };
  // What the FDEs of one CIE share (LSB 5.0 §10.5.1.1; DWARF 5 §6.4.1).
  struct CieInfo {
    uint8_t fde_encoding = kPeAbsptr;  // the 'R' augmentation
    bool has_z = false;                // FDEs hold a uleb128 length and augmentation data
    size_t fde_augmentation_size = 0;  // without 'z': libdw's count of those bytes
    bool signal = false;               // the 'S' augmentation
    uint64_t ra_column = 0;
    CieProgram program;
    std::optional<CfaState> initial;   // nullopt: its initial instructions are invalid
  };
  enum Source : uint8_t { kEhFrame = 0, kDebugFrame = 1 };

  void compile_eh_frame();
  void compile_debug_frame();
  std::vector<FdeRange> eh_frame_fdes_from_hdr(const SectionRef& eh_frame);
  std::vector<FdeRange> walk_fdes(const SectionRef& section, bool eh_frame);
  std::optional<FdeRange> decode_fde(const SectionRef& section, bool eh_frame, const Dwarf_FDE& fde);
  const CieInfo* cie_info(const SectionRef& section, bool eh_frame, Dwarf_Off cie_offset);
  std::optional<CieInfo> read_cie(const SectionRef& section, bool eh_frame, Dwarf_Off cie_offset) const;
  void compile_fde(const SectionRef& section, bool eh_frame, const FdeRange& range);
  void compile_fde_per_row(Dwarf_CFI* cfi, FdeRange range, Source source);
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
  std::map<std::pair<bool, Dwarf_Off>, std::optional<CieInfo>> cies_;  // by (eh_frame, offset)
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
  if (options_.use_eh_frame_hdr) fdes = eh_frame_fdes_from_hdr(*eh_frame);
  if (fdes.empty()) fdes = walk_fdes(*eh_frame, true);
  for (const FdeRange& fde : fdes) {
    if (options_.reference_per_row) compile_fde_per_row(cfi.get(), fde, kEhFrame);
    else compile_fde(*eh_frame, true, fde);
  }
}

void CfiTableBuilder::compile_debug_frame() {
  auto debug_frame = find_section(elf_.get(), ".debug_frame");
  if (!debug_frame) return;
  DwarfPtr dwarf(dwarf_begin_elf(elf_.get(), DWARF_C_READ, nullptr));
  if (!dwarf) return;
  Dwarf_CFI* cfi = dwarf_getcfi(dwarf.get());  // owned by `dwarf`
  if (!cfi) return;
  for (const FdeRange& fde : walk_fdes(*debug_frame, false)) {
    if (options_.reference_per_row) compile_fde_per_row(cfi, fde, kDebugFrame);
    else compile_fde(*debug_frame, false, fde);
  }
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
// encoding (LSB 5.0 §10.5.1.2; the range uses only the value format), and
// the instructions after its augmentation data.
// .debug_frame FDEs hold plain 8-byte addresses (DWARF 5 §6.4.1).
std::optional<CfiTableBuilder::FdeRange> CfiTableBuilder::decode_fde(const SectionRef& section, bool eh_frame,
                                                                     const Dwarf_FDE& fde) {
  const CieInfo* cie = cie_info(section, eh_frame, fde.CIE_pointer);
  if (!cie) return std::nullopt;
  const auto* section_start = static_cast<const uint8_t*>(section.data->d_buf);
  if (!fde.start || fde.end < fde.start) return std::nullopt;
  ByteReader r(Bytes(fde.start, static_cast<size_t>(fde.end - fde.start)));
  const PointerBase base{section.vaddr + static_cast<uint64_t>(fde.start - section_start), 0};
  auto lo = read_encoded_pointer(r, cie->fde_encoding, base);
  auto length = read_encoded_pointer(r, cie->fde_encoding & 0x0f, base);
  if (!lo || !length) return std::nullopt;
  uint64_t hi = 0;
  if (__builtin_add_overflow(*lo, *length, &hi)) return std::nullopt;
  std::optional<uint64_t> augmentation = cie->fde_augmentation_size;
  if (cie->has_z) augmentation = read_uleb128(r);
  if (!augmentation || !r.skip(static_cast<size_t>(std::min<uint64_t>(*augmentation, SIZE_MAX)))) return std::nullopt;
  auto instructions = r.bytes(r.remaining());
  return FdeRange{*lo, hi, fde.CIE_pointer, *instructions};
}

const CfiTableBuilder::CieInfo* CfiTableBuilder::cie_info(const SectionRef& section, bool eh_frame, Dwarf_Off cie_offset) {
  auto [it, inserted] = cies_.try_emplace({eh_frame, cie_offset});
  if (inserted) it->second = read_cie(section, eh_frame, cie_offset);
  return it->second ? &*it->second : nullptr;
}

// The CIE at `cie_offset`: the FDE pointer encoding is the 'R' entry of its
// 'z' augmentation data (LSB 5.0 §10.5.1.1), absptr when it has none.
std::optional<CfiTableBuilder::CieInfo> CfiTableBuilder::read_cie(const SectionRef& section, bool eh_frame,
                                                                  Dwarf_Off cie_offset) const {
  Dwarf_CFI_Entry entry;
  Dwarf_Off next = 0;
  if (dwarf_next_cfi(ident_, section.data, eh_frame, cie_offset, &next, &entry) != 0 || !dwarf_cfi_cie_p(&entry) ||
      !entry.cie.augmentation)
    return std::nullopt;
  CieInfo cie;
  const std::string_view aug = entry.cie.augmentation;
  cie.has_z = !aug.empty() && aug[0] == 'z';
  cie.fde_augmentation_size = entry.cie.fde_augmentation_data_size;
  cie.signal = aug.find('S') != std::string_view::npos;
  cie.ra_column = entry.cie.return_address_register;
  if (eh_frame && !aug.empty()) {
    if (!cie.has_z || !entry.cie.augmentation_data) return std::nullopt;
    ByteReader r(Bytes(entry.cie.augmentation_data, entry.cie.augmentation_data_size));
    for (char c : aug.substr(1)) {
      bool ok = true;
      if (c == 'R') {
        ok = r.read_into(cie.fde_encoding);
      } else if (c == 'L') {
        ok = r.skip(1);
      } else if (c == 'P') {
        // The personality pointer: skip its encoded value (only its format matters).
        uint8_t personality = 0;
        ok = r.read_into(personality) && read_encoded_pointer(r, personality & 0x0f, {}).has_value();
      } else if (c != 'S' && c != 'B' && c != 'G') {
        ok = false;  // an unknown letter: the data after it cannot be located
      }
      if (!ok) return std::nullopt;
    }
  }
  const auto* section_start = static_cast<const uint8_t*>(section.data->d_buf);
  cie.program.code_alignment = entry.cie.code_alignment_factor;
  cie.program.data_alignment = entry.cie.data_alignment_factor;
  cie.program.fde_encoding = cie.fde_encoding;
  cie.program.section_vaddr = section.vaddr;
  cie.program.section_start = section_start;
  if (entry.cie.initial_instructions && entry.cie.initial_instructions_end >= entry.cie.initial_instructions)
    cie.program.initial_instructions =
        Bytes(entry.cie.initial_instructions,
              static_cast<size_t>(entry.cie.initial_instructions_end - entry.cie.initial_instructions));
  cie.initial = cie_initial_state(cie.program);
  return cie;
}

// Rows of one FDE, its program interpreted once from start to end
// (cfa_program.h).
void CfiTableBuilder::compile_fde(const SectionRef& section, bool eh_frame, const FdeRange& range) {
  const CieInfo* cie = cie_info(section, eh_frame, range.cie_offset);
  if (!cie || !cie->initial) {
    ++stats_.skipped_fdes;
    return;
  }
  const uint8_t source = eh_frame ? kEhFrame : kDebugFrame;
  bool any = false;
  const bool complete = run_cfa_program(cie->program, *cie->initial, range.instructions, range.lo, range.hi,
                                        [&](uint64_t start, uint64_t end, const CfaState& state) {
                                          ++stats_.interpreted;
                                          if (auto rule = convert_row(InterpretedRow{state}, cie->ra_column, cie->signal)) {
                                            rows_.push_back({start, end, intern(*rule), source});
                                            any = true;
                                          } else {
                                            ++stats_.skipped_rows;
                                          }
                                        });
  if (!complete) ++stats_.skipped_fdes;
  if (any) ++stats_.fdes;
}

// Rows of one FDE the way libdw gives them: it interprets the CFA program up
// to `addr` and reports the row holding it as [start, end); the next row
// starts at `end`. Quadratic in the rows of an FDE: the reference for tests.
void CfiTableBuilder::compile_fde_per_row(Dwarf_CFI* cfi, FdeRange range, Source source) {
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
    if (auto rule = convert_row(LibdwRow{frame.get()}, static_cast<uint64_t>(ra_column), signal)) {
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

std::vector<CfiTable::Row> CfiTable::rows() const {
  std::vector<Row> out;
  for (size_t i = 0; i + 1 < starts_.size(); ++i)
    if (rule_index_[i] != kNoRule) out.push_back(Row{starts_[i], starts_[i + 1], &rules_[rule_index_[i]]});
  return out;
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
