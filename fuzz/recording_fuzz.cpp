// Fuzz target: a whole recording file image (header, then zstd chunks of
// records), read the way `swprof info` reads it. Most mutations break a
// chunk's zstd frame; record_fuzz.cpp reaches the record decoder directly.

#include "common/error.h"
#include "fuzz/fuzz_target.h"
#include "output/info_text.h"
#include "recording/recording_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    swprof::RecordingReader reader(swprof::Bytes(data, size), "fuzz.swprof");
    const swprof::RecordingInfo info = swprof::collect_info(reader);
    SWPROF_FUZZ_CHECK(info.status.state != swprof::ReadStatus::State::kReading);
    SWPROF_FUZZ_CHECK(info.status.good_bytes <= size);
    static_cast<void>(swprof::format_info(info));
  } catch (const swprof::Error&) {
    // A damaged header: rejected with a message, as it should be.
  }
  return 0;
}
