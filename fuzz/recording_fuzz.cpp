// Fuzz target: a whole recording file image (header, zstd chunks of records,
// the chunk index), read the way a report reads it first -- the trailing
// images and the off-CPU records, by the index when there is one -- then the
// way `swprof info` reads the rest. Most mutations break a chunk's zstd
// frame; record_fuzz.cpp reaches the record decoder directly, and
// recording_index_fuzz.cpp the index.

#include "common/error.h"
#include "fuzz/fuzz_target.h"
#include "output/info_text.h"
#include "recording/recording_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    swprof::RecordingReader reader(swprof::Bytes(data, size), "fuzz.swprof");
    static_cast<void>(reader.trailing_images());
    uint64_t records = 0;
    static_cast<void>(reader.read_off_cpu_records([&](const swprof::Record&) { ++records; }));
    const swprof::RecordingInfo info = swprof::collect_info(reader);
    SWPROF_FUZZ_CHECK(info.status.state != swprof::ReadStatus::State::kReading);
    SWPROF_FUZZ_CHECK(info.status.good_bytes <= size);
    static_cast<void>(swprof::format_info(info));
  } catch (const swprof::Error&) {
    // A damaged header: rejected with a message, as it should be.
  }
  return 0;
}
