// Fuzz target: a whole perf.data file image (header, attrs, data records,
// compressed records, feature sections), read the way `swprof info` reads it.

#include "common/error.h"
#include "fuzz/fuzz_target.h"
#include "output/info_text.h"
#include "recording/perf_data_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    swprof::PerfDataReader reader(swprof::Bytes(data, size), "fuzz.perf.data");
    const swprof::RecordingInfo info = swprof::collect_info(reader);
    SWPROF_FUZZ_CHECK(info.status.state != swprof::ReadStatus::State::kReading);
    SWPROF_FUZZ_CHECK(info.status.good_bytes <= size);
    static_cast<void>(swprof::format_info(info));
  } catch (const swprof::Error&) {
    // A damaged header: rejected with a message, as it should be.
  }
  return 0;
}
