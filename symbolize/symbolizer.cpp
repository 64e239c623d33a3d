#include "symbolize/symbolizer.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <deque>
#include <future>
#include <optional>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

#include "binary/function_bounds.h"
#include "common/flat_index.h"
#include "common/regular_file.h"
#include "symbolize/debug_info.h"
#include "symbolize/demangle.h"
#include "symbolize/kernel_symbols_loader.h"
#include "symbolize/perf_map.h"

namespace swprof {
namespace {

// A symbolized address is identified by who owns it (a binary, or a
// process's mapping) and the address.
constexpr uint64_t kProcessOwner = uint64_t{1} << 63;  // marks a pid as owner, never a pointer

// A sane bound for a file that is text: a JIT map of millions of functions
// (kallsyms: kMaxKallsymsBytes).
constexpr uint64_t kMaxPerfMapBytes = uint64_t{1} << 30;

struct AddressKey {
  uint64_t owner;    // ElfBinary*, or kProcessOwner | perf map generation << 32 | pid for code outside binaries
  uint64_t region;   // 0, or which (non-binary) mapping: mapping_identity()
  uint64_t addr;     // ELF vaddr of the lookup address, or the pc
  bool exact;
  bool operator==(const AddressKey&) const = default;
};

struct AddressKeyHash {
  uint64_t operator()(const AddressKey& k) const {
    uint64_t h = k.owner * 0x9e3779b97f4a7c15ull;
    h ^= (k.region + 0x632be59bd9b4e019ull) + (h << 6) + (h >> 2);
    h ^= (k.addr * 2 + k.exact) * 0xbf58476d1ce4e5b9ull + (h << 6) + (h >> 2);
    return mix64(h);
  }
};

// Symbolized addresses by key, each symbolized once. References handed out
// stay valid: a deque never moves its elements on push_back.
template <typename Key, typename Hash>
class AddressCache {
 public:
  const SymbolizedAddress* find(const Key& key) const {
    const uint32_t at = index_.find(key);
    return at == FlatIndex<Key, Hash>::kAbsent ? nullptr : &addresses_[at];
  }
  const SymbolizedAddress& add(const Key& key, SymbolizedAddress&& address) {
    index_.assign(key, static_cast<uint32_t>(addresses_.size()));
    return addresses_.emplace_back(std::move(address));
  }
  size_t size() const { return addresses_.size(); }
  void clear() {
    index_.clear();
    addresses_.clear();
  }

 private:
  FlatIndex<Key, Hash> index_;
  std::deque<SymbolizedAddress> addresses_;
};

// What a frame outside binaries is named from besides the process: the
// mapping's start, offset and path, in 64 bits. A process may map another
// file at the same place (an exec of another non-PIE program at 0x400000):
// its frames are that file's.
uint64_t mapping_identity(const Mapping& m) {
  return mix64(m.start ^ mix64(m.file_offset ^ mix64(std::hash<std::string>{}(m.path))));
}

// An unnamed function is named by its start (binary/function_bounds.h: an
// FDE's or a discovered function's in stripped code).
void name_by_start(const ElfBinary& binary, uint64_t vaddr, SourceFrame& frame) {
  const std::optional<uint64_t> start = function_start(binary, vaddr);
  if (!start) return;
  frame.start_offset = binary.file_offset_of(*start);
  if (frame.start_offset) frame.function_offset = vaddr - *start;
}

std::string module_name(const Mapping& m) {
  if (m.path.empty() || m.path.starts_with("//anon")) return "[anon]";
  const auto slash = m.path.rfind('/');
  std::string name = slash == std::string::npos ? m.path : m.path.substr(slash + 1);
  return name.empty() ? "[anon]" : name;
}

}  // namespace

// The last answers of symbolize(), one per slot picked by a hash of the
// question: the same return addresses come back sample after sample, and a
// hit here spares their mapping search, the key's hash and the probe. A
// ProcessMaps id names one set of mappings for ever, so an answer stays
// right; a slot holds the last question that fell in it.
class RecentAnswers {
 public:
  const SymbolizedAddress* find(uint64_t space, uint32_t pid, uint64_t pc, bool exact) const {
    const Slot& s = slots_[slot_of(space, pc)];
    return s.space == space && s.pc == pc && s.pid == pid && s.exact == exact ? s.where : nullptr;
  }
  void add(uint64_t space, uint32_t pid, uint64_t pc, bool exact, const SymbolizedAddress& where) {
    slots_[slot_of(space, pc)] = Slot{space, pc, pid, exact, &where};
  }
  // Every answer forgotten (a JIT map grew: an address unnamed before may
  // have a name now).
  void clear() { std::fill(slots_.begin(), slots_.end(), Slot{}); }

 private:
  static constexpr size_t kSlots = 4096;
  struct Slot {
    uint64_t space = 0;  // never a ProcessMaps id: an empty slot
    uint64_t pc = 0;
    uint32_t pid = 0;
    bool exact = false;
    const SymbolizedAddress* where = nullptr;
  };
  static size_t slot_of(uint64_t space, uint64_t pc) { return mix64(pc ^ (space << 48)) & (kSlots - 1); }
  std::vector<Slot> slots_ = std::vector<Slot>(kSlots);
};

struct Symbolizer::Impl {
  explicit Impl(SymbolizerOptions o) : options(std::move(o)) {}

  const SymbolizedAddress& in_binary(const Mapping& m, uint64_t pc, uint64_t lookup, bool exact);
  const SymbolizedAddress& outside_binaries(const Mapping* m, uint32_t pid, uint64_t pc, uint64_t lookup, bool exact);
  DebugInfo& debug_info(const std::shared_ptr<const ElfBinary>& binary);
  void prefetch(const std::shared_ptr<const ElfBinary>& binary);
  const PerfMap& perf_map(uint32_t pid);
  std::optional<std::string> recorded_perf_map(uint32_t pid) const;
  std::optional<std::string> read_perf_map(const std::string& path);
  const KernelSymbols& kernel_symbols();
  std::optional<KernelSymbols::Hit> find_kernel(uint64_t addr);
  KernelSymbolsPlaces kernel_places() const;
  KernelSymbolsLoad load_kernel_symbols(const KernelSymbolsPlaces& places) const;

  SymbolizerOptions options;
  // DebugInfo keeps its binary alive, so an ElfBinary* key is never reused.
  std::unordered_map<const ElfBinary*, std::unique_ptr<DebugInfo>> debug;
  std::vector<const DebugInfo*> debug_order;  // for warnings in the order met by lookups
  std::unordered_set<const DebugInfo*> met;  // those in debug_order
  // DebugInfo::prepare running on threads of their own (prefetch), by
  // binary; declared after `debug`, so they end before the DebugInfos go.
  std::unordered_map<const ElfBinary*, std::future<void>> preparing;
  AddressCache<AddressKey, AddressKeyHash> by_address;
  RecentAnswers recent;  // in front of by_address
  std::unordered_map<uint32_t, PerfMap> perf_maps;
  std::unordered_map<uint32_t, std::string> recorded_perf_maps;  // by pid
  std::unordered_map<uint32_t, std::string> final_perf_maps;     // by pid: applied after recorded_perf_maps
  // By pid, how many times its perf map grew: part of the key of its
  // answers outside binaries, so an address symbolized before the lines
  // that name it arrived (a recording's copy comes in steps) is symbolized
  // again after them. The older answers stay where they are (references to
  // them may be held) but are no longer found.
  std::unordered_map<uint32_t, uint32_t> perf_map_generation;
  void perf_map_grew(uint32_t pid) {
    perf_maps.erase(pid);  // parsed again with the new lines on next use
    ++perf_map_generation[pid];
    recent.clear();
  }
  std::optional<std::string> recorded_kallsyms;
  std::optional<RecordedKernel> recorded_kernel;  // of a perf.data recording
  std::optional<KernelSymbols> kernel;
  std::optional<LiveKernelSymbols> live_kernel;  // asked instead of `kernel` when set
  std::future<KernelSymbolsLoad> kernel_loading;  // kernel symbols being read, when valid()
  size_t kallsyms_reads = 0;
  AddressCache<uint64_t, Mix64Hash> kernel_cache;
  std::vector<std::string> warnings;
  // The kernel symbols' warning, kept apart: when it is given depends on
  // when their thread finishes, and warnings() keeps one order.
  std::optional<std::string> kernel_warning;
};

Symbolizer::Symbolizer(SymbolizerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Symbolizer::~Symbolizer() = default;

namespace {

// The mapping symbolize() looks `lookup` up in: inside execve, the old
// program's pc, in the maps execve replaced.
const Mapping* mapping_of(const ProcessMaps& maps, uint64_t lookup) {
  const Mapping* m = maps.find(lookup);
  if (!m && maps.before_exec()) m = maps.before_exec()->find(lookup);
  return m;
}

}  // namespace

const SymbolizedAddress& Symbolizer::symbolize(const ProcessMaps& maps, uint32_t pid, const Frame& frame) {
  const bool exact = (frame.flags & kFrameExactPc) != 0;
  if (const SymbolizedAddress* known = impl_->recent.find(maps.id(), pid, frame.pc, exact)) return *known;
  const uint64_t lookup = frame.lookup_pc();
  const Mapping* m = mapping_of(maps, lookup);
  const SymbolizedAddress& answer = m && m->binary ? impl_->in_binary(*m, frame.pc, lookup, exact)
                                                   : impl_->outside_binaries(m, pid, frame.pc, lookup, exact);
  impl_->recent.add(maps.id(), pid, frame.pc, exact, answer);
  return answer;
}

void Symbolizer::prefetch(const ProcessMaps& maps, const Frame& frame) {
  const Mapping* m = maps.find(frame.lookup_pc());
  if (m && m->binary) impl_->prefetch(m->binary);
}

bool Symbolizer::would_wait(const ProcessMaps& maps, const Frame& frame) {
  Impl& i = *impl_;
  if (i.preparing.empty()) return false;
  const Mapping* m = mapping_of(maps, frame.lookup_pc());
  if (!m || !m->binary) return false;
  const auto it = i.preparing.find(m->binary.get());
  if (it == i.preparing.end() || it->second.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
    return false;
  const DebugInfo* info = i.debug.at(m->binary.get()).get();
  if (i.met.insert(info).second) i.debug_order.push_back(info);
  return true;
}

bool Symbolizer::prefetching() const {
  for (const auto& [binary, done] : impl_->preparing)
    if (done.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return true;
  return false;
}

const SymbolizedAddress& Symbolizer::Impl::in_binary(const Mapping& m, uint64_t pc, uint64_t lookup, bool exact) {
  const uint64_t vaddr = m.to_vaddr(lookup);
  const AddressKey key{reinterpret_cast<uintptr_t>(m.binary.get()), 0, vaddr, exact};
  if (const SymbolizedAddress* known = by_address.find(key)) return *known;
  SymbolizedAddress out;
  out.frames = debug_info(m.binary).frames_at(vaddr);
  const std::string module = module_name(m);
  const uint64_t offset = pc - m.start + m.file_offset;
  for (SourceFrame& f : out.frames) {
    f.module = module;
    f.module_offset = offset;
  }
  SourceFrame& real = out.frames.back();
  if (real.function.empty()) name_by_start(*m.binary, vaddr, real);
  if (!real.function.empty() || real.start_offset) real.function_offset += pc - lookup;
  return by_address.add(key, std::move(out));
}

const SymbolizedAddress& Symbolizer::Impl::outside_binaries(const Mapping* m, uint32_t pid, uint64_t pc,
                                                            uint64_t lookup, bool exact) {
  const auto generation = perf_map_generation.find(pid);
  const uint64_t owner = kProcessOwner | uint64_t{generation == perf_map_generation.end() ? 0 : generation->second} << 32 | pid;
  const AddressKey key{owner, m ? mapping_identity(*m) : 0, pc, exact};
  if (const SymbolizedAddress* known = by_address.find(key)) return *known;
  SourceFrame f;
  if (!m || is_anonymous_path(m->path)) {
    if (auto hit = perf_map(pid).find(lookup)) {
      f.function = options.demangle ? demangle(hit->name->c_str()) : *hit->name;
      f.module = "[jit]";
      f.module_offset = pc;
      f.function_offset = pc - hit->start;
    }
  }
  if (f.module.empty()) {
    f.module = m ? module_name(*m) : "[unknown]";
    f.module_offset = m && !is_anonymous_path(m->path) ? pc - m->start + m->file_offset : pc;
  }
  SymbolizedAddress out;
  out.frames.push_back(std::move(f));
  return by_address.add(key, std::move(out));
}

DebugInfo& Symbolizer::Impl::debug_info(const std::shared_ptr<const ElfBinary>& binary) {
  auto& slot = debug[binary.get()];
  if (!slot) slot = std::make_unique<DebugInfo>(binary, options);
  if (auto it = preparing.find(binary.get()); it != preparing.end()) {
    std::future<void> done = std::move(it->second);
    preparing.erase(it);
    done.get();
  }
  if (met.insert(slot.get()).second) debug_order.push_back(slot.get());
  return *slot;
}

void Symbolizer::Impl::prefetch(const std::shared_ptr<const ElfBinary>& binary) {
  if (options.debuginfod || debug.count(binary.get())) return;
  size_t running = 0;
  for (auto& [key, done] : preparing)
    running += done.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
  if (running >= kMaxPrefetching) return;
  DebugInfo* info = debug.emplace(binary.get(), std::make_unique<DebugInfo>(binary, options)).first->second.get();
  auto& slot = preparing[binary.get()];
  try {
    slot = std::async(std::launch::async, [info, &hook = options.before_prefetch] {
      if (hook) hook();
      info->prepare();
    });
  } catch (const std::system_error&) {
    preparing.erase(binary.get());  // no thread to be had: the first lookup reads it
  }
}

// The text of a perf map, or nullopt (with a warning unless there is none).
// The map's folder (/tmp) is writable by anyone: as perf does, only a
// regular file owned by this user or root is read, and at most its size;
// it must be the file at that name itself (a link planted there would name
// a file of root's, fs.protected_symlinks=0 or not), with no second name (a
// hard link of root's file made by anyone, with fs.protected_hardlinks=0).
std::optional<std::string> Symbolizer::Impl::read_perf_map(const std::string& path) {
  auto file = open_regular_file(path, Links::kNotFinal);
  if (!file) {
    if (!file.missing()) warnings.push_back("skipped the JIT map " + path + ": " + file.reason);
    return std::nullopt;
  }
  const uid_t owner = file.value->owner;
  if (owner != 0 && owner != geteuid()) {
    warnings.push_back("skipped the JIT map " + path + ": owned by uid " + std::to_string(owner) +
                       ", not by this user or root, so anyone could have written it");
    return std::nullopt;
  }
  if (file.value->links > 1) {
    warnings.push_back("skipped the JIT map " + path + ": it has " + std::to_string(file.value->links) +
                       " names (hard links), so its owner need not be who put it there");
    return std::nullopt;
  }
  auto text = read_regular_file(*file.value, kMaxPerfMapBytes);
  if (!text) warnings.push_back("skipped the JIT map " + path + ": " + text.reason);
  return std::move(text.value);
}

void Symbolizer::add_recorded_perf_map(uint32_t pid, std::string_view lines) {
  impl_->recorded_perf_maps[pid].append(lines);
  impl_->perf_map_grew(pid);
}

void Symbolizer::add_final_perf_map(uint32_t pid, std::string_view lines) {
  impl_->final_perf_maps[pid].append(lines);
  impl_->perf_map_grew(pid);
}

// The recorded lines of pid's perf map, or nullopt when the recording kept none.
std::optional<std::string> Symbolizer::Impl::recorded_perf_map(uint32_t pid) const {
  const auto recorded = recorded_perf_maps.find(pid);
  const auto final_lines = final_perf_maps.find(pid);
  if (recorded == recorded_perf_maps.end() && final_lines == final_perf_maps.end()) return std::nullopt;
  std::string text = recorded == recorded_perf_maps.end() ? std::string() : recorded->second;
  if (final_lines != final_perf_maps.end()) text += final_lines->second;
  return text;
}

// The recording's copy of a perf map comes first: it is what the map held
// at record time (a live file of the same pid may be another process's).
const PerfMap& Symbolizer::Impl::perf_map(uint32_t pid) {
  if (auto it = perf_maps.find(pid); it != perf_maps.end()) return it->second;
  std::optional<std::string> recorded = recorded_perf_map(pid);
  const std::string path = recorded ? "the recorded perf map of process " + std::to_string(pid)
                                    : options.perf_map_dir + "/perf-" + std::to_string(pid) + ".map";
  PerfMap map;
  if (auto text = recorded ? std::move(recorded) : read_perf_map(path)) {
    map = PerfMap::parse(*text);
    if (map.malformed_lines() > 0)
      warnings.push_back(path + ": skipped " + std::to_string(map.malformed_lines()) +
                         " malformed line(s) (expected \"START SIZE NAME\" in hex)");
  }
  return perf_maps.emplace(pid, std::move(map)).first->second;
}

void Symbolizer::use_recorded_kernel_symbols(std::string_view lines) {
  impl_->recorded_kallsyms = std::string(lines);
  impl_->kernel.reset();
  impl_->kernel_cache.clear();
}

void Symbolizer::use_recorded_kernel(const RecordedKernel& kernel) {
  if (impl_->kernel || impl_->kernel_loading.valid()) return;  // too late: the symbols are chosen
  impl_->recorded_kernel = kernel;
}

void Symbolizer::prepare_kernel_symbols() {
  Impl& i = *impl_;
  if (i.kernel || i.recorded_kallsyms || i.kernel_loading.valid()) return;
  if (!i.recorded_kernel) ++i.kallsyms_reads;  // a recorded kernel's load tells whether it read it
  try {
    i.kernel_loading =
        std::async(std::launch::async, [&i, places = i.kernel_places()] { return i.load_kernel_symbols(places); });
  } catch (const std::system_error&) {
    if (!i.recorded_kernel) --i.kallsyms_reads;  // no thread to spare: kernel_symbols() reads it when needed
  }
}

bool Symbolizer::kernel_symbols_ready() const {
  const std::future<KernelSymbolsLoad>& loading = impl_->kernel_loading;
  return !loading.valid() || loading.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

// Where kernel symbols may come from (the environment read here, on the
// caller's thread).
KernelSymbolsPlaces Symbolizer::Impl::kernel_places() const {
  KernelSymbolsPlaces places;
  places.kallsyms_path = options.kallsyms_path;
  places.perf_buildid_dir = options.perf_buildid_dir.empty() ? perf_buildid_dir() : options.perf_buildid_dir;
  places.notes_path = options.kernel_notes_path;
  return places;
}

// Runs on a thread of its own when prepared; reads only `recorded_kernel`,
// which nothing changes meanwhile.
KernelSymbolsLoad Symbolizer::Impl::load_kernel_symbols(const KernelSymbolsPlaces& places) const {
  if (!recorded_kernel) return load_kallsyms(places.kallsyms_path);
  return load_recorded_kernel_symbols(*recorded_kernel, places);
}

// The warning, if any, is given here (on first use), wherever the file was read.
const KernelSymbols& Symbolizer::Impl::kernel_symbols() {
  if (kernel) return *kernel;
  if (recorded_kallsyms) {
    kernel = KernelSymbols::parse(*recorded_kallsyms);
    return *kernel;
  }
  const bool prepared = kernel_loading.valid();
  KernelSymbolsLoad load = prepared ? kernel_loading.get() : load_kernel_symbols(kernel_places());
  if (recorded_kernel || !prepared) kallsyms_reads += load.read_kallsyms;
  kernel_warning = std::move(load.warning);
  kernel = std::move(load.symbols);
  live_kernel = std::move(load.live);
  return *kernel;
}

std::optional<KernelSymbols::Hit> Symbolizer::Impl::find_kernel(uint64_t addr) {
  const KernelSymbols& table = kernel_symbols();
  return live_kernel ? live_kernel->find(addr) : table.find(addr);
}

const SymbolizedAddress& Symbolizer::symbolize_kernel(uint64_t addr) {
  if (const SymbolizedAddress* known = impl_->kernel_cache.find(addr)) return *known;
  SourceFrame f;
  f.module = "[kernel]";
  f.module_offset = addr;
  if (auto hit = impl_->find_kernel(addr)) {
    f.function = hit->name;
    f.module = hit->module;
    f.function_offset = hit->offset;
  }
  SymbolizedAddress out;
  out.frames.push_back(std::move(f));
  return impl_->kernel_cache.add(addr, std::move(out));
}

std::vector<std::string> Symbolizer::warnings() const {
  std::vector<std::string> out;
  if (impl_->kernel_warning) out.push_back(*impl_->kernel_warning);
  out.insert(out.end(), impl_->warnings.begin(), impl_->warnings.end());
  for (const DebugInfo* d : impl_->debug_order) out.insert(out.end(), d->warnings().begin(), d->warnings().end());
  return out;
}

size_t Symbolizer::kallsyms_reads() const { return impl_->kallsyms_reads; }

size_t Symbolizer::cached_addresses() const { return impl_->by_address.size() + impl_->kernel_cache.size(); }

std::string display_name(const SourceFrame& frame) {
  if (!frame.function.empty()) return frame.function;
  char buf[32];
  snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(frame.start_offset.value_or(frame.module_offset)));
  return "[unknown] " + frame.module + buf;
}

}  // namespace swprof
