#include "unwind/libunwind_unwinder.h"

#include <libunwind.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <optional>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "binary/cfi_table.h"
#include "common/byte_reader.h"
#include "unwind/walk_guards.h"

// Exported by libunwind-x86_64 (what libunwind-generic is on x86-64) but not
// declared by its public headers; perf declares it the same way.
extern "C" int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip, unw_dyn_info_t* di,
                                                   unw_proc_info_t* pi, int need_unwind_info, void* arg);

namespace swprof {
namespace {

// ---- .eh_frame_hdr ---------------------------------------------------------
//
// Layout (LSB Core 5.0, "Exception Frame Header"):
//
//   u8 version (= 1) | u8 eh_frame_ptr_enc | u8 fde_count_enc | u8 table_enc
//   eh_frame_ptr     (eh_frame_ptr_enc)
//   fde_count        (fde_count_enc)
//   table[fde_count] { sdata4 initial_location; sdata4 fde_address; }
//
// libunwind's remote binary search reads the table itself through access_mem
// and only understands table_enc == DW_EH_PE_datarel | DW_EH_PE_sdata4, with
// entries relative to the start of .eh_frame_hdr (the "segbase").

constexpr uint8_t kPeDatarelSdata4 = 0x3b;
constexpr size_t kTableEntrySize = 8;

// Where a binary's .eh_frame_hdr search table is, in ELF virtual addresses.
struct EhFrameIndex {
  uint64_t hdr_vaddr = 0;
  uint64_t table_vaddr = 0;
  uint64_t fde_count = 0;
};

std::optional<EhFrameIndex> find_eh_frame_index(const ElfBinary& binary) {
  auto hdr = binary.section(".eh_frame_hdr");
  if (!hdr || hdr->addr == 0) return std::nullopt;
  auto table = cfi_detail::read_eh_frame_hdr_table(hdr->data, hdr->addr);
  // libunwind's remote table format wants (datarel, sdata4) pairs.
  if (!table || table->encoding != kPeDatarelSdata4 || table->fde_count == 0 ||
      (hdr->data.size() - table->offset) / kTableEntrySize < table->fde_count)
    return std::nullopt;
  return EhFrameIndex{hdr->addr, table->vaddr, table->fde_count};
}

// The parsed header of each binary, found once. A weak_ptr tells a binary
// that is still alive from a new one allocated at the same address.
class EhFrameIndexCache {
 public:
  const EhFrameIndex* get(const std::shared_ptr<const ElfBinary>& binary) {
    Entry& e = by_binary_[binary.get()];
    if (e.binary.lock() != binary) {
      e.binary = binary;
      e.index = find_eh_frame_index(*binary);
    }
    return e.index ? &*e.index : nullptr;
  }

 private:
  struct Entry {
    std::weak_ptr<const ElfBinary> binary;
    std::optional<EhFrameIndex> index;
  };
  std::unordered_map<const ElfBinary*, Entry> by_binary_;
};

// ---- accessors -------------------------------------------------------------

// What the accessors see during one unwind() call (libunwind's `arg`).
struct WalkContext {
  const Registers& regs;
  const Memory& stack;
  const ProcessMaps& maps;
  EhFrameIndexCache& indexes;
  // The mapping find_proc_info last looked unwind info up in.
  const Mapping* unwind_info_mapping = nullptr;
  bool stack_read_failed = false;  // a read at or above sp missed the copy and every binary
};

WalkContext& context(void* arg) { return *static_cast<WalkContext*>(arg); }

// One word of a mapped binary's file image; bytes past the end of its
// segment read as zero (libunwind reads whole aligned words, which may run
// past the last bytes of a section).
bool read_binary_word(const Mapping* m, uint64_t addr, unw_word_t& out) {
  if (!m || !m->binary) return false;
  Bytes b = m->binary->code_at(m->to_vaddr(addr), sizeof out);
  if (b.empty()) return false;
  out = 0;
  std::memcpy(&out, b.data(), b.size());
  return true;
}

// The word at addr in whichever mapped binary holds it. `maps` has only the
// executable mappings, but a binary's other segments (.eh_frame,
// .eh_frame_hdr, .rodata) are mapped right next to them, at the same bias:
// the binary just below or just above addr is the only candidate.
bool read_nearby_binary_word(const ProcessMaps& maps, uint64_t addr, unw_word_t& out) {
  const std::vector<Mapping>& all = maps.mappings();
  auto above = std::upper_bound(all.begin(), all.end(), addr, [](uint64_t a, const Mapping& m) { return a < m.start; });
  // find() gives a mapping with its binary (opened on first use).
  if (above != all.begin() && read_binary_word(maps.find(std::prev(above)->start), addr, out)) return true;
  return above != all.end() && read_binary_word(maps.find(above->start), addr, out);
}

int access_mem(unw_addr_space_t, unw_word_t addr, unw_word_t* val, int write, void* arg) {
  WalkContext& ctx = context(arg);
  if (write) return -UNW_EINVAL;
  if (ctx.stack.read(addr, val, sizeof *val)) return 0;
  // Most other reads are of the tables find_proc_info just looked up.
  if (read_binary_word(ctx.unwind_info_mapping, addr, *val)) return 0;
  // Rules served from libunwind's cache still read DWARF expressions from
  // .eh_frame, of whatever binary they came from.
  if (read_nearby_binary_word(ctx.maps, addr, *val)) return 0;
  // The stack grows down from sp: a miss above it is past the copied stack.
  if (addr >= ctx.regs.sp()) ctx.stack_read_failed = true;
  return -UNW_EINVAL;
}

int access_reg(unw_addr_space_t, unw_regnum_t reg, unw_word_t* val, int write, void* arg) {
  const WalkContext& ctx = context(arg);
  if (write) return -UNW_EINVAL;
  // libunwind's UNW_X86_64_* numbering is the DWARF numbering of Registers.
  if (reg < 0 || reg >= kRegCount || !ctx.regs.has(reg)) return -UNW_EBADREG;
  *val = ctx.regs.get(reg);
  return 0;
}

int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t* pi, int need_unwind_info, void* arg) {
  WalkContext& ctx = context(arg);
  const Mapping* m = ctx.maps.find(ip);
  if (!m || !m->binary) return -UNW_ENOINFO;
  const EhFrameIndex* index = ctx.indexes.get(m->binary);
  if (!index) return -UNW_ENOINFO;
  unw_dyn_info_t di;
  std::memset(&di, 0, sizeof di);
  di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
  di.start_ip = m->start;
  di.end_ip = m->end;
  di.gp = 0;  // read as a .debug_frame descriptor when non-zero
  di.u.rti.segbase = m->bias + index->hdr_vaddr;
  di.u.rti.table_data = m->bias + index->table_vaddr;
  di.u.rti.table_len = index->fde_count * kTableEntrySize / sizeof(unw_word_t);
  ctx.unwind_info_mapping = m;
  return _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
}

// dwarf_search_unwind_table hands out UNW_INFO_FORMAT_TABLE info that
// libunwind allocates from its own pool and releases itself (Gparser.c
// put_unwind_info); freeing it here would free it twice. perf does nothing
// here either.
void put_unwind_info(unw_addr_space_t, unw_proc_info_t*, void*) {}

int get_dyn_info_list_addr(unw_addr_space_t, unw_word_t*, void*) { return -UNW_ENOINFO; }

int access_fpreg(unw_addr_space_t, unw_regnum_t, unw_fpreg_t*, int, void*) { return -UNW_EINVAL; }

int resume(unw_addr_space_t, unw_cursor_t*, void*) { return -UNW_EINVAL; }

int get_proc_name(unw_addr_space_t, unw_word_t, char*, size_t, unw_word_t*, void*) { return -UNW_EINVAL; }

unw_accessors_t make_accessors() {
  unw_accessors_t a;
  std::memset(&a, 0, sizeof a);
  a.find_proc_info = find_proc_info;
  a.put_unwind_info = put_unwind_info;
  a.get_dyn_info_list_addr = get_dyn_info_list_addr;
  a.access_mem = access_mem;
  a.access_reg = access_reg;
  a.access_fpreg = access_fpreg;
  a.resume = resume;
  a.get_proc_name = get_proc_name;
  return a;
}

struct AddressSpaceDeleter {
  void operator()(unw_addr_space_t as) const { unw_destroy_addr_space(as); }
};
using AddressSpacePtr = std::unique_ptr<std::remove_pointer_t<unw_addr_space_t>, AddressSpaceDeleter>;

// Why unw_step failed at the frame whose unwind info is looked up at lookup_pc.
WalkEnd failure_reason(const WalkContext& ctx, uint64_t lookup_pc) {
  if (ctx.stack_read_failed) return WalkEnd::kStackExhausted;
  return ctx.maps.find(lookup_pc) ? WalkEnd::kNoUnwindInfo : WalkEnd::kUnmappedPc;
}

}  // namespace

struct LibunwindUnwinder::State {
  AddressSpacePtr as;
  EhFrameIndexCache indexes;
  // The address space libunwind's rule cache was filled from. Its cache is
  // keyed by runtime pc only, so it must be flushed when the maps change:
  // two processes may run different code at the same address (non-PIE
  // executables all load at 0x400000).
  uint64_t cached_maps = 0;  // ProcessMaps::id()

  void flush_if_maps_changed(const ProcessMaps& maps) {
    if (maps.id() == cached_maps) return;
    unw_flush_cache(as.get(), 0, 0);
    cached_maps = maps.id();
  }
};

LibunwindUnwinder::LibunwindUnwinder() : state_(std::make_unique<State>()) {
  unw_accessors_t accessors = make_accessors();
  state_->as.reset(unw_create_addr_space(&accessors, 0));
  if (!state_->as) throw std::bad_alloc();
  // Caching policy. libunwind caches the register-state rules of each pc it
  // has stepped through; without the cache (UNW_CACHE_NONE) every step
  // re-parses the FDE and CIE word by word through access_mem, about 5x
  // slower. UNW_CACHE_GLOBAL keeps the cache in this address space, isolated
  // from every other instance, at the price of a lock per step whose two
  // sigprocmask calls are most of the remaining time. UNW_CACHE_PER_THREAD
  // would skip the lock but share one cache between every remote address
  // space of the thread, keyed by pc alone; Debian's libunwind 1.6 is built
  // without it anyway and silently turns it into UNW_CACHE_GLOBAL.
  unw_set_caching_policy(state_->as.get(), UNW_CACHE_GLOBAL);
}

LibunwindUnwinder::~LibunwindUnwinder() = default;

WalkResult LibunwindUnwinder::unwind(const Registers& regs, const Memory& stack, const ProcessMaps& maps,
                                     size_t max_depth) {
  WalkResult result;
  if (!regs.has(kRip) || !regs.has(kRsp)) {
    result.end = WalkEnd::kNoRegisters;
    return result;
  }
  result.frames.push_back({regs.pc(), regs.sp(), StepperKind::kSample, kFrameExactPc});
  if (sampled_inside_execve(regs.pc(), regs.sp(), stack, maps.find(regs.pc()))) {  // as Walker::walk
    result.end = WalkEnd::kNoMappingsYet;
    return result;
  }
  state_->flush_if_maps_changed(maps);

  WalkContext ctx{regs, stack, maps, state_->indexes};
  unw_cursor_t cursor;
  if (unw_init_remote(&cursor, state_->as.get(), &ctx) < 0) {
    result.end = WalkEnd::kNoUnwindInfo;
    return result;
  }
  bool exact = true;
  for (;;) {
    if (result.frames.size() >= max_depth) {
      result.end = WalkEnd::kMaxDepth;
      return result;
    }
    const uint64_t lookup_pc = exact ? result.frames.back().pc : result.frames.back().pc - 1;
    ctx.stack_read_failed = false;
    const int stepped = unw_step(&cursor);
    if (stepped == 0) {
      result.end = WalkEnd::kBottom;
      return result;
    }
    if (stepped < 0) {
      result.end = failure_reason(ctx, lookup_pc);
      return result;
    }
    unw_word_t pc = 0, sp = 0;
    unw_get_reg(&cursor, UNW_REG_IP, &pc);
    unw_get_reg(&cursor, UNW_REG_SP, &sp);
    // After a step out of a signal trampoline the cursor still reports the
    // trampoline as a signal frame; the new frame is the interrupted context.
    const bool signal = unw_is_signal_frame(&cursor) > 0;
    if (!in_executable_mapping(maps, signal ? pc : pc - 1)) {
      // Same guard as the Walker: a return address outside code is dropped.
      result.end = WalkEnd::kUnmappedPc;
      return result;
    }
    exact = signal;
    result.frames.push_back({pc, sp, StepperKind::kLibunwind,
                             static_cast<uint8_t>(signal ? (kFrameSignal | kFrameExactPc) : 0)});
  }
}

}  // namespace swprof
