#pragma once
// Unwinds every sample of a recording: replays mapping/fork/exec records to
// keep each process's address space current, collects samples in batches,
// unwinds a batch in parallel on worker threads (one walker per thread, so
// stepper caches need no locks) while the calling thread reads the next
// batch, and hands samples and records back in recording order.

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "recording/record_source.h"
#include "unwind/address_space.h"
#include "unwind/frame.h"

namespace swprof {

enum class UnwinderChoice { kChain, kLibunwind };

struct UnwindOptions {
  UnwinderChoice unwinder = UnwinderChoice::kChain;
  unsigned threads = 0;  // unwinding workers; 0: one per core but one (at least one)
  size_t max_depth = kDefaultMaxDepth;
  // The stepper chain's rule cache: frames whose rule the walker has cached
  // are stepped without asking the steppers. Off, every frame asks the
  // steppers; the walks are the same (tests compare).
  bool rule_cache = true;
  size_t batch = 256;  // small enough that a batch's stacks stay in cache
  // Records from different CPUs' ring buffers reach the file slightly out of
  // time order; they are replayed in time order through a window this long,
  // or only until a FlushRecord says nothing older is to come.
  uint64_t reorder_window_ns = 500'000'000;
  size_t reorder_max_records = 16384;
  // ... and holds at most this many bytes of copied stacks (memory stays
  // bounded however many CPUs fed the file).
  size_t reorder_max_bytes = 64u << 20;
  // Open every mapped file when its mapping record is read (`swprof info`
  // reports on all of them), not when a sample first reaches it.
  bool open_every_mapping = false;
  // Copies of binaries missing or changed on this machine (`swprof archive`); may be null.
  std::shared_ptr<const BinaryArchive> archive;
  // The build-id cache on disk, asked before the archive; may be null.
  std::shared_ptr<BuildIdCache> build_id_cache;
};

struct UnwoundSample {
  uint64_t time = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint32_t cpu = 0;
  uint64_t period = 0;
  bool in_kernel = false;
  bool stack_truncated = false;
  bool off_cpu = false;  // taken at a switch-out (SampleView::off_cpu)
  std::vector<uint64_t> kernel_ips;
  WalkResult walk;
  std::shared_ptr<const ProcessMaps> maps;  // the address space the sample saw
};

struct UnwindStats {
  uint64_t samples = 0;
  uint64_t complete = 0;
  uint64_t frames = 0;
  uint64_t guessed_frames = 0;
  uint64_t beyond_copy_frames = 0;   // walked from bytes read past the kernel's copy (kFrameBeyondCopy)
  uint64_t beyond_copy_samples = 0;  // samples with such frames
  // Samples whose bytes past the copy were not used: the copy's outermost
  // frames read differently when they were read (unwind/beyond_check.h).
  uint64_t beyond_copy_dropped = 0;
  std::array<uint64_t, 9> frames_by_stepper{};  // indexed by StepperKind
  std::map<WalkEnd, uint64_t> ends;

  void add(const WalkResult& walk);
  // Samples taken inside execve (WalkEnd::kNoMappingsYet): the old program's
  // registers and no stack, nothing to unwind, so neither complete nor
  // incomplete.
  uint64_t inside_execve() const;
  // The samples that had a stack to unwind: what the share of complete
  // stacks is of.
  uint64_t unwindable() const { return samples - inside_execve(); }
  // Adds another run's counts (merged profiles).
  void add(const UnwindStats& other);
};

class RecordingUnwinder {
 public:
  explicit RecordingUnwinder(UnwindOptions options = {});
  ~RecordingUnwinder();

  // Streams the whole recording. on_sample sees every sample in recording
  // order; on_record (optional) sees every other record, in order with the
  // samples, but FlushRecords (they only let the reorder window release
  // records early). on_ahead (optional) sees each batch of samples, unwound, before
  // on_sample sees the first of them: a look ahead, to start slow work
  // early. All run on the calling thread.
  void run(RecordSource& reader, const std::function<void(const UnwoundSample&)>& on_sample,
           const std::function<void(const Record&)>& on_record = {},
           const std::function<void(const UnwoundSample&)>& on_ahead = {});

  // Of the samples unwound so far (summed over the workers').
  UnwindStats stats() const;
  // Missing or changed binaries, once each.
  std::vector<std::string> warnings() const;
  // Binaries the archive supplied (UnwindOptions::archive).
  size_t archive_supplied() const { return binaries_->archive_supplied(); }
  // Binaries the build-id cache supplied, and those opened from their files
  // as recorded (BinaryCache::opened_as_recorded).
  size_t build_id_cache_supplied() const { return binaries_->build_id_cache_supplied(); }
  std::vector<std::shared_ptr<const ElfBinary>> binaries_as_recorded() const { return binaries_->opened_as_recorded(); }

 private:
  struct Pending;
  // A sample's copy of what the unwinder needs (reusing delivered samples' buffers).
  Pending pending(const SampleView& s);
  struct Timed;
  struct Later;
  class ReorderWindow;
  void replay(Timed&& item, const std::function<void(const UnwoundSample&)>& on_sample,
              const std::function<void(const Record&)>& on_record);
  struct Batch;
  using SampleSink = std::function<void(const UnwoundSample&)>;
  using RecordSink = std::function<void(const Record&)>;
  // Hands the collected batch to the workers, after delivering the batch
  // they were working on.
  void flush(const SampleSink& on_sample, const RecordSink& on_record);
  // Waits for the batch in the workers' hands, if any, and delivers it.
  void deliver(const SampleSink& on_sample, const RecordSink& on_record);

  UnwindOptions options_;
  std::shared_ptr<BinaryCache> binaries_;
  AddressSpaces spaces_;
  struct Workers;
  std::unique_ptr<Workers> workers_;
  const SampleSink* ahead_ = nullptr;  // run's on_ahead, while it runs
  // Samples in the batch being collected before it goes to the workers:
  // kFirstBatch at first, doubled with each batch up to options_.batch, so
  // that the first samples come out unwound (and their binaries are looked
  // ahead at) after a few records, not after two whole batches.
  static constexpr size_t kFirstBatch = 4;
  size_t batch_samples_ = kFirstBatch;
  std::unique_ptr<Batch> collecting_;  // filled by replay
  std::unique_ptr<Batch> in_flight_;   // being unwound by the workers
  std::vector<std::vector<uint8_t>> spare_stacks_;  // buffers of delivered samples, for the next ones
  std::vector<std::vector<Frame>> spare_frames_;    // the same for unwound frames
  std::vector<std::vector<uint64_t>> spare_kernel_ips_;  // ... and kernel frames
};

}  // namespace swprof
