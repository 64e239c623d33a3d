#pragma once
// Where records come from: swprof's own recording (RecordingReader) or a
// perf.data file (PerfDataReader), behind one interface, so the pipeline,
// `info` and the unwinder read either. open_record_source() chooses by the
// file's magic.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "recording/recorded_kernel.h"
#include "recording/records.h"
#include "recording/recording_format.h"

namespace swprof {

struct ReadStatus {
  enum class State { kReading, kComplete, kTruncated, kCorrupt } state = State::kReading;
  uint64_t good_bytes = 0;   // bytes up to the end of the last good chunk
  uint64_t file_bytes = 0;
  uint64_t chunks = 0;       // good chunks read
  uint64_t records = 0;
  uint64_t unknown_records = 0;  // records of types this version does not know (skipped)
  uint64_t damaged_samples = 0;  // samples that could not be read, skipped (perf.data; a recording stops at damage)
  bool finalized = false;    // the end record was seen
  std::string problem;       // what stopped the read, for kTruncated / kCorrupt
  // Content read but not turned into records, by what it was (perf.data:
  // "samples of event 'X'", "record type 73", ...). Empty for recordings.
  std::map<std::string, uint64_t> skipped;

  bool ok() const { return state == State::kComplete; }
};

enum class SourceFormat { kRecording, kPerfData };

// An image a recording keeps, copied out of its record.
struct StoredImage {
  std::string name;
  std::vector<uint8_t> bytes;
};

class RecordSource {
 public:
  virtual ~RecordSource() = default;
  virtual const RecordingHeader& header() const = 0;
  // The next record, or nullopt at the end of the file or at the first damage.
  // Views inside the record stay valid until the next call.
  virtual std::optional<Record> next() = 0;
  virtual const ReadStatus& status() const = 0;
  virtual const std::string& path() const = 0;
  virtual SourceFormat format() const = 0;
  // The events the file holds, the reported one (header().event) first.
  virtual std::vector<std::string> events() const { return {header().event}; }
  // What the file tells of the kernel it was recorded on, so far (kernel
  // mappings come with the records, before the samples): perf.data only;
  // null for swprof's recordings, which keep their kernel symbols.
  virtual const RecordedKernel* recorded_kernel() const { return nullptr; }
  // Another reader of the same file from its start, sharing the open file.
  virtual std::unique_ptr<RecordSource> reread() const = 0;

  // What a report needs before the first record, asked before the first
  // next(); a reader that can reads it without reading anything twice.
  //
  // The images a recording keeps after its last samples (the kernel symbols
  // they hit, the perf maps' last lines), which name frames from the first
  // sample on (trailing_images.h). None by default (perf.data files).
  virtual std::vector<StoredImage> trailing_images() { return {}; }
  // Calls `each` with what pairing off-CPU samples with their waits needs:
  // the off-CPU samples (a reader that keeps them apart gives only their
  // time, pid and tid), the switch and off-CPU repeat records, and the end
  // record. Returns the latest time of a sample (on- or off-CPU), switch or
  // repeat record in the file. next() may then leave out the switch and
  // repeat records handed out here. By default a second reader reads the
  // whole file for them (reread()).
  virtual uint64_t read_off_cpu_records(const std::function<void(const Record&)>& each);
};

// True when the file at `path` starts with perf.data's magic.
bool is_perf_data_file(const std::string& path);

class RecordingBytes;
// A reader for an open file: a perf.data file by its magic, else a swprof
// recording.
std::unique_ptr<RecordSource> open_record_source(std::shared_ptr<const RecordingBytes> file);

// A reader for the file at `path`: a perf.data file by its magic, else a
// swprof recording. Throws Error as the readers' constructors do.
std::unique_ptr<RecordSource> open_record_source(const std::string& path);

}  // namespace swprof
