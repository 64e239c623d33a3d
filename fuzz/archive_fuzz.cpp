// Fuzz target: a binary archive (recording/binary_archive.h) read the way a
// report reads it: the header, trailer and index, then every entry small
// enough to decompress here.

#include "common/error.h"
#include "fuzz/fuzz_target.h"
#include "recording/binary_archive.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto archive = swprof::BinaryArchive::from_memory(swprof::Bytes(data, size), "fuzz.archive");
    for (const swprof::ArchiveEntry& e : archive->entries()) {
      SWPROF_FUZZ_CHECK(e.offset + e.compressed_size <= size);
      if (e.raw_size > (16u << 20)) continue;  // a real one is read whole, as the index says
      try {
        SWPROF_FUZZ_CHECK(archive->read(e).size() == e.raw_size);
      } catch (const swprof::Error&) {
        // A damaged copy: rejected with a message.
      }
    }
  } catch (const swprof::Error&) {
    // A damaged header, trailer or index: rejected with a message.
  }
  return 0;
}
