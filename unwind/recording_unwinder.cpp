#include "unwind/recording_unwinder.h"

#include <algorithm>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <queue>
#include <thread>

#include "binary/capstone_library.h"
#include "unwind/beyond_check.h"
#include "unwind/callchain_walk.h"
#include "unwind/memory.h"
#include "unwind/standard_chain.h"

namespace swprof {

void UnwindStats::add(const WalkResult& walk) {
  ++samples;
  complete += walk.complete();
  ++ends[walk.end];
  uint64_t beyond = 0;
  for (size_t i = 1; i < walk.frames.size(); ++i) {
    ++frames;
    ++frames_by_stepper[static_cast<size_t>(walk.frames[i].stepper)];
    guessed_frames += (walk.frames[i].flags & kFrameGuess) != 0;
    beyond += (walk.frames[i].flags & kFrameBeyondCopy) != 0;
  }
  beyond_copy_frames += beyond;
  beyond_copy_samples += beyond != 0;
  if (!walk.frames.empty()) ++frames;  // the sampled frame
}

uint64_t UnwindStats::inside_execve() const {
  const auto it = ends.find(WalkEnd::kNoMappingsYet);
  return it == ends.end() ? 0 : it->second;
}

void UnwindStats::add(const UnwindStats& other) {
  samples += other.samples;
  complete += other.complete;
  frames += other.frames;
  guessed_frames += other.guessed_frames;
  beyond_copy_frames += other.beyond_copy_frames;
  beyond_copy_samples += other.beyond_copy_samples;
  beyond_copy_dropped += other.beyond_copy_dropped;
  for (size_t k = 0; k < frames_by_stepper.size(); ++k) frames_by_stepper[k] += other.frames_by_stepper[k];
  for (const auto& [end, n] : other.ends) ends[end] += n;
}

// A sample waiting in the batch: what the unwinder needs, kept past the
// reader's next record.
struct RecordingUnwinder::Pending {
  UnwoundSample out;
  // The sample's registers as recorded: the worker makes them Registers
  // (and so does the other per-sample work that needs no order).
  std::array<uint64_t, kMaxSampleRegs> regs{};
  uint32_t nregs = 0;
  bool ip_sp_only = false;
  // The copied stack; or, when `chain`, the sample's recorded user call
  // chain (SampleView::user_chain), whose frames are taken as they are.
  // The bytes stay where the reader decoded them when it keeps them for us
  // (SampleView::stack_owner, held in `owner`); else they are copied into
  // `copy`.
  Bytes stack;
  uint32_t beyond = 0;  // of `stack`, the last bytes read past the kernel's copy (SampleView::stack_beyond)
  std::vector<uint8_t> beyond_changed;  // SampleView::beyond_changed, copied: it lives in the reader's chunk
  uint32_t beyond_delay_us = 0;
  std::shared_ptr<const void> owner;
  std::vector<uint8_t> copy;
  bool chain = false;
};

// Samples to unwind, and the records that come between them (delivered
// before samples[index]), in recording order.
struct RecordingUnwinder::Batch {
  std::vector<Pending> samples;
  std::vector<std::pair<size_t, Record>> records;

  bool empty() const { return samples.empty() && records.empty(); }
  void clear() {
    samples.clear();
    records.clear();
  }
};

// Worker threads, each with its own walker (and so its own caches), started
// on the first batch and kept for the next ones. Worker w unwinds samples
// w, w+W, w+2W... of the batch it is given.
struct RecordingUnwinder::Workers {
  std::vector<std::unique_ptr<SampleWalker>> walkers;
  std::vector<std::unique_ptr<CallchainWalk>> chains;  // one per walker
  std::vector<UnwindStats> stats;                       // one per walker: of the samples it unwound
  std::vector<std::thread> threads;
  std::mutex mutex;
  std::condition_variable wake;
  std::condition_variable done;
  Batch* batch = nullptr;
  uint64_t generation = 0;
  size_t busy = 0;
  bool stop = false;

  void submit(Batch* b) {
    if (threads.empty())
      for (size_t w = 0; w < walkers.size(); ++w) threads.emplace_back([this, w] { loop(w); });
    {
      std::lock_guard<std::mutex> lock(mutex);
      batch = b;
      busy = walkers.size();
      ++generation;
    }
    wake.notify_all();
  }

  void wait() {
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [this] { return busy == 0; });
  }

  void loop(size_t w) {
    uint64_t seen = 0;
    SampleWalker& walker = *walkers[w];
    CallchainWalk& chain = *chains[w];
    UnwindStats& counted = stats[w];
    for (;;) {
      Batch* b;
      {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] { return stop || generation != seen; });
        if (stop) return;
        seen = generation;
        b = batch;
      }
      for (size_t i = w; i < b->samples.size(); i += walkers.size()) {
        Pending& p = b->samples[i];
        if (p.chain) {
          chain.walk(p.stack, *p.out.maps, p.out.walk);
        } else {
          const Registers regs = Registers::from_perf(std::span(p.regs).first(p.nregs), p.ip_sp_only);
          SampleStackMemory stack(regs.sp(), p.stack);
          walker.walk(regs, stack, *p.out.maps, p.out.walk);
          if (p.beyond) check_beyond_copy(walker, regs, p, counted);
        }
        counted.add(p.out.walk);
      }
      std::lock_guard<std::mutex> lock(mutex);
      if (--busy == 0) done.notify_all();
    }
  }

  // The frames past the kernel's copy are shown, flagged, when they hold
  // (beyond_check.h); else the walk is made again on the copy alone. So is
  // a walk that made no frame past the copy but failed, maybe on a word
  // past it (a return address there that is no code). The bytes of
  // recordings before version 4 (no map) were checked when recorded.
  static void check_beyond_copy(SampleWalker& walker, const Registers& regs, Pending& p, UnwindStats& counted) {
    const uint64_t copy_end = regs.sp() + (p.stack.size() - p.beyond);
    const Bytes changed(p.beyond_changed.data(), p.beyond_changed.size());
    const bool past = frames_past(p.out.walk, copy_end);
    const CopyEndReread reread{copy_end, changed, p.beyond_delay_us};
    if (changed.empty() || (past ? frames_past_copy_hold(p.out.walk, reread, *p.out.maps) : p.out.walk.complete())) {
      mark_beyond_copy(p.out.walk, copy_end);
      return;
    }
    SampleStackMemory copy(regs.sp(), p.stack.first(p.stack.size() - p.beyond));
    walker.walk(regs, copy, *p.out.maps, p.out.walk);
    counted.beyond_copy_dropped += past || p.out.walk.end == WalkEnd::kStackExhausted;
  }

  ~Workers() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    wake.notify_all();
    for (auto& t : threads) t.join();
  }
};

RecordingUnwinder::RecordingUnwinder(UnwindOptions options)
    : options_(options), binaries_(std::make_shared<BinaryCache>()), spaces_(binaries_, !options.open_every_mapping),
      workers_(std::make_unique<Workers>()), collecting_(std::make_unique<Batch>()),
      in_flight_(std::make_unique<Batch>()) {
  if (options_.archive) binaries_->use_archive(options_.archive);
  if (options_.build_id_cache) binaries_->use_build_id_cache(options_.build_id_cache);
  // By default one worker per core but one: the calling thread is busy too
  // (reading the next batch, and whatever the caller does with the samples).
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  unsigned n = options_.threads ? options_.threads : std::max(1u, cores - 1);
  auto shared = make_shared_unwind_state();
  for (unsigned i = 0; i < n; ++i) {
    workers_->walkers.push_back(make_sample_walker(options_, shared));
    workers_->chains.push_back(std::make_unique<CallchainWalk>(options_.max_depth));
  }
  workers_->stats.resize(n);
}

RecordingUnwinder::~RecordingUnwinder() {
  // A batch may still be in the workers' hands (a callback threw): it must
  // outlive their work on it.
  if (!in_flight_->empty()) workers_->wait();
}

UnwindStats RecordingUnwinder::stats() const {
  UnwindStats all;
  for (const UnwindStats& s : workers_->stats) all.add(s);
  return all;
}

std::vector<std::string> RecordingUnwinder::warnings() const {
  std::vector<std::string> out = binaries_->warnings();
  if (const std::string problem = capstone_load_problem(); !problem.empty())
    out.push_back("cannot load Capstone (" + problem +
                  "): no binary analysis, so stacks through code without CFI or frame pointers may end early; install " +
                  capstone_package());
  return out;
}

// A record waiting in the reorder window: a sample (with its own copy of
// the stack) or another record (which owns its data).
struct RecordingUnwinder::Timed {
  uint64_t time = 0;
  uint64_t seq = 0;  // file order breaks ties
  std::variant<Pending, Record> item;
};

struct RecordingUnwinder::Later {
  bool operator()(const Timed& a, const Timed& b) const {
    return a.time != b.time ? a.time > b.time : a.seq > b.seq;
  }
};

// The reorder window: records leave in (time, file order). Most arrive in
// that order already (one ring drained after another, each in time order):
// those join a sorted run, a ring queue, at no cost; only a record older
// than the run's newest goes to a heap. The oldest record is the older of
// the run's front and the heap's top.
class RecordingUnwinder::ReorderWindow {
 public:
  void push(Timed&& t) {
    if (run_.empty() || !Later()(run_.back(), t)) run_.push_back(std::move(t));
    else late_.push(std::move(t));
  }
  bool empty() const { return run_.empty() && late_.empty(); }
  size_t size() const { return run_.size() + late_.size(); }
  uint64_t oldest_time() const { return from_run() ? run_.front().time : late_.top().time; }
  Timed pop() {
    if (from_run()) return run_.pop_front();
    Timed t = std::move(const_cast<Timed&>(late_.top()));
    late_.pop();
    return t;
  }

 private:
  // A queue in a ring of slots that grows by doubling and never shrinks, so
  // that in the steady state a record costs no allocation (a std::deque of
  // elements this large allocates a node for each).
  class Ring {
   public:
    bool empty() const { return count_ == 0; }
    size_t size() const { return count_; }
    const Timed& front() const { return slots_[head_]; }
    const Timed& back() const { return slots_[(head_ + count_ - 1) % slots_.size()]; }
    void push_back(Timed&& t) {
      if (count_ == slots_.size()) grow();
      slots_[(head_ + count_) % slots_.size()] = std::move(t);
      ++count_;
    }
    Timed pop_front() {
      Timed t = std::move(slots_[head_]);
      head_ = (head_ + 1) % slots_.size();
      --count_;
      return t;
    }

   private:
    void grow() {
      std::vector<Timed> bigger(std::max<size_t>(64, 2 * slots_.size()));
      for (size_t i = 0; i < count_; ++i) bigger[i] = std::move(slots_[(head_ + i) % slots_.size()]);
      slots_.swap(bigger);
      head_ = 0;
    }
    std::vector<Timed> slots_;
    size_t head_ = 0;
    size_t count_ = 0;
  };

  bool from_run() const { return late_.empty() || (!run_.empty() && !Later()(run_.front(), late_.top())); }
  Ring run_;
  std::priority_queue<Timed, std::vector<Timed>, Later> late_;
};

template <typename T>
static T take_spare(std::vector<T>& spares) {  // a delivered sample's buffer: no allocation
  if (spares.empty()) return {};
  T out = std::move(spares.back());
  spares.pop_back();
  return out;
}

RecordingUnwinder::Pending RecordingUnwinder::pending(const SampleView& s) {
  Pending p;
  p.out.time = s.time;
  p.out.pid = s.pid;
  p.out.tid = s.tid;
  p.out.cpu = s.cpu;
  p.out.period = s.period;
  p.out.in_kernel = s.in_kernel;
  p.out.stack_truncated = s.stack_truncated;
  p.out.off_cpu = s.off_cpu;
  p.out.kernel_ips = take_spare(spare_kernel_ips_);
  p.out.kernel_ips.clear();
  for (size_t i = 0; i < s.kernel_depth(); ++i) p.out.kernel_ips.push_back(s.kernel_ip(i));
  p.regs = s.regs;
  p.nregs = std::min<uint32_t>(s.nregs, kMaxSampleRegs);
  p.ip_sp_only = s.ip_sp_only;
  p.out.walk.frames = take_spare(spare_frames_);
  p.chain = !s.user_chain.empty();
  p.beyond = p.chain ? 0 : std::min<uint32_t>(s.stack_beyond, static_cast<uint32_t>(s.stack.size()));
  if (p.beyond) p.beyond_changed.assign(s.beyond_changed.begin(), s.beyond_changed.end());
  p.beyond_delay_us = s.beyond_delay_us;
  const Bytes bytes = p.chain ? s.user_chain : s.stack;
  if (!p.chain && s.stack_owner) {  // kept by the reader: used in place
    p.owner = s.stack_owner;
    p.stack = bytes;
    return p;
  }
  p.copy = take_spare(spare_stacks_);
  p.copy.assign(bytes.begin(), bytes.end());
  p.stack = Bytes(p.copy.data(), p.copy.size());
  return p;
}

void RecordingUnwinder::run(RecordSource& reader, const std::function<void(const UnwoundSample&)>& on_sample,
                            const std::function<void(const Record&)>& on_record,
                            const std::function<void(const UnwoundSample&)>& on_ahead) {
  ahead_ = on_ahead ? &on_ahead : nullptr;
  batch_samples_ = kFirstBatch;
  ReorderWindow window;
  uint64_t newest = 0;
  uint64_t seq = 0;
  size_t window_bytes = 0;  // copied stacks in the window
  uint64_t settled = 0;     // no record to come is older (FlushRecord)
  auto release = [&](bool all) {
    while (!window.empty() && (all || window.size() > options_.reorder_max_records ||
                               window_bytes > options_.reorder_max_bytes || window.oldest_time() < settled ||
                               window.oldest_time() + options_.reorder_window_ns <= newest)) {
      Timed t = window.pop();
      if (auto* p = std::get_if<Pending>(&t.item)) window_bytes -= p->stack.size();
      replay(std::move(t), on_sample, on_record);
    }
  };
  while (auto rec = reader.next()) {
    if (std::holds_alternative<ImageRecord>(*rec)) {
      // Owns no copy of its bytes and has no time: used at once.
      spaces_.apply(*rec);
      if (on_record) on_record(*rec);
      continue;
    }
    if (const auto* f = std::get_if<FlushRecord>(&*rec)) {  // the window's own business
      settled = std::max(settled, f->time);
      release(false);
      continue;
    }
    Timed t;
    t.seq = seq++;
    if (auto* s = std::get_if<SampleView>(&*rec)) {
      Pending p = pending(*s);
      window_bytes += p.stack.size();
      t.time = s->time;
      t.item = std::move(p);
    } else {
      // The end record leaves last.
      t.time = std::holds_alternative<EndRecord>(*rec) ? std::numeric_limits<uint64_t>::max() : time_of(*rec).value_or(0);
      t.item = std::move(*rec);
    }
    if (t.time != std::numeric_limits<uint64_t>::max()) newest = std::max(newest, t.time);
    window.push(std::move(t));
    release(false);
  }
  release(true);
  flush(on_sample, on_record);
  deliver(on_sample, on_record);
  ahead_ = nullptr;
}

void RecordingUnwinder::replay(Timed&& t, const std::function<void(const UnwoundSample&)>& on_sample,
                               const std::function<void(const Record&)>& on_record) {
  if (auto* p = std::get_if<Pending>(&t.item)) {
    p->out.maps = spaces_.snapshot(p->out.pid);  // the address space as of the sample's time
    collecting_->samples.push_back(std::move(*p));
  } else {
    // Applied now, so later samples see it; delivered in order with the samples.
    Record& rec = std::get<Record>(t.item);
    spaces_.apply(rec);
    collecting_->records.emplace_back(collecting_->samples.size(), std::move(rec));
  }
  if (collecting_->samples.size() >= std::min(batch_samples_, options_.batch) ||
      collecting_->records.size() >= 4 * options_.batch)
    flush(on_sample, on_record);
}

void RecordingUnwinder::deliver(const SampleSink& on_sample, const RecordSink& on_record) {
  if (in_flight_->empty()) return;
  if (!in_flight_->samples.empty()) workers_->wait();
  Batch& b = *in_flight_;
  if (ahead_)
    for (const Pending& p : b.samples) (*ahead_)(p.out);
  size_t r = 0;
  auto records_before = [&](size_t index) {
    for (; r < b.records.size() && b.records[r].first <= index; ++r)
      if (on_record) on_record(b.records[r].second);
  };
  for (size_t i = 0; i < b.samples.size(); ++i) {
    records_before(i);
    on_sample(b.samples[i].out);
  }
  records_before(b.samples.size());
  for (Pending& p : b.samples) {
    p.owner.reset();  // the reader may write its next stacks there
    if (spare_stacks_.size() < 2 * options_.batch && p.copy.capacity()) spare_stacks_.push_back(std::move(p.copy));
    if (spare_frames_.size() < 2 * options_.batch) spare_frames_.push_back(std::move(p.out.walk.frames));
    if (spare_kernel_ips_.size() < 2 * options_.batch) spare_kernel_ips_.push_back(std::move(p.out.kernel_ips));
  }
  b.clear();
}

void RecordingUnwinder::flush(const SampleSink& on_sample, const RecordSink& on_record) {
  if (collecting_->empty()) return;
  deliver(on_sample, on_record);
  batch_samples_ = std::min(2 * batch_samples_, options_.batch);
  std::swap(collecting_, in_flight_);  // the delivered batch's buffers collect the next one
  if (!in_flight_->samples.empty()) workers_->submit(in_flight_.get());
}

}  // namespace swprof
