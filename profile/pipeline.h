#pragma once
// The one streaming pass over a recording that every command building on
// samples shares: read the records, keep each process's address space and
// each thread's name current, unwind the samples (in parallel, by
// RecordingUnwinder), keep the samples the filters select, symbolize their
// frames, and hand each kept sample to a sink, in recording order.
//
//   RecordSource    -> RecordingUnwinder -> SampleFilter -> Symbolizer -> SampleSink
//                        (address spaces)    (thread names)

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "profile/off_cpu_intervals.h"
#include "profile/sample_filter.h"
#include "recording/record_source.h"
#include "recording/recording_bytes.h"
#include "symbolize/symbolizer.h"
#include "unwind/recording_unwinder.h"

namespace swprof {

struct ProfileProgress {
  uint64_t samples = 0;      // samples read so far
  uint64_t bytes = 0;        // of the recording file, compressed
  uint64_t file_bytes = 0;
  double seconds = 0;        // since the start
};

// The order a sample's user frames are symbolized in: the order the
// consumer lists them, so that warnings (which name binaries in the order
// they are met) follow the output. Root first: outermost first; leaf first:
// the reverse. Kernel frames come after them (the kernel symbols' warning,
// if any, is listed first).
enum class FrameOrder { kRootFirst, kLeafFirst };

struct PipelineOptions {
  UnwindOptions unwind;
  SymbolizerOptions symbols;
  ProfileFilter filter;  // its thread and time part, and kernel_frames
  FrameOrder symbolize_order = FrameOrder::kRootFirst;
  // Called every 4096 samples read (on the calling thread).
  std::function<void(const ProfileProgress&)> progress;
};

enum class SampleKind : uint8_t {
  kOnCpu,   // a timer (or other event) sample: weighs its period
  kOffCpu,  // taken as the thread was switched out: weighs its time off the CPU
};

// A kept sample, symbolized: user_symbols[i] names unwound.walk.frames[i]
// and kernel_symbols[i] names unwound.kernel_ips[i] (both leaf first);
// kernel_symbols is empty when the filter leaves kernel frames out.
struct PipelineSample {
  const UnwoundSample& unwound;
  const std::string& comm;  // the thread's name (named or inherited), empty when unknown
  bool named_by_record;     // a COMM record named the thread (its name is not only inherited)
  const std::vector<const SymbolizedAddress*>& user_symbols;
  const std::vector<const SymbolizedAddress*>& kernel_symbols;
  SampleKind kind = SampleKind::kOnCpu;
  // On-CPU: the sample's period (ns for time-based events); off-CPU: the
  // nanoseconds charged to it (OffCpuIntervals), 0 when none were.
  uint64_t weight = 0;
  const OffCpuWeight* off_cpu = nullptr;  // off-CPU samples the intervals know; else null
};

// Which kinds of samples a sink takes. Off-CPU samples are weighed by a
// pre-pass over the recording's switch records, run only when they are taken
// and the recording has them.
struct SampleKinds {
  bool on_cpu = true;
  bool off_cpu = true;
};

// Receives the recording's header, then the kept samples, one at a time, on
// the calling thread.
class SampleSink {
 public:
  virtual ~SampleSink() = default;
  virtual void begin(const RecordingHeader&) {}
  // Asked once, after begin().
  virtual SampleKinds kinds() const { return {}; }
  virtual void add(const PipelineSample& sample) = 0;
};

// The archive a pass used (`swprof archive`), and how many binaries it
// supplied that were missing or changed on this machine.
struct ArchiveUse {
  std::string path;
  size_t binaries_supplied = 0;
  std::shared_ptr<const BinaryArchive> archive;  // as opened for the pass
};

// A file the recorded processes mapped executable, as its first mapping
// record gave it: where the pprof output places a module (other reports name
// modules only).
struct ExecutableMapping {
  std::string path;
  std::string build_id;  // hex; empty when the record had none
  uint64_t start = 0;
  uint64_t limit = 0;    // start + length
  uint64_t file_offset = 0;
};

// What the pass saw, over every sample read (before filters).
struct PipelineResult {
  RecordingHeader header;
  ReadStatus status;         // how far the file could be read
  UnwindStats unwind;
  uint64_t samples_read = 0;
  uint64_t lost = 0;         // samples the kernel dropped (LOST records)
  uint64_t first_time = 0;   // monotonic ns of the first and last sample read
  uint64_t last_time = 0;
  std::vector<std::string> warnings;  // the unwinder's, then the symbolizer's (missing binaries, ...)
  std::optional<ArchiveUse> archive;  // when one was found
  // Executable files (and the vDSO) in the order first mapped, one per path.
  std::vector<ExecutableMapping> mapped_files;
};

// `options` with the archive of `recording` opened (find_archive, from
// options.symbols.archive_path) into its unwind and symbol options, and
// the build-id cache of its symbol options in its unwind options too.
PipelineOptions with_archive(const std::string& recording, const PipelineOptions& options);

// Runs the pass over `recording`; then, with a build-id cache, keeps there
// the binaries it opened as recorded (profile/build_id_cache_fill.h), its
// problems among the warnings. Throws Error for a file that is no
// recording, and for one with samples none of which could be read (all
// damaged, or the file damaged or cut before the first); a damaged or cut
// file otherwise ends the pass at the damage (see PipelineResult::status).
PipelineResult run_pipeline(const std::string& recording, const PipelineOptions& options, SampleSink& sink);
// The same over a file opened already (RecordingBytes::open): the pass reads
// each byte of a finished recording once.
PipelineResult run_pipeline(std::shared_ptr<const RecordingBytes> file, const PipelineOptions& options,
                            SampleSink& sink);

}  // namespace swprof
