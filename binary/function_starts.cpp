#include "binary/function_starts.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <chrono>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "binary/elf_binary.h"
#include "binary/fde_reader.h"
#include "binary/relocations.h"
#include "binary/x86_decoder.h"
#include "common/elf_handle.h"

namespace swprof {
namespace {

constexpr uint32_t kRelocX86_64Relative = 8;
constexpr int kMaxCallDepth = 64;  // callees parsed before their caller's fall-through
constexpr int kEntryArgInsns = 32;
constexpr size_t kMaxJumpTableEntries = 4096;
constexpr int kMaxCodeRefRounds = 16;

// The table of a non-PIE jump table's `jmp qword ptr [reg*8 + disp32]`
// (optional notrack and REX prefixes, ff /4, SIB scale 8 without base).
std::optional<uint64_t> jump_table_of(Bytes code) {
  size_t i = 0;
  while (i < code.size() && i < 3 && (code[i] == 0x3e || (code[i] & 0xf0) == 0x40)) ++i;
  if (i + 7 > code.size() || code[i] != 0xff || code[i + 1] != 0x24 || (code[i + 2] & 0xc7) != 0xc5) return std::nullopt;
  int32_t disp = 0;
  for (int b = 3; b >= 0; --b) disp = static_cast<int32_t>((static_cast<uint32_t>(disp) << 8) | code[i + 3 + b]);
  return static_cast<uint64_t>(static_cast<int64_t>(disp));
}

// Functions that never return, by name (Dyninst's SymtabCodeSource list and glibc's fatal paths).
bool named_no_return(std::string_view name) {
  if (const size_t at = name.find('@'); at != std::string_view::npos) name = name.substr(0, at);
  static constexpr std::string_view kNames[] = {
      "exit", "_exit", "_Exit", "abort", "__stack_chk_fail", "__assert_fail", "_Unwind_Resume", "longjmp",
      "siglongjmp", "__longjmp_chk", "__cxa_throw", "__cxa_rethrow", "__libc_fatal", "__fortify_fail",
      "__chk_fail", "pthread_exit", "__f90_stop", "fancy_abort", "__sys_exit",
      "_ZSt17__throw_bad_allocv", "_ZSt20__throw_length_errorPKc", "_ZSt16__throw_bad_castv",
      "_ZSt19__throw_logic_errorPKc", "_ZSt24__throw_out_of_range_fmtPKcz", "_ZSt20__throw_out_of_rangePKc",
      "_ZSt20__throw_runtime_errorPKc"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

bool callee_saved(int8_t reg) {
  return reg == kRbx || reg == kRbp || reg == kR12 || reg == kR13 || reg == kR14 || reg == kR15;
}

// Padding between functions: nop forms, int3, zero bytes. Its length, 0 when `code` starts with code.
size_t padding_length(Bytes code, const X86Insn& insn) {
  if (code.empty()) return 0;
  if (code[0] == 0x90 || code[0] == 0xcc || code[0] == 0x00) return 1;
  size_t i = 0;
  while (i < code.size() && (code[i] == 0x66 || code[i] == 0x2e)) ++i;
  if (i < code.size() && code[i] == 0x90) return i + 1;
  if (i + 1 < code.size() && code[i] == 0x0f && code[i + 1] == 0x1f && insn.size > 0) return insn.size;
  return 0;
}

// Whether offset i of `code` may start a function: 16-byte aligned, or right
// after padding, ret, ud2, hlt, or a jmp or call that does not come back
// (rel8, rel32, register). A number that only looks like an address rarely
// lands there.
bool follows_code_end(Bytes code, size_t i) {
  if (i == 0 || i % 16 == 0) return true;
  const uint8_t last = code[i - 1];
  if (last == 0xc3 || last == 0xcc || last == 0x90 || last == 0x00 || last == 0xf4) return true;
  if (i >= 2 && code[i - 2] == 0x0f && last == 0x0b) return true;                      // ud2
  if (i >= 2 && (code[i - 2] == 0xeb || (code[i - 2] == 0xff && (last & 0xf0) == 0xe0))) return true;  // jmp rel8, jmp/call reg
  return i >= 5 && (code[i - 5] == 0xe9 || code[i - 5] == 0xe8);                       // jmp/call rel32
}

}  // namespace

const char* start_source_name(size_t bit) {
  static constexpr const char* kNames[kStartSourceCount] = {"symbol", "dynsym", "fde",      "entry",     "entry-arg", "init-array",
                                                            "plt",    "call",   "tail-jump", "go",       "gap",       "pointer"};
  return bit < kStartSourceCount ? kNames[bit] : "?";
}

// One run of discovery over one binary (see function_starts.h).
class FunctionDiscovery {
 public:
  FunctionDiscovery(const ElfBinary& binary, const DiscoveryLimits& limits)
      : binary_(binary), limits_(limits), relocations_(Relocations::read(binary)) {}

  std::unique_ptr<FunctionStarts> run();

 private:
  struct Range {
    uint64_t lo, hi;
    Bytes bytes;
    size_t bit_base;
  };
  struct Function {
    uint16_t sources = 0;
    bool parsed = false, parsing = false, no_return = false;
  };
  // What came before an instruction in its block, for the tail-call rules.
  enum class Before : uint8_t { kNothing, kEntry, kEpilogue, kCall, kOther };

  const Range* range_of(uint64_t addr) const;
  size_t bit(const Range& r, uint64_t addr) const { return r.bit_base + (addr - r.lo); }
  bool is_start(uint64_t addr) const;
  bool interior(uint64_t addr) const;

  void add_ranges();
  bool seed(uint64_t addr, uint16_t source);
  void seed_symbols();
  void seed_fdes();
  void seed_fde(const FdeRange& fde);
  bool outside_fdes(uint64_t addr) const;
  void seed_fde_exits();
  void seed_entry();
  std::optional<uint64_t> entry_argument();
  std::optional<uint64_t> pointer_at(uint64_t slot) const;
  void seed_init_fini();
  void seed_plt();
  std::vector<std::pair<uint64_t, uint64_t>> data_pointers() const;
  void words_in_data(std::vector<std::pair<uint64_t, uint64_t>>& out) const;
  bool pointer_target(uint64_t p);
  void seed_data_pointers();
  void seed_pointers(const std::vector<std::pair<uint64_t, uint64_t>>& pointers);
  void note_hull(uint64_t first, uint64_t last);
  bool in_hull(uint64_t addr) const;
  void note_jump_table(uint64_t table);
  bool accept_target(uint64_t target, uint16_t source);
  X86Insn decode(const Range& r, uint64_t addr);

  void parse(uint64_t start, int depth);
  bool parse_block(uint64_t f, uint64_t a, int depth, std::vector<uint64_t>& todo, std::unordered_set<uint64_t>& seen);
  bool callee_returns(uint64_t target, int depth);
  bool is_tail_jump(uint64_t f, const X86Insn& insn, Before before, const std::unordered_set<uint64_t>& seen) const;
  void drain();
  void parse_gaps();
  std::unique_ptr<FunctionStarts> finish(double seconds);

  const ElfBinary& binary_;
  DiscoveryLimits limits_;
  Relocations relocations_;
  X86Decoder decoder_;
  std::vector<Range> ranges_;
  std::vector<bool> start_bits_, insn_bits_, interior_bits_;
  std::unordered_map<uint64_t, Function> functions_;
  std::vector<uint64_t> pending_;
  std::map<uint64_t, uint64_t> hulls_;  // a function's first address -> its last instruction's
  std::unordered_set<uint64_t> jump_table_slots_;
  std::vector<uint64_t> code_refs_;  // code addresses put in a register (lea, mov imm) by decoded code
  std::vector<std::pair<uint64_t, uint64_t>> fdes_;  // every FDE's [lo, hi), sorted
  std::vector<std::pair<uint64_t, uint64_t>> fde_cover_;  // the code FDEs cover: disjoint, sorted
  DiscoveryStats stats_;
};

const FunctionDiscovery::Range* FunctionDiscovery::range_of(uint64_t addr) const {
  for (const Range& r : ranges_)
    if (addr >= r.lo && addr < r.hi) return &r;
  return nullptr;
}

bool FunctionDiscovery::is_start(uint64_t addr) const {
  const Range* r = range_of(addr);
  return r && start_bits_[bit(*r, addr)];
}

bool FunctionDiscovery::interior(uint64_t addr) const {
  const Range* r = range_of(addr);
  return r && interior_bits_[bit(*r, addr)];
}

void FunctionDiscovery::add_ranges() {
  size_t bits = 0;
  for (const auto& [lo, hi] : binary_.executable_ranges()) {
    const Bytes bytes = binary_.code_at(lo, hi - lo, true);
    if (bytes.empty()) continue;
    ranges_.push_back({lo, lo + bytes.size(), bytes, bits});
    bits += bytes.size();
  }
  start_bits_.assign(bits, false);
  insn_bits_.assign(bits, false);
  interior_bits_.assign(bits, false);
}

bool FunctionDiscovery::seed(uint64_t addr, uint16_t source) {
  const Range* r = range_of(addr);
  if (!r) return false;
  Function& fn = functions_[addr];
  if (fn.sources == 0) {
    start_bits_[bit(*r, addr)] = true;
    pending_.push_back(addr);
  }
  fn.sources |= source;
  return true;
}

void FunctionDiscovery::seed_symbols() {
  const uint16_t source = binary_.symbols_from_symtab() ? kFromSymbol : kFromDynsym;
  for (const FunctionSymbol& f : binary_.functions()) {
    if (!seed(f.start, source)) continue;
    if (named_no_return(f.name)) functions_[f.start].no_return = true;
    if (f.size > 0) note_hull(f.start, f.start + f.size - 1);
  }
}

void FunctionDiscovery::seed_fde(const FdeRange& fde) {
  if (!seed(fde.lo, kFromFde) || fde.hi <= fde.lo) return;
  note_hull(fde.lo, fde.hi - 1);
  fdes_.emplace_back(fde.lo, fde.hi);
}

void FunctionDiscovery::seed_fdes() {
  const Bytes file = binary_.file_bytes();
  if (file.empty()) return;
  // A private handle: libelf's lazy loading is not safe from several threads.
  ElfPtr elf(elf_memory(const_cast<char*>(reinterpret_cast<const char*>(file.data())), file.size()));
  FdeReader reader(elf.get());
  if (!reader.ok()) return;
  if (auto eh_frame = find_section(elf.get(), ".eh_frame")) {
    std::vector<FdeRange> fdes = reader.eh_frame_fdes_from_hdr(*eh_frame);
    if (fdes.empty()) fdes = reader.walk_fdes(*eh_frame, true);
    for (const FdeRange& fde : fdes) seed_fde(fde);
  }
  if (auto debug_frame = find_section(elf.get(), ".debug_frame"))
    for (const FdeRange& fde : reader.walk_fdes(*debug_frame, false)) seed_fde(fde);
  std::sort(fdes_.begin(), fdes_.end());
  for (const auto& [lo, hi] : fdes_) {
    if (!fde_cover_.empty() && lo <= fde_cover_.back().second)
      fde_cover_.back().second = std::max(fde_cover_.back().second, hi);
    else
      fde_cover_.emplace_back(lo, hi);
  }
}

// Whether addr is executable code that no FDE covers.
bool FunctionDiscovery::outside_fdes(uint64_t addr) const {
  if (!range_of(addr)) return false;
  auto it = std::upper_bound(fde_cover_.begin(), fde_cover_.end(), std::make_pair(addr, ~uint64_t{0}));
  return it == fde_cover_.begin() || addr >= std::prev(it)->second;
}

// The code FDE-covered code hands to code without CFI: hand-written
// assembly (x86inc's cglobal functions) has neither symbol nor FDE and is
// reached only from compiled C, by direct calls and by `lea` of its address
// into function-pointer tables, in functions that discovery does not
// descend. A byte scan of the FDE ranges finds the candidates (call/jmp
// rel32, rip-relative lea) that land outside every FDE on no known start,
// where a function may begin (follows_code_end: x86inc aligns its functions);
// only an FDE holding one is decoded, linearly from its start (exact there:
// compiled code keeps no data inside a function), and what its instructions
// really call, jump to or take the address of becomes a start: calls and
// jumps at once, lea addresses as code references (checked as pointers).
void FunctionDiscovery::seed_fde_exits() {
  const auto lands_outside = [&](uint64_t target) { return outside_fdes(target) && !is_start(target); };
  // A byte pattern's target: only where a function may start (follows_code_end) counts.
  const auto candidate_target = [&](uint64_t target) {
    const Range* t = range_of(target);
    return t && follows_code_end(t->bytes, target - t->lo) && lands_outside(target);
  };
  for (const auto& [lo, hi] : fdes_) {
    const Range* r = range_of(lo);
    if (!r || hi > r->hi || hi <= lo) continue;
    const Bytes code = r->bytes.subspan(lo - r->lo, hi - lo);
    bool candidate = false;
    for (size_t i = 0; i + 5 <= code.size() && !candidate; ++i) {
      int32_t rel = 0;
      if (code[i] == 0xe8 || code[i] == 0xe9) {
        std::memcpy(&rel, code.data() + i + 1, sizeof rel);
        candidate = candidate_target(lo + i + 5 + static_cast<uint64_t>(static_cast<int64_t>(rel)));
      } else if ((code[i] & 0xf0) == 0x40 && i + 7 <= code.size() && code[i + 1] == 0x8d && (code[i + 2] & 0xc7) == 0x05) {
        std::memcpy(&rel, code.data() + i + 3, sizeof rel);
        candidate = candidate_target(lo + i + 7 + static_cast<uint64_t>(static_cast<int64_t>(rel)));
      }
    }
    if (!candidate) continue;
    for (uint64_t a = lo; a < hi && !stats_.budget_hit;) {
      if (stats_.instructions >= limits_.max_instructions) {
        stats_.budget_hit = true;
        break;
      }
      const X86Insn insn = decode(*r, a);
      if (insn.op == X86Op::kInvalid) {
        ++a;
        continue;
      }
      if (insn.op == X86Op::kCall && lands_outside(insn.target)) accept_target(insn.target, kFromCall);
      if ((insn.op == X86Op::kJump || insn.op == X86Op::kCondJump) && lands_outside(insn.target))
        accept_target(insn.target, kFromTailJump);
      if (insn.ref_reg >= 0 && !insn.ref_is_load && lands_outside(insn.ref)) code_refs_.push_back(insn.ref);
      a = insn.end();
    }
  }
}

// The link-time pointer a loaded image holds at `slot`: a RELATIVE/IRELATIVE
// relocation's addend, else the file's bytes; nullopt for a symbol's relocation.
std::optional<uint64_t> FunctionDiscovery::pointer_at(uint64_t slot) const {
  if (const Relocation* r = relocations_.at(slot)) {
    if (r->type == kRelocX86_64Relative || r->type == kRelocX86_64IRelative) return static_cast<uint64_t>(r->addend);
    return std::nullopt;
  }
  uint64_t value = 0;
  if (!binary_.read_code(slot, &value, sizeof value)) return std::nullopt;
  return value;
}

// main, as the entry code passes it to __libc_start_main: the last write to
// rdi before the entry code's first call.
std::optional<uint64_t> FunctionDiscovery::entry_argument() {
  const Range* r = range_of(binary_.entry());
  if (!r) return std::nullopt;
  std::optional<uint64_t> rdi;
  uint64_t at = binary_.entry();
  for (int i = 0; i < kEntryArgInsns; ++i) {
    const X86Insn insn = decode(*r, at);
    if (insn.op == X86Op::kCall || !insn.falls_through()) break;
    if (insn.ref_reg == kRdi) rdi = insn.ref_is_load ? pointer_at(insn.ref) : std::optional<uint64_t>(insn.ref);
    at = insn.end();
  }
  return rdi;
}

void FunctionDiscovery::seed_entry() {
  if (!seed(binary_.entry(), kFromEntry)) return;
  if (const std::optional<uint64_t> main = entry_argument()) seed(*main, kFromEntryArg);
}

void FunctionDiscovery::seed_init_fini() {
  for (const char* name : {".init", ".fini"})
    if (auto s = binary_.section(name)) seed(s->addr, kFromInitArray);
  if (auto dynamic = binary_.section(".dynamic")) {
    ByteReader reader(dynamic->data);
    while (reader.remaining() >= 16) {
      const auto tag = reader.read<int64_t>();
      const auto value = reader.read<uint64_t>();
      if (!tag || !value || *tag == DT_NULL) break;
      if (*tag == DT_INIT || *tag == DT_FINI) seed(*value, kFromInitArray);
    }
  }
  for (const char* name : {".preinit_array", ".init_array", ".fini_array"}) {
    auto s = binary_.section(name);
    if (!s) continue;
    for (uint64_t slot = s->addr; slot + 8 <= s->addr + s->data.size(); slot += 8)
      if (auto p = pointer_at(slot)) seed(*p, kFromInitArray);
  }
}

void FunctionDiscovery::seed_plt() {
  for (const PltEntry& e : binary_.plt_entries().entries())
    if (seed(e.start, kFromPlt) && named_no_return(e.symbol)) functions_[e.start].no_return = true;
}

void FunctionDiscovery::note_hull(uint64_t first, uint64_t last) {
  uint64_t& hull = hulls_[first];
  hull = std::max(hull, last);
}

// Strictly after a known function's first address, up to its last instruction.
bool FunctionDiscovery::in_hull(uint64_t addr) const {
  auto it = hulls_.upper_bound(addr);
  if (it == hulls_.begin()) return false;
  --it;
  return addr > it->first && addr <= it->second;
}

// The words of a non-PIE jump table: consecutive code addresses from `table`.
void FunctionDiscovery::note_jump_table(uint64_t table) {
  for (size_t i = 0; i < kMaxJumpTableEntries; ++i) {
    const uint64_t slot = table + 8 * i;
    uint64_t value = 0;
    if (!binary_.read_code(slot, &value, sizeof value) || !range_of(value)) break;
    if (!jump_table_slots_.insert(slot).second) break;
  }
}

// (code address, slot) for the aligned words of the non-executable segments'
// file images that land in code (ET_EXEC), but the GOT's: a lazy PLT slot
// holds the address of its stub's second instruction.
void FunctionDiscovery::words_in_data(std::vector<std::pair<uint64_t, uint64_t>>& out) const {
  const Bytes file = binary_.file_bytes();
  std::vector<std::pair<uint64_t, uint64_t>> got;
  for (const char* name : {".got", ".got.plt"})
    if (auto s = binary_.section(name)) got.emplace_back(s->addr, s->addr + s->data.size());
  const auto in_got = [&](uint64_t slot) {
    return std::any_of(got.begin(), got.end(), [&](const auto& g) { return slot >= g.first && slot < g.second; });
  };
  for (const LoadSegment& s : binary_.segments()) {
    if (s.exec || s.offset > file.size() || s.filesz > file.size() - s.offset) continue;
    for (uint64_t slot = (s.vaddr + 7) & ~uint64_t{7}; slot + 8 <= s.vaddr + s.filesz; slot += 8) {
      uint64_t value = 0;
      std::memcpy(&value, file.data() + s.offset + (slot - s.vaddr), sizeof value);
      if (range_of(value) && !in_got(slot)) out.emplace_back(value, slot);
    }
  }
}

// (code address, slot) held in data, sorted: words (ET_EXEC) or
// RELATIVE/IRELATIVE addends (ET_DYN, and a static binary's IRELATIVE slots).
std::vector<std::pair<uint64_t, uint64_t>> FunctionDiscovery::data_pointers() const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  const Bytes file = binary_.file_bytes();
  uint16_t type = 0;
  if (file.size() >= sizeof(Elf64_Ehdr)) std::memcpy(&type, file.data() + offsetof(Elf64_Ehdr, e_type), sizeof type);
  if (type == ET_EXEC) words_in_data(out);
  for (const auto* list : {&relocations_.dyn(), &relocations_.plt()})
    for (const Relocation& r : *list)
      if ((r.type == kRelocX86_64Relative || r.type == kRelocX86_64IRelative) &&
          range_of(static_cast<uint64_t>(r.addend)))
        out.emplace_back(static_cast<uint64_t>(r.addend), r.offset);
  std::sort(out.begin(), out.end());
  return out;
}

// Whether the code address p, held in data, passes the checks for a new start.
bool FunctionDiscovery::pointer_target(uint64_t p) {
  const Range* r = range_of(p);
  return !interior_bits_[bit(*r, p)] && !insn_bits_[bit(*r, p)] && !in_hull(p) &&
         follows_code_end(r->bytes, p - r->lo) && decode(*r, p).op != X86Op::kInvalid;
}

// Function pointers in data, lowest first, each descended before the next so
// that the hulls of the functions before it are known.
// A word of a jump table found meanwhile is not a pointer. `pointers`:
// (code address, slot) sorted; slot 0 for an address not read from data.
void FunctionDiscovery::seed_pointers(const std::vector<std::pair<uint64_t, uint64_t>>& pointers) {
  for (size_t i = 0; i < pointers.size() && !stats_.budget_hit;) {
    const uint64_t p = pointers[i].first;
    bool in_table = true;
    for (; i < pointers.size() && pointers[i].first == p; ++i) in_table &= jump_table_slots_.count(pointers[i].second) > 0;
    if (in_table) continue;
    if (is_start(p)) {
      functions_[p].sources |= kFromPointer;
    } else if (pointer_target(p)) {
      seed(p, kFromPointer);
      drain();
    } else {
      ++stats_.rejected_targets;
    }
  }
}

// Pointers in data, then the code addresses decoded code puts in registers
// (function pointers as `lea`/`mov` operands), round after round while
// descending from them finds more.
void FunctionDiscovery::seed_data_pointers() {
  seed_pointers(data_pointers());
  for (int round = 0; round < kMaxCodeRefRounds && !code_refs_.empty() && !stats_.budget_hit; ++round) {
    std::vector<std::pair<uint64_t, uint64_t>> refs;
    for (const uint64_t p : code_refs_) refs.emplace_back(p, 0);
    code_refs_.clear();
    std::sort(refs.begin(), refs.end());
    seed_pointers(refs);
  }
}

X86Insn FunctionDiscovery::decode(const Range& r, uint64_t addr) {
  ++stats_.instructions;
  return decoder_.decode(r.bytes, r.lo, addr);
}

// A call or tail-jump target found in code: a start when it passes the checks.
bool FunctionDiscovery::accept_target(uint64_t target, uint16_t source) {
  const Range* r = range_of(target);
  if (target == 0 || !r || interior_bits_[bit(*r, target)] ||
      (!start_bits_[bit(*r, target)] && decode(*r, target).op == X86Op::kInvalid)) {
    ++stats_.rejected_targets;
    return false;
  }
  return seed(target, source);
}

// Dyninst's tail-call rules (IA_x86::isTailCall) for a jump in function f.
bool FunctionDiscovery::is_tail_jump(uint64_t f, const X86Insn& insn, Before before,
                                     const std::unordered_set<uint64_t>& seen) const {
  const uint64_t t = insn.target;
  if (t == f || seen.count(t)) return false;
  if (is_start(t) || t < f || range_of(t) != range_of(f)) return true;
  if (insn.op == X86Op::kJump && before == Before::kEntry) return true;  // a thunk: the entry is one jmp
  return before == Before::kEpilogue;
}

// Whether the function at `target` may return, parsing it first if it is new.
bool FunctionDiscovery::callee_returns(uint64_t target, int depth) {
  auto it = functions_.find(target);
  if (it == functions_.end()) return true;
  if (!it->second.parsed && !it->second.parsing && depth < kMaxCallDepth) parse(target, depth + 1);
  return !functions_[target].no_return;
}

// Decodes the block of function f at `a` up to its end; queues the blocks it
// jumps to in `todo`. True when the block can return (ret, tail jump,
// indirect jump, falls into another function, or cut short).
bool FunctionDiscovery::parse_block(uint64_t f, uint64_t a, int depth, std::vector<uint64_t>& todo,
                                    std::unordered_set<uint64_t>& seen) {
  Before before = a == f ? Before::kEntry : Before::kNothing;
  while (true) {
    const Range* r = range_of(a);
    if (!r || (a != f && start_bits_[bit(*r, a)])) return true;
    if (seen.count(a)) return false;
    if (interior_bits_[bit(*r, a)]) return true;  // overlaps decoded code: cannot tell, assume it returns
    if (stats_.instructions >= limits_.max_instructions) {
      stats_.budget_hit = true;
      return true;
    }
    const X86Insn insn = decode(*r, a);
    if (insn.op == X86Op::kInvalid) return true;  // cannot tell
    seen.insert(a);
    if (insn.ref_reg >= 0 && !insn.ref_is_load && range_of(insn.ref)) code_refs_.push_back(insn.ref);
    insn_bits_[bit(*r, a)] = true;
    for (uint64_t b = a + 1; b < insn.end() && b < r->hi; ++b) interior_bits_[bit(*r, b)] = true;
    switch (insn.op) {
      case X86Op::kCall:
        if (insn.target && accept_target(insn.target, kFromCall) && !callee_returns(insn.target, depth)) return false;
        before = Before::kCall;
        break;
      case X86Op::kJump:
      case X86Op::kCondJump:
        if (is_tail_jump(f, insn, before, seen)) {
          accept_target(insn.target, kFromTailJump);
          if (insn.op == X86Op::kJump) return true;  // returns when the target does: assume it may
        } else {
          todo.push_back(insn.target);
          if (insn.op == X86Op::kJump) return false;
        }
        before = Before::kOther;
        break;
      case X86Op::kIndirectJump:
        if (const auto table = jump_table_of(r->bytes.subspan(a - r->lo))) note_jump_table(*table);
        return true;
      case X86Op::kReturn: return true;
      case X86Op::kStop: return false;
      case X86Op::kEndbr: break;  // keeps `before`: a thunk may start with endbr64
      case X86Op::kLeave: before = Before::kEpilogue; break;
      case X86Op::kPop: before = callee_saved(insn.reg) ? Before::kEpilogue : Before::kOther; break;
      case X86Op::kAddRsp: before = insn.imm > 0 && before != Before::kCall ? Before::kEpilogue : Before::kOther; break;
      default: before = Before::kOther; break;
    }
    a = insn.end();
  }
}

void FunctionDiscovery::parse(uint64_t start, int depth) {
  Function& fn = functions_[start];
  if (fn.parsed || fn.parsing) return;
  fn.parsing = true;
  std::vector<uint64_t> todo{start};
  std::unordered_set<uint64_t> seen;
  bool returns = false;
  while (!todo.empty()) {
    const uint64_t a = todo.back();
    todo.pop_back();
    returns |= parse_block(start, a, depth, todo, seen);
  }
  if (!seen.empty()) {
    const auto [first, last] = std::minmax_element(seen.begin(), seen.end());
    note_hull(*first, *last);
  }
  Function& done = functions_[start];  // references stay valid, but say which one is meant
  done.parsing = false;
  done.parsed = true;
  if (!returns) done.no_return = true;
}

void FunctionDiscovery::drain() {
  while (!pending_.empty() && !stats_.budget_hit) {
    const uint64_t f = pending_.back();
    pending_.pop_back();
    // Gap parsing needs every reachable byte marked: it parses them all.
    if (limits_.parse_fde_functions || limits_.parse_gaps || !(functions_[f].sources & kFromFde)) parse(f, 0);
  }
}

// Dyninst-style gap parsing: in each run of bytes no function reached, skip
// padding and take the first instruction as a start.
void FunctionDiscovery::parse_gaps() {
  for (size_t i = 0; i < ranges_.size() && !stats_.budget_hit; ++i) {
    const Range r = ranges_[i];
    for (uint64_t a = r.lo; a < r.hi && !stats_.budget_hit;) {
      if (stats_.instructions >= limits_.max_instructions) {
        stats_.budget_hit = true;
        break;
      }
      if (insn_bits_[bit(r, a)] || interior_bits_[bit(r, a)]) {
        ++a;
        continue;
      }
      const X86Insn insn = decode(r, a);
      const size_t pad = padding_length(r.bytes.subspan(a - r.lo), insn);
      if (pad > 0 || insn.op == X86Op::kInvalid) {
        a += std::max<size_t>(pad, 1);
        continue;
      }
      if (in_hull(a)) {  // an unreached block of a known function
        a = std::max(a + 1, std::prev(hulls_.upper_bound(a))->second);
        continue;
      }
      seed(a, kFromGap);
      drain();
      if (!insn_bits_[bit(r, a)]) ++a;  // nothing decoded there: move on
    }
  }
}

std::unique_ptr<FunctionStarts> FunctionDiscovery::run() {
  const auto t0 = std::chrono::steady_clock::now();
  add_ranges();
  if (decoder_.ok() && !ranges_.empty()) {
    seed_symbols();
    seed_fdes();
    seed_entry();
    seed_init_fini();
    seed_plt();
    if (limits_.fde_exits) seed_fde_exits();
    drain();
    if (limits_.data_pointers) seed_data_pointers();
    if (limits_.parse_gaps) parse_gaps();
  }
  return finish(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

// A start only a pointer gave that code found later decodes across was a
// number, not a function: it is dropped.
std::unique_ptr<FunctionStarts> FunctionDiscovery::finish(double seconds) {
  auto out = std::make_unique<FunctionStarts>();
  std::vector<std::pair<uint64_t, const Function*>> sorted;
  sorted.reserve(functions_.size());
  for (const auto& [start, fn] : functions_)
    if (!(fn.sources == kFromPointer && interior(start))) sorted.emplace_back(start, &fn);  // see below
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [start, fn] : sorted) {
    out->starts_.push_back(start);
    out->sources_.push_back(fn->sources);
    out->no_return_.push_back(fn->no_return);
    for (size_t b = 0; b < kStartSourceCount; ++b) stats_.by_source[b] += (fn->sources >> b) & 1;
  }
  for (const Range& r : ranges_) out->exec_ranges_.emplace_back(r.lo, r.hi);
  stats_.seconds = seconds;
  out->stats_ = stats_;
  return out;
}

std::unique_ptr<const FunctionStarts> FunctionStarts::discover(const ElfBinary& binary, const DiscoveryLimits& limits) {
  return FunctionDiscovery(binary, limits).run();
}

std::optional<DiscoveredFunction> FunctionStarts::at(uint64_t vaddr) const {
  const auto range = std::find_if(exec_ranges_.begin(), exec_ranges_.end(),
                                  [&](const auto& r) { return vaddr >= r.first && vaddr < r.second; });
  if (range == exec_ranges_.end()) return std::nullopt;
  const auto it = std::upper_bound(starts_.begin(), starts_.end(), vaddr);
  if (it == starts_.begin() || *(it - 1) < range->first) return std::nullopt;
  const size_t i = static_cast<size_t>(it - starts_.begin()) - 1;
  const uint64_t end = it != starts_.end() ? std::min(*it, range->second) : range->second;
  return DiscoveredFunction{starts_[i], end, sources_[i], no_return_[i] != 0};
}

}  // namespace swprof
