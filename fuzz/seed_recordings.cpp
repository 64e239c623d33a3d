// Writes the seed inputs of the recording and record targets with the
// library's own writer and encoder (fuzz/make_corpus.sh runs it):
//
//   seed_recordings DIR
//     DIR/recording/one_chunk.swprof    every record type in one record chunk (and one off-CPU
//                                       timing chunk), finalized: with its chunk index
//     DIR/recording/two_chunks.swprof   the same split into small chunks, not finalized
//     DIR/recording/version3.swprof     the same in the layout of version 3 (no timing chunk, no index)
//     DIR/recording_index/one_chunk.index     one_chunk.swprof's index, as recording_index_fuzz.cpp reads
//                                             one: first chunk, index offset, then the index body
//     DIR/recording_index/one_chunk.swprof    the file itself
//     DIR/record/all_types.bin          the raw records of one chunk (no file header, no zstd)
//     DIR/archive/two_files.archive     a binary archive: a file and its debuginfo, and another file
//
// The records are fixed (no clock, no host name), so the output is the same
// on every run.

#include <fstream>
#include <iostream>
#include <vector>

#include "common/error.h"
#include "recording/binary_archive.h"
#include "recording/record_codec.h"
#include "recording/recording_index.h"
#include "recording/recording_reader.h"
#include "recording/recording_writer.h"
#include "support/recording_v3.h"

namespace {

using namespace swprof;

struct SeedStacks {
  std::vector<uint8_t> stack_a = std::vector<uint8_t>(96, 0x11);
  std::vector<uint8_t> stack_b = std::vector<uint8_t>(128, 0x11);
  std::vector<uint64_t> kernel = {0xffffffff81000010, 0xffffffff81000020};
};

SampleView sample(uint32_t tid, uint64_t time, uint64_t sp, const std::vector<uint8_t>& stack) {
  SampleView s;
  s.time = time;
  s.pid = 100;
  s.tid = tid;
  s.period = 1000000;
  s.ip = 0x401000 + time;
  s.abi = 2;
  s.nregs = 17;
  for (uint32_t i = 0; i < s.nregs; ++i) s.regs[i] = 0x1000 * i + time;
  s.regs[kSampleSpIndex] = sp;
  s.stack = Bytes(stack.data(), stack.size());
  return s;
}

std::vector<Record> seed_records(SeedStacks& st) {
  st.stack_b[5] = 0x22;  // differs from stack_a where they overlap: a non-trivial delta
  MappingRecord map;
  map.time = 1;
  map.pid = map.tid = 100;
  map.start = 0x400000;
  map.length = 0x2000;
  map.prot = 5;
  map.build_id_size = 20;
  for (size_t i = 0; i < kBuildIdMax; ++i) map.build_id[i] = static_cast<uint8_t>(i * 7);
  map.path = "/usr/bin/app";
  SampleView in_kernel = sample(101, 14, 0x7ffc0000, st.stack_a);
  in_kernel.in_kernel = true;
  in_kernel.ip = 0xffffffff81000000;
  in_kernel.kernel_chain = Bytes(reinterpret_cast<const uint8_t*>(st.kernel.data()), st.kernel.size() * 8);
  SampleView truncated = sample(100, 15, 0x7ffd0000 - 32, st.stack_b);
  truncated.stack_truncated = true;
  SampleView beyond = sample(100, 15, 0x7ffd0000 - 32, st.stack_b);  // its last 64 bytes read past the copy
  beyond.stack_truncated = true;
  beyond.stack_beyond = 64;
  static const uint8_t kChanged[] = {0x81};  // of the copy's 64 bytes, its first and last words changed
  beyond.beyond_changed = Bytes(kChanged, sizeof kChanged);
  beyond.beyond_delay_us = 120;
  beyond.time = 16;
  SampleView off_cpu = sample(101, 20, 0x7ffc0000, st.stack_a);
  off_cpu.off_cpu = true;
  off_cpu.period = 0;
  static const uint8_t kImage[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
  return {CommRecord{0, 100, 100, true, "app"},
          map,
          TaskRecord{false, 2, 100, 100, 101, 100},
          sample(100, 10, 0x7ffd0000, st.stack_a),
          sample(100, 11, 0x7ffd0000 - 32, st.stack_b),
          sample(101, 12, 0x7ffc0000, st.stack_a),
          sample(100, 13, 0x7ffd0000 + 16, st.stack_a),
          in_kernel,
          truncated,
          beyond,
          LostRecord{16, 1, 3},
          ThrottleRecord{17, 0, true},
          ThrottleRecord{18, 0, false},
          ImageRecord{"[vdso]", Bytes(kImage, sizeof kImage)},
          off_cpu,
          SwitchRecord{21, 100, 101, 0, true, false, false},
          OffCpuRepeatRecord{23, 100, 101, 20},
          SwitchRecord{22, 100, 101, 0, true, true, false},
          SwitchRecord{24, 100, 101, 1, false, false, false},
          FlushRecord{24},
          TaskRecord{true, 25, 100, 100, 101, 100}};
}

RecordingHeader seed_header() {
  RecordingHeader h;
  h.mode = "record";
  h.command = {"app", "--flag"};
  h.target_pid = 100;
  h.event = "cpu-clock";
  h.frequency = 999;
  h.stack_size = 8192;
  h.regs_mask = 0xff0fff;
  h.host = "host";
  h.kernel_release = "6.1.0";
  h.start_unix_ns = 1795238612000000000;
  h.start_monotonic_ns = 1;
  h.swprof_version = SWPROF_VERSION;
  return h;
}

void write_recording(const std::string& path, size_t chunk_bytes, bool finalize) {
  SeedStacks stacks;
  RecordingWriter writer(path, seed_header(), chunk_bytes);
  for (const Record& r : seed_records(stacks)) writer.write(r);
  if (finalize) writer.finish(EndRecord{R"({"samples": 6, "lost": 3})"});
  else writer.flush();
}

void write_version3(const std::string& path) {
  SeedStacks stacks;
  testing::RecordingV3Writer writer(path, seed_header());
  for (const Record& r : seed_records(stacks)) writer.write(r);
  writer.finish(EndRecord{R"({"samples": 6, "lost": 3})"});
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw Error("cannot write '" + path + "'");
}

// The index of the finished recording at `recording`, as recording_index_fuzz.cpp reads one.
void write_index(const std::string& recording, const std::string& path) {
  const auto file = RecordingBytes::open(recording, "recording");
  const uint64_t first_chunk = RecordingReader(file).header_bytes();
  const auto index = read_recording_index(*file, first_chunk);
  if (!index) throw Error("'" + recording + "' has no chunk index");
  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.put(first_chunk);
  w.put(index->index_offset);
  w.put_bytes(Bytes(encode_index_body(*index)));
  write_bytes(path, out);
}

void write_raw_records(const std::string& path) {
  SeedStacks stacks;
  std::vector<uint8_t> raw;
  RecordEncoder encoder;
  for (const Record& r : seed_records(stacks)) {
    encoder.encode(r, raw);
    if (const auto* s = std::get_if<SampleView>(&r); s && s->off_cpu) RecordEncoder::encode_off_cpu_sample_time(*s, raw);
  }
  encoder.encode(EndRecord{R"({"samples": 6})"}, raw);
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
  if (!out) throw Error("cannot write '" + path + "'");
}

// A small archive (recording/binary_archive.h) of fixed bytes.
void write_archive(const std::string& path) {
  ArchiveWriter w(path);
  const std::string app = "\x7f" "ELF app bytes, repeated: " + std::string(200, 'a');
  w.add(ArchiveKind::kBinary, {0x12, 0x34, 0x56, 0x78}, "/usr/bin/app", Bytes(reinterpret_cast<const uint8_t*>(app.data()), app.size()));
  const std::string debug = "debuginfo of app";
  w.add(ArchiveKind::kDebuginfo, {0x12, 0x34, 0x56, 0x78}, "/usr/lib/debug/.build-id/12/345678.debug",
        Bytes(reinterpret_cast<const uint8_t*>(debug.data()), debug.size()));
  const std::string lib = "libz";
  w.add(ArchiveKind::kBinary, {0x9a}, "/lib/libz.so.1", Bytes(reinterpret_cast<const uint8_t*>(lib.data()), lib.size()));
  w.finish();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: seed_recordings DIR (DIR/recording, DIR/recording_index, DIR/record and DIR/archive must exist)\n";
    return kExitUsage;
  }
  const std::string dir = argv[1];
  try {
    write_recording(dir + "/recording/one_chunk.swprof", RecordingWriter::kDefaultChunkBytes, true);
    write_recording(dir + "/recording/two_chunks.swprof", 512, false);
    write_version3(dir + "/recording/version3.swprof");
    write_recording(dir + "/recording_index/one_chunk.swprof", RecordingWriter::kDefaultChunkBytes, true);
    write_index(dir + "/recording/one_chunk.swprof", dir + "/recording_index/one_chunk.index");
    write_raw_records(dir + "/record/all_types.bin");
    write_archive(dir + "/archive/two_files.archive");
  } catch (const Error& e) {
    std::cerr << "seed_recordings: " << e.what() << "\n";
    return e.exit_code();
  }
  return 0;
}
