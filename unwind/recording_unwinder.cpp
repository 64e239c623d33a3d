#include "unwind/recording_unwinder.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <thread>

#include "unwind/memory.h"
#include "unwind/standard_chain.h"

namespace swprof {

void UnwindStats::add(const WalkResult& walk) {
  ++samples;
  complete += walk.complete();
  ++ends[walk.end];
  for (size_t i = 1; i < walk.frames.size(); ++i) {
    ++frames;
    ++frames_by_stepper[static_cast<size_t>(walk.frames[i].stepper)];
    guessed_frames += (walk.frames[i].flags & kFrameGuess) != 0;
  }
  if (!walk.frames.empty()) ++frames;  // the sampled frame
}

// A sample waiting in the batch: its own copy of what the unwinder needs.
struct RecordingUnwinder::Pending {
  UnwoundSample out;
  Registers regs;
  uint64_t stack_sp = 0;
  std::vector<uint8_t> stack;
};

// One unwinder per thread, each with its own caches.
struct RecordingUnwinder::Workers {
  std::vector<std::unique_ptr<SampleWalker>> walkers;
};

RecordingUnwinder::RecordingUnwinder(UnwindOptions options)
    : options_(options), binaries_(std::make_shared<BinaryCache>()), spaces_(binaries_),
      workers_(std::make_unique<Workers>()) {
  unsigned n = options_.threads ? options_.threads : std::max(1u, std::thread::hardware_concurrency());
  auto shared = make_shared_unwind_state();
  for (unsigned i = 0; i < n; ++i) workers_->walkers.push_back(make_sample_walker(options_, shared));
}

RecordingUnwinder::~RecordingUnwinder() = default;

std::vector<std::string> RecordingUnwinder::warnings() const { return binaries_->warnings(); }

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

namespace {

uint64_t record_time(const Record& r) {
  return std::visit(
      [](const auto& rec) -> uint64_t {
        using T = std::decay_t<decltype(rec)>;
        if constexpr (std::is_same_v<T, EndRecord>) return std::numeric_limits<uint64_t>::max();
        else if constexpr (std::is_same_v<T, ImageRecord>) return 0;
        else return rec.time;
      },
      r);
}

}  // namespace

void RecordingUnwinder::run(RecordingReader& reader, const std::function<void(const UnwoundSample&)>& on_sample,
                            const std::function<void(const Record&)>& on_record) {
  std::priority_queue<Timed, std::vector<Timed>, Later> window;
  uint64_t newest = 0;
  uint64_t seq = 0;
  auto release = [&](bool all) {
    while (!window.empty() && (all || window.size() > options_.reorder_max_records ||
                               window.top().time + options_.reorder_window_ns <= newest)) {
      Timed t = std::move(const_cast<Timed&>(window.top()));
      window.pop();
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
    Timed t;
    t.seq = seq++;
    if (auto* s = std::get_if<SampleView>(&*rec)) {
      Pending p;
      p.out.time = s->time;
      p.out.pid = s->pid;
      p.out.tid = s->tid;
      p.out.cpu = s->cpu;
      p.out.period = s->period;
      p.out.in_kernel = s->in_kernel;
      p.out.stack_truncated = s->stack_truncated;
      for (size_t i = 0; i < s->kernel_depth(); ++i) p.out.kernel_ips.push_back(s->kernel_ip(i));
      p.regs = Registers::from_sample(*s);
      p.stack_sp = p.regs.sp();
      p.stack.assign(s->stack.begin(), s->stack.end());
      t.time = s->time;
      t.item = std::move(p);
    } else {
      t.time = record_time(*rec);
      t.item = std::move(*rec);
    }
    if (t.time != std::numeric_limits<uint64_t>::max()) newest = std::max(newest, t.time);
    window.push(std::move(t));
    release(false);
  }
  release(true);
  flush(on_sample);
}

void RecordingUnwinder::replay(Timed&& t, const std::function<void(const UnwoundSample&)>& on_sample,
                               const std::function<void(const Record&)>& on_record) {
  if (auto* p = std::get_if<Pending>(&t.item)) {
    p->out.maps = spaces_.snapshot(p->out.pid);  // the address space as of the sample's time
    pending_.push_back(std::move(*p));
    if (pending_.size() >= options_.batch) flush(on_sample);
    return;
  }
  const Record& rec = std::get<Record>(t.item);
  spaces_.apply(rec);
  if (on_record) on_record(rec);
}

void RecordingUnwinder::flush(const std::function<void(const UnwoundSample&)>& on_sample) {
  const size_t n = pending_.size();
  auto work = [&](size_t worker) {
    SampleWalker& walker = *workers_->walkers[worker];
    for (size_t i = worker; i < n; i += workers_->walkers.size()) {
      Pending& p = pending_[i];
      SampleStackMemory stack(p.stack_sp, Bytes(p.stack.data(), p.stack.size()));
      p.out.walk = walker.walk(p.regs, stack, *p.out.maps);
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < workers_->walkers.size() && t < n; ++t) threads.emplace_back(work, t);
  work(0);
  for (auto& t : threads) t.join();
  for (Pending& p : pending_) {
    stats_.add(p.out.walk);
    on_sample(p.out);
  }
  pending_.clear();
}

}  // namespace swprof
