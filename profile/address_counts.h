#pragma once
// Sample counts per code address, kept beside the calling-context tree when a
// view asks for them (ProfileOptions::addresses): the tree aggregates by
// function and never keeps an address, so the views that show where inside
// a function the time goes (`swprof annotate`, pprof's -list, -disasm and
// -lines) read them here.
//
// A location is one distinct symbolized address of the samples: an
// instruction of a binary, named by its ELF virtual address (the load bias
// taken away, so the same instruction has the same address in every process
// and every run), or a kernel or JIT address, or one of the profile's
// synthetic frames. Its lines are the functions at that address, innermost
// first, each a frame of the profile's CallTree with the source line it is
// at there (the inlined code's own line, then the line of each call it was
// inlined at).
//
//   AddressDetail::kLeaves  each sample's leaf location: self counts per
//                           address (annotate)
//   AddressDetail::kStacks  that, and each sample's stack of locations, leaf
//                           first, under the tree node the sample went to
//                           (pprof's samples)
//
// Counting a sample costs one hash probe per location it has (a leaf, or
// every frame); the mapping holding an address is looked up once per
// distinct address.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "binary/elf_binary.h"
#include "common/flat_index.h"
#include "profile/call_tree.h"
#include "profile/frame_interner.h"
#include "profile/pipeline.h"
#include "unwind/address_space.h"

namespace swprof {

enum class AddressDetail : uint8_t {
  kNone,    // no per-address counts (every report that shows functions only)
  kLeaves,  // self samples per leaf address
  kStacks,  // and every sample's stack of addresses
};

// One executable mapping of a binary, placed where the binary's program
// headers put it: [start, limit) are ELF virtual addresses, start at file
// offset `file_offset`. Two processes that map a file alike share one.
struct CodeMapping {
  std::string path;      // the mapped file as recorded ("[vdso]" for the vDSO)
  std::string build_id;  // hex; empty when the binary has none
  uint64_t start = 0, limit = 0;
  uint64_t file_offset = 0;
  // The file the unwinder and the symbolizer read (from disk, the archive or
  // an image the recording carries): where a view reads the code.
  std::shared_ptr<const ElfBinary> binary;
};

// A function at a location, and the source line it is at there.
struct CodeLine {
  uint32_t frame = 0;  // of the profile's CallTree
  uint32_t file = 0;   // AddressCounts::file(): 0 when the line has no file
  uint32_t line = 0;   // 0 when unknown
};

struct CodeLocation {
  static constexpr uint32_t kNoMapping = UINT32_MAX;
  uint32_t mapping = kNoMapping;  // AddressCounts::mappings(); kNoMapping outside binaries
  // In a mapping: the ELF virtual address of the instruction (a caller's:
  // of the last byte of its call, the return address less one). Kernel and
  // JIT code: the address itself. Synthetic frames: 0.
  uint64_t address = 0;
  std::vector<CodeLine> lines;  // innermost first; the last is the real function; never empty
  uint64_t self = 0;            // samples whose leaf is here
  uint64_t self_weight = 0;

  uint32_t function() const { return lines.back().frame; }  // the real function's frame
};

// Samples of one stack of locations (AddressDetail::kStacks).
struct AddressStack {
  uint32_t node = 0;  // the CallTree node the samples were added to
  uint32_t begin = 0, count = 0;  // AddressCounts::stack_locations()[begin, begin + count): leaf first
  uint64_t samples = 0;
  uint64_t weight = 0;
};

class AddressCounts {
 public:
  AddressDetail detail() const { return detail_; }
  const std::vector<CodeMapping>& mappings() const { return mappings_; }
  const std::vector<CodeLocation>& locations() const { return locations_; }
  const std::vector<AddressStack>& stacks() const { return stacks_; }
  std::span<const uint32_t> stack_locations(const AddressStack& s) const {
    return {stack_locations_.data() + s.begin, s.count};
  }
  const std::string& file(uint32_t index) const { return files_[index]; }
  // The locations whose real function is `frame` (a CallTree frame id),
  // by address.
  std::vector<uint32_t> locations_of(uint32_t frame) const;

 private:
  friend class AddressCounter;
  AddressDetail detail_ = AddressDetail::kNone;
  std::vector<CodeMapping> mappings_;
  std::vector<CodeLocation> locations_;
  std::vector<AddressStack> stacks_;
  std::vector<uint32_t> stack_locations_;
  std::vector<std::string> files_ = {""};
};

// Fills an AddressCounts from the pipeline's samples, beside the sink that
// builds `tree` (whose frames the lines name: the same frames the sink's
// StackBuilder makes for those addresses).
class AddressCounter {
 public:
  AddressCounter(CallTree& tree, AddressCounts& counts, AddressDetail detail);

  // Counts a kept sample of weight `weight` that the tree took at `node`.
  void add(const PipelineSample& sample, uint32_t node, uint64_t weight);

 private:
  void collect(const PipelineSample& s, size_t limit);
  uint32_t user_location(const PipelineSample& s, size_t i);
  uint32_t kernel_location(const PipelineSample& s, size_t i);
  uint32_t synthetic(std::optional<uint32_t>& cached, const char* function, const char* module, uint8_t flags);
  uint32_t location_of(const SymbolizedAddress& where, uint8_t flags, const Mapping* mapping, uint64_t address);
  uint32_t mapping_index(const Mapping& m);
  uint32_t file_index(const std::string& file);
  void add_stack(uint32_t node, uint64_t weight);

  // A mapping's binary and placement: ELF start and limit, file offset.
  using MappingKey = std::tuple<const ElfBinary*, uint64_t, uint64_t, uint64_t>;
  struct Identity {  // a stack's hash is mixed already
    uint64_t operator()(uint64_t h) const { return h; }
  };

  AddressCounts& out_;
  FrameInterner frames_;
  FlatIndex<uint64_t> by_address_;  // SymbolizedAddress* | flags -> location
  std::map<MappingKey, uint32_t> mappings_;
  std::unordered_map<std::string, uint32_t> files_;
  FlatIndex<uint64_t, Identity> by_stack_;  // a stack's hash (rehashed on a collision) -> stacks_
  std::optional<uint32_t> unknown_, in_execve_, preempted_;
  std::vector<uint32_t> current_;  // the sample's locations, leaf first
};

}  // namespace swprof
