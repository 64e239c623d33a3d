#pragma once
// A profile: the calling-context tree of a recording's samples, symbolized and
// filtered, with what the reports say about the run. Built in one streaming
// pass (the tree grows with distinct stacks, not with samples), or read back
// from a JSON profile written by `swprof report --format json`.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "profile/address_counts.h"
#include "profile/call_tree.h"
#include "profile/pipeline.h"
#include "profile/sample_filter.h"
#include "profile/stack_builder.h"
#include "profile/timeline.h"
#include "recording/recording_format.h"
#include "symbolize/symbolizer.h"
#include "unwind/recording_unwinder.h"

namespace swprof {

// What a profile's weights hold (--weight).
enum class WeightKind {
  kCpu,     // on-CPU samples' periods (ns for time-based events); off-CPU samples left out
  kOffCpu,  // off-CPU nanoseconds only
  kWall,    // both: on-CPU and off-CPU time
};

// "cpu", "off-cpu", "wall".
const char* weight_kind_name(WeightKind kind);
// The kind a name gives; throws Error naming the choices for another name.
WeightKind parse_weight_kind(const std::string& name);
// The names parse_weight_kind takes: "cpu", "off-cpu", "wall".
std::vector<std::string> weight_kind_names();
// The kind a recording's profile weighs: `asked`, or the recording's
// default_weight. Throws Error when the recording cannot give it (no off-CPU
// data; wall time without a time-based event).
WeightKind resolve_weight_kind(const RecordingHeader& header, std::optional<WeightKind> asked);

struct ProfileOptions {
  std::optional<WeightKind> weight;  // nullopt: the recording's default_weight
  UnwindOptions unwind;
  SymbolizerOptions symbols;
  ProfileFilter filter;
  ThreadRoots thread_roots = ThreadRoots::kNone;
  // Keep Profile::timeline (speedscope's time order); off, nothing is kept
  // per sample.
  bool timeline = false;
  // Keep Profile::addresses: self samples per leaf address (annotate), or
  // also every sample's stack of addresses (pprof). Off, a sample costs
  // nothing more than its function's node.
  AddressDetail addresses = AddressDetail::kNone;
  // Called every so often while reading (on the calling thread).
  std::function<void(const ProfileProgress&)> progress;
};

struct ProfileThread {
  uint32_t pid = 0;
  std::string comm;
  uint64_t samples = 0;  // kept after filters
};

struct Profile {
  std::string source;          // the recording or JSON file it came from
  RecordingHeader header;
  std::string weight_unit;     // "nanoseconds" for time-based events and off-CPU time, else "events"
  WeightKind weight_kind = WeightKind::kCpu;  // what the tree's weights hold
  UnwinderChoice unwinder = UnwinderChoice::kChain;
  UnwindStats unwind;          // over every sample read (before filters)
  uint64_t samples_read = 0;
  uint64_t samples_kept = 0;   // == tree.total()
  uint64_t lost = 0;
  uint64_t first_time = 0;     // monotonic ns of the first and last sample read
  uint64_t last_time = 0;
  double build_seconds = 0;
  bool reversed = false;       // stacks are leaf first (--reverse)
  std::map<uint32_t, ProfileThread> threads;  // by tid, threads with kept samples
  std::vector<std::string> warnings;          // missing binaries, damaged file, ...
  std::vector<ExecutableMapping> mapped_files;       // from a recording only (PipelineResult::mapped_files)
  std::shared_ptr<const BinaryArchive> archive;      // the recording's archive, when the pass used one
  CallTree tree;
  // Only when ProfileOptions::timeline asked for it: every kept sample, in
  // time order, its leaf a node of `tree` (so its stack runs as the tree's:
  // leaf first with --reverse, under its thread root with thread roots).
  std::vector<TimelineSample> timeline;
  // Only when ProfileOptions::addresses asked for them: the samples by code
  // address, their lines naming frames of `tree`.
  AddressCounts addresses;

  double duration_seconds() const {
    return last_time > first_time ? static_cast<double>(last_time - first_time) / 1e9 : 0.0;
  }
};

// Per distinct frame: samples where it is the leaf (self) and samples with it
// anywhere on the stack (total, once per sample), whichever way the tree runs.
std::vector<CallTree::FrameTotals> function_totals(const Profile& profile);

// The pipeline (profile/pipeline.h) with a calling-context tree as its sink.
// Throws Error for a file that is no recording or a bad filter; a damaged or
// cut file gives the samples before the damage and a warning.
Profile build_profile(const std::string& recording, const ProfileOptions& options);
// The same over a file opened already (RecordingBytes::open).
Profile build_profile(std::shared_ptr<const RecordingBytes> file, const ProfileOptions& options);

}  // namespace swprof
