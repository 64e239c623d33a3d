// Rewrites a recording's records, in the same order, with this swprof's
// writer (format version 4: off-CPU timing chunks and a chunk index), or
// with --v3 in the layout of version 3 (tests/support/recording_v3.h): the
// same recording in either layout, to compare how reports read them
// (bench/RESULTS.md). As the recorder does, the images written after the
// last sample start a chunk of their own.
//
//   swprof_recording_convert [--v3] IN OUT

#include <cstdio>
#include <string>

#include "common/error.h"
#include "recording/recording_reader.h"
#include "recording/recording_writer.h"
#include "support/recording_v3.h"

namespace {

using namespace swprof;

uint64_t count_samples(const std::string& path) {
  RecordingReader reader(path);
  uint64_t n = 0;
  while (auto r = reader.next()) n += std::holds_alternative<SampleView>(*r);
  return n;
}

template <typename Writer>
void convert(const std::string& in, const std::string& out) {
  const uint64_t samples = count_samples(in);
  RecordingReader reader(in);
  Writer writer(out, reader.header());
  uint64_t seen = 0;
  bool flushed = false;
  while (auto r = reader.next()) {
    if (std::holds_alternative<SampleView>(*r)) ++seen;
    if (seen == samples && !flushed && std::holds_alternative<ImageRecord>(*r)) {
      writer.flush();
      flushed = true;
    }
    if (const auto* end = std::get_if<EndRecord>(&*r)) {
      writer.finish(*end);
      return;
    }
    writer.write(*r);
  }
  writer.flush();  // not finalized: no end record
}

}  // namespace

int main(int argc, char** argv) {
  const bool v3 = argc == 4 && std::string(argv[1]) == "--v3";
  if (argc != 3 && !v3) {
    std::fprintf(stderr, "usage: swprof_recording_convert [--v3] IN OUT\n");
    return 2;
  }
  try {
    if (v3) convert<testing::RecordingV3Writer>(argv[2], argv[3]);
    else convert<RecordingWriter>(argv[1], argv[2]);
  } catch (const Error& e) {
    std::fprintf(stderr, "swprof_recording_convert: %s\n", e.what());
    return 1;
  }
  return 0;
}
