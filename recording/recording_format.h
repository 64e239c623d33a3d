#pragma once
// The recording file (docs/recording-format.md):
//
//   magic     8 bytes  "\x89SWPROF\n"
//   version   u32      kRecordingVersion
//   hdr_len   u32
//   header    hdr_len bytes of JSON (RecordingHeader)
//   chunk*    u32 magic, u32 raw_size, u32 compressed_size, u32 record_count,
//             then one zstd frame (with content checksum) holding
//             record_count records (record_codec.h). Magic 'SWCK': records;
//             'SWCT' (version 4): the off-CPU timing records, kept apart so
//             that a report reads them before the others (recording_index.h)
//   index     a finished recording's last bytes (version 4): where each chunk
//             is and what it holds (recording_index.h)
//
// A chunk is written with a single write(2) once complete, so a file cut at
// any byte still reads up to its last whole chunk.

#include <cstdint>
#include <string>
#include <vector>

namespace swprof {

inline constexpr char kRecordingMagic[8] = {'\x89', 'S', 'W', 'P', 'R', 'O', 'F', '\n'};
// Version 2 added off-CPU data (switch records, off-CPU samples); version 3
// stack bytes read past a truncated copy (a sample's flag 16 and the size
// after its stored bytes); version 4 the off-CPU timing chunks and the chunk
// index at the end, and the words near a read-past copy's end that read
// differently then (a sample's flag 32, SampleView::beyond_changed), kept
// whatever they were. Versions 1 to 3 read as recordings without them (each
// report then reads the chunk headers and the off-CPU records apart).
inline constexpr uint32_t kRecordingVersion = 4;
inline constexpr uint32_t kOldestRecordingVersion = 1;
// perf record's output (perf.data, tools/perf/Documentation/perf.data-file-format.txt).
inline constexpr char kPerfDataMagic[8] = {'P', 'E', 'R', 'F', 'I', 'L', 'E', '2'};

// True when `head` (a file's first bytes) starts with kPerfDataMagic.
bool is_perf_data(const void* head, size_t size);
// The error for a perf.data file given to the reader of swprof's own
// recordings (open_record_source chooses the reader by the magic).
std::string perf_data_not_recording(const std::string& path);
// Bytes of user stack copied per sample: the default, and the most the
// kernel can give.
inline constexpr uint32_t kDefaultStackSize = 32768;
// The kernel stores a sample's size in a u16 header field; the largest user
// stack that fits beside the rest of the sample is 65528 bytes (as in perf).
inline constexpr uint32_t kMaxStackSize = 65528;
// The most user stack a recorder reads itself past a truncated copy
// (--stack-beyond, SampleView::stack_beyond): a sample holds at most
// kMaxStackSize + kMaxStackBeyond bytes, 576 KiB less 8. The recursion of
// clang++ -O2 on bench/template_heavy.cpp runs past 64 + 192 KiB.
inline constexpr uint32_t kMaxStackBeyond = 524288;
// The most of a copy's end the recorder reads again beside the bytes past it
// (SampleView::beyond_changed: one bit per 8 bytes, at most 1023 bytes): the
// whole copy but its first bytes past a multiple of 64, so that the
// outermost frame in it is seen however large the frame it lies in (x264's
// slice encoder has 31 KB).
inline constexpr uint32_t kMaxStackReread = kMaxStackSize / 64 * 64;
// The delay from a sample to that read, as recorded: later ones are this.
inline constexpr uint32_t kMaxStackReadDelayUs = 1'000'000'000;
inline constexpr uint32_t kDefaultStackBeyond = kMaxStackBeyond;

inline constexpr uint32_t kChunkMagic = 0x4b435753;        // "SWCK" little-endian
inline constexpr uint32_t kTimingChunkMagic = 0x54435753;  // "SWCT"
inline constexpr uint32_t kIndexChunkMagic = 0x58495753;   // "SWIX"
inline constexpr size_t kChunkHeaderSize = 16;
inline constexpr uint32_t kMaxChunkRawSize = 64u << 20;

// How switched-out threads were recorded (--off-cpu / --wall).
struct OffCpuSettings {
  uint32_t every = 1;         // a stack copied at most once per `every` switch-outs of a thread
  uint64_t min_ns = 0;        // shorter waits with a repeated stack are written as OffCpuRepeatRecord
  uint32_t stack_size = 0;    // user stack bytes copied per off-CPU sample
};

struct RecordingHeader {
  std::string mode;  // "record" or "attach"
  std::vector<std::string> command;
  int64_t target_pid = 0;  // attach: the PID; record: the launched child
  std::string event;
  uint32_t frequency = 0;
  uint64_t period = 0;
  uint32_t stack_size = 0;
  uint64_t regs_mask = 0;
  bool kernel_samples = false;
  std::string kernel_note;  // why kernel samples are off, when they are
  std::string host;
  std::string kernel_release;
  uint64_t start_unix_ns = 0;       // wall clock at start
  uint64_t start_monotonic_ns = 0;  // CLOCK_MONOTONIC at start (record times use this clock)
  std::string swprof_version;
  bool off_cpu = false;  // switch records and off-CPU samples present (off_cpu_settings apply)
  OffCpuSettings off_cpu_settings;
  // What reports weigh by default: "cpu" (on-CPU time or event counts),
  // "off-cpu" or "wall" (on-CPU + off-CPU time).
  std::string default_weight = "cpu";

  std::string to_json() const;
  static RecordingHeader from_json(const std::string& text);  // throws Error
};

// Fills host, kernel, start times and version for a new recording.
void stamp_header(RecordingHeader& header);

uint64_t monotonic_now_ns();

}  // namespace swprof
