#include "profile/off_cpu_intervals.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <tuple>

#include "recording/record_source.h"

namespace swprof {

void OffCpuIntervals::add(const SwitchRecord& r) {
  events_[r.tid].push_back(Event{r.time, r.out ? Kind::kOut : Kind::kIn, r.out && r.preempted, 0});
}

void OffCpuIntervals::add(const OffCpuRepeatRecord& r) {
  events_[r.tid].push_back(Event{r.time, Kind::kRepeat, false, r.ref_time});
}

void OffCpuIntervals::add_sample(uint32_t tid, uint64_t time) {
  weights_.try_emplace(Key{tid, time});
  events_[tid].push_back(Event{time, Kind::kSample, false, 0});
}

OffCpuWeight* OffCpuIntervals::find(uint32_t tid, uint64_t time) {
  auto it = weights_.find(Key{tid, time});
  return it == weights_.end() ? nullptr : &it->second;
}

const OffCpuWeight* OffCpuIntervals::weight(uint32_t tid, uint64_t time) const {
  auto it = weights_.find(Key{tid, time});
  return it == weights_.end() ? nullptr : &it->second;
}

void OffCpuIntervals::finish(uint64_t end_time) {
  for (auto& [tid, events] : events_) pair_thread(tid, events, end_time);
  events_.clear();
}

namespace {

// One thread's walk through its events in time order.
class Pairing {
 public:
  Pairing(uint32_t every, uint64_t& unattributed_ns) : every_(every), unattributed_ns_(unattributed_ns) {}

  void switch_in(uint64_t time) {
    close(time);
    pending_ = pending_repeat_ = nullptr;
  }
  void sample(OffCpuWeight* w) { pending_ = w; }
  void repeat(OffCpuWeight* ref) { pending_repeat_ = ref; }

  // The first switch-out at or after a sample (and before the next in) is
  // that sample's; without one, a repeat record names where its time goes,
  // else (every > 1) the thread's latest sample of the same kind: a wait
  // goes to the latest wait, a preemption to the latest preemption (charging
  // a wait to where the thread last ran would put sleep under busy code).
  void switch_out(uint64_t time, bool preempted) {
    close(time);  // out then out: the in between was lost
    OffCpuWeight*& latest = preempted ? latest_preempted_ : latest_blocked_;
    OffCpuWeight* charge = pending_ ? pending_ : pending_repeat_ ? pending_repeat_ : every_ > 1 ? latest : nullptr;
    if (pending_) {
      pending_->matched = true;
      pending_->preempted = preempted;
      latest = pending_;
    }
    open_ = Interval{time, pending_, charge, preempted, true};
    pending_ = pending_repeat_ = nullptr;
  }

  // An interval still open at the end of the recording ends there.
  void end(uint64_t end_time) {
    if (!open_.valid) return;
    if (open_.own) open_.own->open = true;
    close(std::max(end_time, open_.start));
  }

 private:
  struct Interval {
    uint64_t start = 0;
    OffCpuWeight* own = nullptr;
    OffCpuWeight* charge = nullptr;
    bool preempted = false;
    bool valid = false;  // an interval is open
  };

  void close(uint64_t time) {
    if (!open_.valid) return;
    const uint64_t ns = time - open_.start;
    if (open_.charge) {
      open_.charge->weight_ns += ns;
      if (open_.preempted) open_.charge->preempted_ns += ns;
    } else {
      unattributed_ns_ += ns;
    }
    open_ = Interval{};
  }

  uint32_t every_;
  uint64_t& unattributed_ns_;
  Interval open_;
  OffCpuWeight* pending_ = nullptr;         // sample since the last switch-in, not matched yet
  OffCpuWeight* pending_repeat_ = nullptr;  // the written sample a repeat record named
  OffCpuWeight* latest_blocked_ = nullptr;    // the thread's latest written sample of a wait
  OffCpuWeight* latest_preempted_ = nullptr;  // ... and of a preemption
};

}  // namespace

void OffCpuIntervals::pair_thread(uint32_t tid, std::vector<Event>& events, uint64_t end_time) {
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return std::tie(a.time, a.kind) < std::tie(b.time, b.kind); });
  Pairing p(every_, unattributed_ns_);
  for (const Event& e : events) {
    switch (e.kind) {
      case Kind::kIn: p.switch_in(e.time); break;
      case Kind::kSample: p.sample(find(tid, e.time)); break;
      case Kind::kRepeat: p.repeat(find(tid, e.ref)); break;
      case Kind::kOut: p.switch_out(e.time, e.preempted); break;
    }
  }
  p.end(end_time);
}

namespace {

// When sampling stopped, from the end record (0 when it does not say:
// recordings before swprof wrote it).
uint64_t recording_end_time(const EndRecord& end) {
  const nlohmann::json json = nlohmann::json::parse(end.json, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return 0;
  const auto it = json.find("end_monotonic_ns");
  return it != json.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

}  // namespace

OffCpuIntervals OffCpuIntervals::read(const std::string& recording) { return read(*open_record_source(recording)); }

OffCpuIntervals OffCpuIntervals::read(RecordSource& source) {
  OffCpuIntervals intervals(source.header().off_cpu_settings.every);
  uint64_t end_time = 0;
  const uint64_t latest = source.read_off_cpu_records([&](const Record& record) {
    if (const auto* s = std::get_if<SampleView>(&record)) {
      if (s->off_cpu) intervals.add_sample(s->tid, s->time);
    } else if (const auto* sw = std::get_if<SwitchRecord>(&record)) {
      intervals.add(*sw);
    } else if (const auto* r = std::get_if<OffCpuRepeatRecord>(&record)) {
      intervals.add(*r);
    } else if (const auto* e = std::get_if<EndRecord>(&record)) {
      end_time = std::max(end_time, recording_end_time(*e));
    }
  });
  intervals.finish(std::max(end_time, latest));
  return intervals;
}

}  // namespace swprof
