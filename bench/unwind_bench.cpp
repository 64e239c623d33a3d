// Replays a recording's samples through the stepper chain and through
// libunwind, on one thread with warm caches: ns per frame, frames per second,
// % complete stacks. Used by bench/unwind_compare.sh.
//
//   build/bench/swprof_unwind_bench RECORDING [--benchmark_* flags]
//   build/bench/swprof_unwind_bench RECORDING --passes=N
//   build/bench/swprof_unwind_bench RECORDING --first=N
//
// --passes=N skips Google Benchmark: it walks every sample once through the
// chain (warming tables and caches), then N more times inside
// timed_passes(), and prints frames and ns/frame. For instruction counts:
//
//   valgrind --tool=callgrind --toggle-collect='*timed_passes*'
//       build/bench/swprof_unwind_bench RECORDING --passes=3
//
// then instructions per frame = the collected Ir / the frames printed.
//
// --first=N skips Google Benchmark too: N first passes (unwind_first/chain
// below), each timed alone and followed by the same pass again, for a
// profile of the first walk through a binary (callgrind:
// --toggle-collect='*first_pass*').

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <vector>

#include "recording/recording_reader.h"
#include "unwind/address_space.h"
#include "unwind/standard_chain.h"

using namespace swprof;

namespace {

struct LoadedSample {
  Registers regs;
  std::vector<uint8_t> stack;
  std::shared_ptr<const ProcessMaps> maps;
};

std::vector<LoadedSample> g_samples;
std::shared_ptr<BinaryCache> g_binaries;
std::string g_path;

void load(const std::string& path) {
  g_path = path;
  g_binaries = std::make_shared<BinaryCache>();
  AddressSpaces spaces(g_binaries);
  RecordingReader reader(path);
  while (auto rec = reader.next()) {
    if (auto* s = std::get_if<SampleView>(&*rec)) {
      LoadedSample l;
      l.regs = Registers::from_sample(*s);
      l.stack.assign(s->stack.begin(), s->stack.end());
      l.maps = spaces.snapshot(s->pid);
      g_samples.push_back(std::move(l));
    } else {
      spaces.apply(*rec);
    }
  }
}

// Hot: each sample's stack is walked once untimed, so its bytes are in cache
// as they are right after the decoder wrote them; only the second walk is
// timed. This is the unwinder's own cost per frame. A timed walk that took
// longer than kPreempted was interrupted by the scheduler (the machine is
// shared): it is timed again, up to three times, instead of adding a
// time slice of another process to the figure.
constexpr double kPreempted = 50e-6;

// What reading the clock twice costs (the median of many back-to-back
// reads): part of every timed walk's interval that is not the walk's, taken
// off each walk (~30 ns here, 2 ns per frame of a 14-frame walk).
double clock_overhead() {
  std::vector<double> d(20001);
  for (double& x : d) {
    const auto t0 = std::chrono::steady_clock::now();
    x = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
  return d[d.size() / 2];
}

void unwind_hot(benchmark::State& state, UnwinderChoice choice) {
  UnwindOptions options;
  options.unwinder = choice;
  auto walker = make_sample_walker(options, make_shared_unwind_state());
  const double overhead = clock_overhead();
  uint64_t frames = 0;
  double seconds = 0;
  WalkResult r;
  for (auto _ : state) {
    double elapsed = 0;
    for (const LoadedSample& s : g_samples) {
      SampleStackMemory stack(s.regs.sp(), Bytes(s.stack.data(), s.stack.size()));
      walker->walk(s.regs, stack, *s.maps, r);
      benchmark::DoNotOptimize(r);
      double walk_seconds = 0;
      size_t walk_frames = 0;
      for (int attempt = 0; attempt < 3; ++attempt) {
        const auto t0 = std::chrono::steady_clock::now();
        walker->walk(s.regs, stack, *s.maps, r);
        walk_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        benchmark::DoNotOptimize(r);
        walk_frames = r.frames.size();
        if (walk_seconds < kPreempted) break;
      }
      elapsed += std::max(0.0, walk_seconds - overhead);
      frames += walk_frames;
    }
    state.SetIterationTime(elapsed);
    seconds += elapsed;
  }
  state.counters["ns_per_frame"] = frames ? seconds * 1e9 / static_cast<double>(frames) : 0;
  state.counters["clock_ns"] = overhead * 1e9;
  state.SetItemsProcessed(static_cast<int64_t>(frames));
}

// Cold: samples in recording order, stacks fetched from memory as loaded.
void unwind_all(benchmark::State& state, UnwinderChoice choice) {
  UnwindOptions options;
  options.unwinder = choice;
  auto walker = make_sample_walker(options, make_shared_unwind_state());
  WalkResult r;
  auto pass = [&](uint64_t& frames, uint64_t& complete) {
    for (const LoadedSample& s : g_samples) {
      SampleStackMemory stack(s.regs.sp(), Bytes(s.stack.data(), s.stack.size()));
      walker->walk(s.regs, stack, *s.maps, r);
      frames += r.frames.size();
      complete += r.complete();
    }
  };
  uint64_t frames = 0, complete = 0;
  pass(frames, complete);  // warm the tables and caches
  frames = complete = 0;
  uint64_t passes = 0;
  for (auto _ : state) {
    pass(frames, complete);
    ++passes;
  }
  state.counters["frames_per_s"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
  // (frames / 1e9) per second, inverted: nanoseconds per frame.
  state.counters["ns_per_frame"] =
      benchmark::Counter(static_cast<double>(frames) / 1e9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["frames_per_sample"] = passes ? static_cast<double>(frames) / static_cast<double>(passes * g_samples.size()) : 0;
  state.counters["complete_pct"] = passes ? 100.0 * static_cast<double>(complete) / static_cast<double>(passes * g_samples.size()) : 0;
  state.SetItemsProcessed(static_cast<int64_t>(frames));
}

// Each sample's maps as of its place in the recording, with `binaries`
// (each file opened, and its build-id checked, as its mapping record is
// read: what a first pass costs apart from unwinding).
std::vector<std::shared_ptr<const ProcessMaps>> replay_maps(const std::shared_ptr<BinaryCache>& binaries) {
  std::vector<std::shared_ptr<const ProcessMaps>> maps;
  maps.reserve(g_samples.size());
  AddressSpaces spaces(binaries, false);
  RecordingReader reader(g_path);
  while (auto rec = reader.next()) {
    if (auto* s = std::get_if<SampleView>(&*rec)) maps.push_back(spaces.snapshot(s->pid));
    else spaces.apply(*rec);
  }
  return maps;
}

// This thread's CPU time: a pass takes tens of milliseconds, long enough for
// the scheduler of a shared machine to stretch its wall time several-fold.
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// One first pass: every sample in recording order through a new walker, over
// binaries opened anew (so no CFI of theirs is indexed or compiled yet),
// stacks fetched from memory as loaded. Timed: the walks alone, with every
// FDE index read, FDE compiled and rule cached on the way; not timed:
// opening the files (their symbols, build-ids, sections), which a report
// does for its symbols anyway.
struct FirstPass {
  double seconds = 0;
  uint64_t frames = 0;
  uint64_t complete = 0;
  double again_seconds = 0;  // the same pass again: rules cached, CFI compiled, stacks out of cache
};

__attribute__((noinline)) uint64_t first_pass_walks(SampleWalker& walker,
                                                    const std::vector<std::shared_ptr<const ProcessMaps>>& maps,
                                                    uint64_t& complete) {
  uint64_t frames = 0;
  WalkResult r;
  for (size_t i = 0; i < g_samples.size(); ++i) {
    const LoadedSample& s = g_samples[i];
    SampleStackMemory stack(s.regs.sp(), Bytes(s.stack.data(), s.stack.size()));
    walker.walk(s.regs, stack, *maps[i], r);
    frames += r.frames.size();
    complete += r.complete();
  }
  return frames;
}

FirstPass first_pass(UnwinderChoice choice) {
  auto binaries = std::make_shared<BinaryCache>();
  const auto maps = replay_maps(binaries);
  UnwindOptions options;
  options.unwinder = choice;
  auto walker = make_sample_walker(options, make_shared_unwind_state());
  FirstPass out;
  const double t0 = thread_cpu_seconds();
  out.frames = first_pass_walks(*walker, maps, out.complete);
  out.seconds = thread_cpu_seconds() - t0;
  uint64_t complete = 0;
  const double t1 = thread_cpu_seconds();
  first_pass_walks(*walker, maps, complete);
  out.again_seconds = thread_cpu_seconds() - t1;
  return out;
}

// First: the first walk through every binary, per pass a new walker (empty
// rule cache) over binaries with no CFI compiled. again_ns_per_frame: the
// same passes again (rules cached, stacks out of cache).
void unwind_first(benchmark::State& state, UnwinderChoice choice) {
  uint64_t frames = 0, complete = 0, passes = 0;
  double seconds = 0, again = 0;
  for (auto _ : state) {
    const FirstPass p = first_pass(choice);
    state.SetIterationTime(p.seconds);
    seconds += p.seconds;
    again += p.again_seconds;
    frames += p.frames;
    complete += p.complete;
    ++passes;
  }
  state.counters["ns_per_frame"] = frames ? seconds * 1e9 / static_cast<double>(frames) : 0;
  state.counters["again_ns_per_frame"] = frames ? again * 1e9 / static_cast<double>(frames) : 0;
  state.counters["frames_per_sample"] = passes ? static_cast<double>(frames) / static_cast<double>(passes * g_samples.size()) : 0;
  state.counters["complete_pct"] = passes ? 100.0 * static_cast<double>(complete) / static_cast<double>(passes * g_samples.size()) : 0;
  state.SetItemsProcessed(static_cast<int64_t>(frames));
}

int run_first(int passes) {
  for (int i = 0; i < passes; ++i) {
    const FirstPass p = first_pass(UnwinderChoice::kChain);
    const double frames = static_cast<double>(std::max<uint64_t>(p.frames, 1));
    std::printf("first pass %d  frames %llu  %.2f ms CPU  ns/frame %.1f  (again: %.1f)\n", i,
                static_cast<unsigned long long>(p.frames), p.seconds * 1e3, p.seconds * 1e9 / frames,
                p.again_seconds * 1e9 / frames);
  }
  return 0;
}

// Every sample walked once, in recording order.
uint64_t walk_all(SampleWalker& walker) {
  uint64_t frames = 0;
  WalkResult r;
  for (const LoadedSample& s : g_samples) {
    SampleStackMemory stack(s.regs.sp(), Bytes(s.stack.data(), s.stack.size()));
    walker.walk(s.regs, stack, *s.maps, r);
    frames += r.frames.size();
  }
  return frames;
}

// The measured passes, out of line so callgrind can collect inside them alone.
__attribute__((noinline)) uint64_t timed_passes(SampleWalker& walker, int passes) {
  uint64_t frames = 0;
  for (int i = 0; i < passes; ++i) frames += walk_all(walker);
  return frames;
}

int run_passes(int passes) {
  auto walker = make_sample_walker(UnwindOptions{}, make_shared_unwind_state());
  const uint64_t warm = walk_all(*walker);
  const double t0 = thread_cpu_seconds();
  const uint64_t frames = timed_passes(*walker, passes);
  const double seconds = thread_cpu_seconds() - t0;
  std::printf("passes %d  frames %llu (%llu per pass)  ns/frame %.1f\n", passes,
              static_cast<unsigned long long>(frames), static_cast<unsigned long long>(warm),
              frames ? seconds * 1e9 / static_cast<double>(frames) : 0.0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: swprof_unwind_bench RECORDING [--benchmark_* flags | --passes=N | --first=N]\n");
    return 2;
  }
  load(argv[1]);
  std::fprintf(stderr, "%zu samples loaded from %s\n", g_samples.size(), argv[1]);
  if (argc == 3 && std::strncmp(argv[2], "--passes=", 9) == 0) return run_passes(std::atoi(argv[2] + 9));
  if (argc == 3 && std::strncmp(argv[2], "--first=", 8) == 0) return run_first(std::atoi(argv[2] + 8));
  benchmark::RegisterBenchmark("unwind_first/chain", unwind_first, UnwinderChoice::kChain)
      ->UseManualTime()
      ->Iterations(5)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("unwind_cold/chain", unwind_all, UnwinderChoice::kChain)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("unwind_cold/libunwind", unwind_all, UnwinderChoice::kLibunwind)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("unwind_hot/chain", unwind_hot, UnwinderChoice::kChain)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("unwind_hot/libunwind", unwind_hot, UnwinderChoice::kLibunwind)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  argv[1] = argv[0];
  int n = argc - 1;
  benchmark::Initialize(&n, argv + 1);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
