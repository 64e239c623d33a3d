#pragma once
// The images a recorder writes when it stops (the kernel symbols the samples
// hit, the JIT perf maps' last lines) follow the last samples in chunks of
// their own. A report needs them before it reads the first sample. A
// recording with a chunk index (recording_index.h) says where they are
// (RecordingReader::trailing_images); in one without (cut short, or written
// before version 4) this finds them without reading the samples, by walking
// the chunk headers (recording_format.h) and decoding only the chunks from
// the end back to the first one holding a sample.

#include <cstdint>
#include <string>
#include <vector>

#include "recording/record_source.h"

namespace swprof {

// The ImageRecords of the chunks after the recording's last sample (and of
// the chunk holding it), in file order. Best effort: a damaged or cut file
// gives what its whole chunks hold, and nothing (never an error) where the
// header or the chunks cannot be read. By the index when the file has one.
std::vector<StoredImage> read_trailing_images(const std::string& path);
// The same, walking the chunks of the file `source` has open (nothing for a
// perf.data file: its images come first, not last).
std::vector<StoredImage> read_trailing_images(const RecordSource& source);

}  // namespace swprof
