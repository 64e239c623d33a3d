// Fuzz target: the uncompressed contents of one recording chunk, a sequence
// of self-delimiting records (recording/record_codec.h) whose sample stacks are
// delta-coded per thread (recording/stack_delta.h). Every decoded record is
// encoded again and decoded by a second decoder: both must agree.

#include <algorithm>
#include <vector>

#include "fuzz/fuzz_target.h"
#include "recording/record_codec.h"

namespace {

using swprof::Bytes;

bool same_bytes(Bytes a, Bytes b) { return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin()); }

bool same_sample(const swprof::SampleView& a, const swprof::SampleView& b) {
  return a.time == b.time && a.pid == b.pid && a.tid == b.tid && a.cpu == b.cpu && a.period == b.period &&
         a.ip == b.ip && a.in_kernel == b.in_kernel && a.stack_truncated == b.stack_truncated && a.off_cpu == b.off_cpu &&
         a.stack_beyond == b.stack_beyond && same_bytes(a.beyond_changed, b.beyond_changed) &&
         a.beyond_delay_us == b.beyond_delay_us &&
         a.nregs == b.nregs &&
         a.abi == b.abi &&
         std::equal(a.regs.begin(), a.regs.begin() + a.nregs, b.regs.begin()) && same_bytes(a.kernel_chain, b.kernel_chain) &&
         same_bytes(a.stack, b.stack);
}

// Samples compare field by field (their stacks are views); other records by
// their re-encoded bytes, which is what the file holds.
bool same_record(const swprof::Record& a, const swprof::Record& b) {
  if (a.index() != b.index()) return false;
  if (const auto* s = std::get_if<swprof::SampleView>(&a)) return same_sample(*s, std::get<swprof::SampleView>(b));
  std::vector<uint8_t> ea, eb;
  swprof::RecordEncoder().encode(a, ea);
  swprof::RecordEncoder().encode(b, eb);
  return ea == eb;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  swprof::ByteReader in(Bytes(data, size));
  swprof::RecordDecoder decoder;
  swprof::RecordEncoder encoder;
  swprof::RecordDecoder again;
  std::vector<uint8_t> encoded;
  while (!in.at_end()) {
    const size_t before = in.offset();
    swprof::DecodeResult result = decoder.decode(in);
    if (result.status == swprof::DecodeResult::Status::kCorrupt) break;
    SWPROF_FUZZ_CHECK(in.offset() > before);
    if (result.status != swprof::DecodeResult::Status::kOk) continue;
    encoded.clear();
    if (result.type == swprof::RecordType::kOffCpuSampleTime)
      swprof::RecordEncoder::encode_off_cpu_sample_time(std::get<swprof::SampleView>(result.record), encoded);
    else
      encoder.encode(result.record, encoded);
    swprof::ByteReader round(Bytes(encoded.data(), encoded.size()));
    swprof::DecodeResult back = again.decode(round);
    SWPROF_FUZZ_CHECK(back.status == swprof::DecodeResult::Status::kOk && round.at_end());
    SWPROF_FUZZ_CHECK(back.type == result.type);
    SWPROF_FUZZ_CHECK(same_record(result.record, back.record));
  }
  return 0;
}
