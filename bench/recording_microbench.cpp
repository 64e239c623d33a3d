// Microbenchmarks of the recording pipeline: what the drain loop pays per
// sample (delta-code + encode + compress) and what readers pay to decode.
//
//   build/bench/swprof_microbench
//
// Stacks are synthetic but shaped like real ones: a thread's stack has a fixed
// top, the stack pointer wanders within a few KB, and each sample changes a
// few dozen bytes near the stack pointer.

#include <benchmark/benchmark.h>

#include <random>
#include <unistd.h>

#include "common/regular_file.h"
#include "recording/record_codec.h"
#include "recording/recording_reader.h"
#include "recording/recording_writer.h"
#include "sampler/kernel_symbol_subset.h"

using namespace swprof;

namespace {

struct SyntheticThread {
  std::mt19937 rng{7};
  std::vector<uint8_t> memory = std::vector<uint8_t>(16384);
  uint64_t top = 0x7ffc00020000;
  uint64_t time = 0;

  SyntheticThread() {
    for (auto& b : memory) b = static_cast<uint8_t>(rng() & 0x0f);  // low entropy, like real stacks
  }

  // Fills `s` with the next sample; `stack` keeps the bytes alive.
  void next(SampleView& s, std::vector<uint8_t>& stack) {
    const size_t depth = 2048 + (rng() % 2048);
    for (int k = 0; k < 48; ++k) memory[memory.size() - depth + (rng() % 128)] = static_cast<uint8_t>(rng());
    stack.assign(memory.end() - static_cast<long>(depth), memory.end());
    s.time = time += 250000;
    s.pid = s.tid = 1234;
    s.period = 250000;
    s.ip = 0x401000 + (rng() % 4096);
    s.abi = 2;
    s.nregs = 20;
    for (uint32_t i = 0; i < 20; ++i) s.regs[i] = rng();
    s.regs[7] = top - depth;
    s.stack = Bytes(stack.data(), stack.size());
  }
};

void BM_EncodeSample(benchmark::State& state) {
  SyntheticThread thread;
  RecordEncoder encoder;
  std::vector<uint8_t> out;
  std::vector<uint8_t> stack;
  SampleView s;
  for (auto _ : state) {
    thread.next(s, stack);
    encoder.encode(s, out);
    if (out.size() > (1u << 20)) {
      out.clear();
      encoder.reset();
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EncodeSample);

// Encode + zstd + write, as the recording loop does (to a file under /tmp).
void BM_WriteSample(benchmark::State& state) {
  SyntheticThread thread;
  const std::string path = "/tmp/swprof-microbench-" + std::to_string(getpid()) + ".swprof";
  RecordingHeader header;
  RecordingWriter writer(path, header);
  std::vector<uint8_t> stack;
  SampleView s;
  for (auto _ : state) {
    thread.next(s, stack);
    writer.write(s);
  }
  writer.flush();
  state.SetItemsProcessed(state.iterations());
  state.counters["file_bytes_per_sample"] =
      static_cast<double>(writer.bytes_written()) / static_cast<double>(state.iterations());
  unlink(path.c_str());
}
BENCHMARK(BM_WriteSample);

void BM_ReadSample(benchmark::State& state) {
  const std::string path = "/tmp/swprof-microbench-read-" + std::to_string(getpid()) + ".swprof";
  const int n = 50000;
  {
    SyntheticThread thread;
    RecordingWriter writer(path, RecordingHeader{});
    std::vector<uint8_t> stack;
    SampleView s;
    for (int i = 0; i < n; ++i) {
      thread.next(s, stack);
      writer.write(s);
    }
    writer.finish(EndRecord{"{}"});
  }
  int64_t samples = 0;
  for (auto _ : state) {
    RecordingReader reader(path);
    while (auto r = reader.next()) samples += std::holds_alternative<SampleView>(*r);
  }
  state.SetItemsProcessed(samples);
  unlink(path.c_str());
}
BENCHMARK(BM_ReadSample)->Unit(benchmark::kMillisecond);

// What the recorder adds per kernel sample: its ip and a 16-deep kernel
// chain into the set of sampled kernel addresses (a syscall-heavy program
// hits a few hundred distinct addresses, so most inserts find them there).
void BM_CollectKernelAddresses(benchmark::State& state) {
  std::mt19937 rng{11};
  KernelAddresses addrs;
  uint64_t chain[16];
  for (auto _ : state) {
    for (uint64_t& a : chain) a = 0xffffffff81000000 + (rng() % 512) * 0x40;
    for (uint64_t a : chain) addrs.add(a);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["distinct"] = static_cast<double>(addrs.size());
}
BENCHMARK(BM_CollectKernelAddresses);

// What the recorder pays once at the end: /proc/kallsyms read and cut to
// the symbols of `range(0)` sampled addresses.
void BM_KallsymsSubset(benchmark::State& state) {
  auto text = read_regular_file("/proc/kallsyms", kMaxKallsymsBytes);
  if (!text) {
    state.SkipWithError("/proc/kallsyms is not readable");
    return;
  }
  std::mt19937 rng{13};
  std::unordered_set<uint64_t> addrs;
  while (addrs.size() < static_cast<size_t>(state.range(0))) addrs.insert(0xffffffff81000000 + rng() % 0x1000000);
  size_t bytes = 0;
  for (auto _ : state) bytes = kallsyms_subset(*text.value, addrs).size();
  state.counters["kallsyms_bytes"] = static_cast<double>(text.value->size());
  state.counters["subset_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_KallsymsSubset)->Arg(100)->Arg(2000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
