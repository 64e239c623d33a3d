#include "profile/address_counts.h"

#include <algorithm>
#include <tuple>

#include "common/hex.h"
#include "profile/stack_builder.h"

namespace swprof {
namespace {

// The mapping the symbolizer names `lookup` from: inside execve, the old
// program's pc, in the maps execve replaced.
const Mapping* mapping_of(const ProcessMaps* maps, uint64_t lookup) {
  if (!maps) return nullptr;
  const Mapping* m = maps->find(lookup);
  if (!m && maps->before_exec()) m = maps->before_exec()->find(lookup);
  return m;
}

uint64_t stack_hash(uint32_t node, std::span<const uint32_t> locations) {
  uint64_t h = mix64(node + 0x9e3779b97f4a7c15ull);
  for (uint32_t l : locations) h = mix64(h ^ (l + 0x632be59bd9b4e019ull));
  return h;
}

}  // namespace

std::vector<uint32_t> AddressCounts::locations_of(uint32_t frame) const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < locations_.size(); ++i)
    if (locations_[i].function() == frame) out.push_back(i);
  std::sort(out.begin(), out.end(), [&](uint32_t a, uint32_t b) {
    return std::tie(locations_[a].mapping, locations_[a].address) < std::tie(locations_[b].mapping, locations_[b].address);
  });
  return out;
}

AddressCounter::AddressCounter(CallTree& tree, AddressCounts& counts, AddressDetail detail)
    : out_(counts), frames_(tree) {
  out_.detail_ = detail;
}

void AddressCounter::add(const PipelineSample& sample, uint32_t node, uint64_t weight) {
  collect(sample, out_.detail_ == AddressDetail::kStacks ? SIZE_MAX : 1);
  CodeLocation& leaf = out_.locations_[current_.front()];
  ++leaf.self;
  leaf.self_weight += weight;
  if (out_.detail_ == AddressDetail::kStacks) add_stack(node, weight);
}

// The sample's locations, leaf first, at most `limit`, in the order of the
// frames StackBuilder makes (reversed): "[preempted]", the kernel frames,
// the user frames (inside execve: the old program's one, then "[in
// execve]"); "[unknown]" for a sample without any.
void AddressCounter::collect(const PipelineSample& s, size_t limit) {
  current_.clear();
  const auto room = [&] { return current_.size() < limit; };
  if (s.off_cpu && s.off_cpu->preempted) current_.push_back(synthetic(preempted_, kPreemptedFrame, "[kernel]", kCctKernel));
  for (size_t i = 0; i < s.kernel_symbols.size() && room(); ++i) current_.push_back(kernel_location(s, i));
  if (s.unwound.walk.end == WalkEnd::kNoMappingsYet) {
    const auto& user = s.user_symbols;
    if (room() && !user.empty() && !user[0]->frames.back().function.empty()) current_.push_back(user_location(s, 0));
    if (room()) current_.push_back(synthetic(in_execve_, kInExecveFrame, kExecModule, 0));
  } else {
    for (size_t i = 0; i < s.user_symbols.size() && room(); ++i) current_.push_back(user_location(s, i));
  }
  if (current_.empty()) current_.push_back(synthetic(unknown_, "[unknown]", "[unknown]", 0));
}

uint32_t AddressCounter::user_location(const PipelineSample& s, size_t i) {
  const Frame& f = s.unwound.walk.frames[i];
  const SymbolizedAddress& where = *s.user_symbols[i];
  const uint8_t flags = (f.flags & kFrameGuess) ? kCctGuess : 0;
  const uint32_t known = by_address_.find(address_key(where, flags));
  if (known != FlatIndex<uint64_t>::kAbsent) return known;
  const uint64_t lookup = f.lookup_pc();
  const Mapping* m = mapping_of(s.unwound.maps.get(), lookup);
  if (m && m->binary) return location_of(where, flags, m, m->to_vaddr(lookup));
  return location_of(where, flags, nullptr, lookup);
}

uint32_t AddressCounter::kernel_location(const PipelineSample& s, size_t i) {
  const SymbolizedAddress& where = *s.kernel_symbols[i];
  const uint32_t known = by_address_.find(address_key(where, kCctKernel));
  if (known != FlatIndex<uint64_t>::kAbsent) return known;
  return location_of(where, kCctKernel, nullptr, s.unwound.kernel_ips[i]);
}

uint32_t AddressCounter::synthetic(std::optional<uint32_t>& cached, const char* function, const char* module,
                                   uint8_t flags) {
  if (cached) return *cached;
  CodeLocation loc;
  loc.lines.push_back(CodeLine{frames_.named(function, module, flags), 0, 0});
  cached = static_cast<uint32_t>(out_.locations_.size());
  out_.locations_.push_back(std::move(loc));
  return *cached;
}

uint32_t AddressCounter::location_of(const SymbolizedAddress& where, uint8_t flags, const Mapping* mapping,
                                     uint64_t address) {
  CodeLocation loc;
  if (mapping) loc.mapping = mapping_index(*mapping);
  loc.address = address;
  // The frames, outermost first; where.frames and the lines innermost first.
  const std::span<const uint32_t> frames = frames_.frames(where, flags);
  for (size_t i = 0; i < where.frames.size(); ++i) {
    const SourceFrame& f = where.frames[i];
    loc.lines.push_back(CodeLine{frames[frames.size() - 1 - i], file_index(f.file), f.line});
  }
  const uint32_t id = static_cast<uint32_t>(out_.locations_.size());
  out_.locations_.push_back(std::move(loc));
  by_address_.assign(address_key(where, flags), id);
  return id;
}

uint32_t AddressCounter::mapping_index(const Mapping& m) {
  const uint64_t start = m.to_vaddr(m.start), limit = m.to_vaddr(m.end);
  const MappingKey key{m.binary.get(), start, limit, m.file_offset};
  const auto [it, added] = mappings_.try_emplace(key, static_cast<uint32_t>(out_.mappings_.size()));
  if (added) out_.mappings_.push_back(CodeMapping{m.path, to_hex(m.binary->build_id()), start, limit, m.file_offset, m.binary});
  return it->second;
}

uint32_t AddressCounter::file_index(const std::string& file) {
  if (file.empty()) return 0;
  const auto [it, added] = files_.try_emplace(file, static_cast<uint32_t>(out_.files_.size()));
  if (added) out_.files_.push_back(file);
  return it->second;
}

// The stack in current_ under `node`: found by its hash (on a collision
// with another stack, by the hash of that hash, and so on), or added.
void AddressCounter::add_stack(uint32_t node, uint64_t weight) {
  const std::span<const uint32_t> locations(current_);
  for (uint64_t h = stack_hash(node, locations);; h = mix64(h + 1)) {
    const auto [at, added] = by_stack_.try_emplace(h, static_cast<uint32_t>(out_.stacks_.size()));
    if (added) {
      out_.stacks_.push_back(AddressStack{node, static_cast<uint32_t>(out_.stack_locations_.size()),
                                         static_cast<uint32_t>(locations.size()), 0, 0});
      out_.stack_locations_.insert(out_.stack_locations_.end(), locations.begin(), locations.end());
    }
    AddressStack& s = out_.stacks_[at];
    const std::span<const uint32_t> stored = out_.stack_locations(s);
    if (s.node != node || !std::equal(stored.begin(), stored.end(), locations.begin(), locations.end())) continue;
    ++s.samples;
    s.weight += weight;
    return;
  }
}

}  // namespace swprof
