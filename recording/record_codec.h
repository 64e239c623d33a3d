#pragma once
// Encoding of records inside a recording chunk (see docs/recording-format.md).
// Every record is self-delimiting:
//
//   u32 size   total bytes of the record, this header included
//   u16 type   RecordType
//   u16 flags  per-type bits
//   ...        body
//
// Sample stacks are delta-coded per thread (StackDeltaCoder), so a chunk must
// be decoded from its first record with a fresh coder.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "common/byte_reader.h"
#include "recording/recording_format.h"
#include "recording/records.h"
#include "recording/stack_delta.h"

namespace swprof {

enum class RecordType : uint16_t {
  kSample = 1,
  kMapping = 2,
  kComm = 3,
  kFork = 4,
  kExit = 5,
  kLost = 6,
  kThrottle = 7,
  kUnthrottle = 8,
  kImage = 9,
  kEnd = 10,
  kSwitch = 11,
  kOffCpuRepeat = 12,
  kFlush = 13,
  // Version 4, in off-CPU timing chunks only: an off-CPU sample's time and
  // thread, for the off-CPU pairing to read ahead of the sample itself.
  kOffCpuSampleTime = 14,
};

inline constexpr size_t kRecordHeaderSize = 8;
// Index of the stack pointer in SampleView::regs for kX86_64RegsMask.
inline constexpr size_t kSampleSpIndex = 7;

class RecordEncoder {
 public:
  void encode(const Record& record, std::vector<uint8_t>& out);
  // A kOffCpuSampleTime record of the off-CPU sample `s`.
  static void encode_off_cpu_sample_time(const SampleView& s, std::vector<uint8_t>& out);
  void reset() { stacks_.reset(); }

 private:
  void encode_sample(const SampleView& s, ByteWriter& w);
  StackDeltaCoder stacks_;
};

struct DecodeResult {
  enum class Status { kOk, kUnknownType, kCorrupt } status = Status::kCorrupt;
  // As stored: a kOffCpuSampleTime record decodes to a SampleView with only
  // its time, pid, tid and off_cpu set.
  RecordType type = RecordType::kSample;
  Record record;
};

class RecordDecoder {
 public:
  // Decodes the record at the reader's cursor and advances past it. Views in
  // the result stay valid until the next decode() (and while `r`'s buffer lives).
  DecodeResult decode(ByteReader& r);
  void reset() { stacks_.reset(); }
  // A sample claiming a larger stack than this is damaged: the recording's
  // --stack-size (from its header), never above kMaxStackSize.
  void set_max_stack_size(uint32_t bytes) { max_stack_size_ = std::min(bytes, kMaxStackSize); }

 private:
  // One handler per record type; each reads the body after the header.
  std::optional<Record> decode_body(ByteReader& r, RecordType type, uint16_t flags);
  std::optional<Record> decode_sample(ByteReader& r, uint16_t flags);
  static bool known_type(RecordType type);
  StackDeltaCoder stacks_;
  uint32_t max_stack_size_ = kMaxStackSize;
};

const char* record_type_name(RecordType type);
// The type a record is stored as.
RecordType record_type_of(const Record& record);

}  // namespace swprof
