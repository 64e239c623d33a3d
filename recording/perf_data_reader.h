#pragma once
// Reads a perf.data file (`perf record`'s output; the kernel's
// tools/perf/Documentation/perf.data-file-format.txt) as a RecordSource:
// the header, attribute and feature sections first (RecordingHeader from
// them), then the data section streamed through a bounded buffer, one record
// at a time, PERF_RECORD_COMPRESSED (`perf record -z`) decompressed as a
// zstd stream whose state and partial record carry over from one
// compressed record to the next, and bounded: inflating more than 1000
// times the compressed bytes read (or beyond 64 GiB) stops the read there,
// as damage does. When perf recorded the build-id of a
// [vdso] equal to the running kernel's, an ImageRecord of it comes first.
// Samples of the first event (not perf's
// "dummy") are read; the rest, and anything else swprof does not use, is
// skipped and counted in status().skipped. Kernel and module mappings,
// skipped so, tell recorded_kernel() where the recorded kernel was.
// perf record writes a FINISHED_ROUND after each pass over its ring buffers;
// by perf's own rule (ordered events), records after the end of round N are
// no older than the newest record before the end of round N-1: that time
// comes as a FlushRecord.
//
// A file cut short yields its records up to the cut (status: truncated);
// damage in the data section stops the read there (status: corrupt); a
// damaged file header, attribute section or an empty data section throws Error.

#include <zstd.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/uninitialized_bytes.h"
#include "recording/perf_data_header.h"
#include "recording/perf_data_records.h"
#include "recording/record_source.h"
#include "recording/recording_bytes.h"

namespace swprof {

class PerfDataReader final : public RecordSource {
 public:
  explicit PerfDataReader(const std::string& path);
  // Reads a file image held in memory (a fuzzer's input); `image` must
  // outlive the reader.
  PerfDataReader(Bytes image, const std::string& name);
  // Reads an open file (shared with other readers) from its start.
  explicit PerfDataReader(std::shared_ptr<const RecordingBytes> file);
  ~PerfDataReader() override;

  const RecordingHeader& header() const override { return header_; }
  std::optional<Record> next() override;
  const ReadStatus& status() const override { return status_; }
  const std::string& path() const override { return path_; }
  SourceFormat format() const override { return SourceFormat::kPerfData; }
  std::vector<std::string> events() const override;
  std::unique_ptr<RecordSource> reread() const override;

  const RecordedKernel* recorded_kernel() const override { return &kernel_; }

  const PerfDataFeatures& features() const { return features_; }
  // Samples read without the unused end of their stack copy (next_sparse).
  uint64_t sparse_samples() const { return sparse_samples_; }

 private:
  struct ZstdStream;
  void open();
  size_t read_at(uint64_t offset, void* dst, size_t n) const;
  void read_attrs(const PerfFileHeader& h);
  std::vector<uint64_t> read_ids(PerfFileSection ids, uint64_t& ids_read) const;
  void read_features(const PerfFileHeader& h);
  void keep_vdso_if_recorded();
  void peek_kernel_mappings();
  void make_header();
  // The next raw record of the data section, or of the decompressed stream.
  std::optional<Bytes> next_from_file();
  std::optional<Bytes> next_decompressed();
  bool refill(size_t need);
  std::optional<Bytes> next_sparse(uint16_t size);
  bool record_bytes(size_t at, uint8_t* dst, size_t n) const;
  void note_need(Bytes raw);
  void start_decompressing(Bytes raw, uint32_t type);
  uint64_t inflation_room() const;
  bool skip_payload(Bytes raw, uint32_t type);
  std::optional<Record> take(Bytes raw);
  void attach_build_id(MappingRecord& m) const;
  void stop(ReadStatus::State state, const std::string& problem);
  std::string where() const;

  std::string path_;
  std::shared_ptr<const RecordingBytes> file_;
  uint64_t file_size_ = 0;
  RecordingHeader header_;
  ReadStatus status_;
  std::vector<PerfEventAttr> attrs_;
  size_t reported_ = 0;
  PerfDataFeatures features_;
  std::unique_ptr<PerfRecordParser> parser_;
  RecordedKernel kernel_;
  size_t peeked_kernel_mappings_ = 0;  // noted by peek_kernel_mappings, not to be noted again
  std::vector<uint8_t> vdso_;  // the running vDSO, when perf recorded its build-id
  bool vdso_given_ = false;
  uint64_t newest_ = 0;       // the newest record's time so far
  uint64_t round_newest_ = 0;  // newest_ at the last FINISHED_ROUND

  // The data section [data_at_, data_end_) and the window of it in buf_:
  // buf_[pos_, len_) holds file bytes from buf_offset_ + pos_ on.
  uint64_t data_at_ = 0;
  uint64_t data_end_ = 0;
  UninitializedBytes buf_;  // read into before it is read from: not zeroed first
  uint64_t buf_offset_ = 0;
  size_t pos_ = 0;
  size_t len_ = 0;
  // What a refill reads when it needs less: the whole buffer, but a little
  // only after a sparse read (next_sparse), until kSmallRun records in a row
  // are read otherwise.
  size_t window_ = 0;
  size_t small_run_ = 0;
  size_t last_need_ = 0;  // bytes the last large sample's parse needed
  uint64_t sparse_samples_ = 0;
  // The last large sample read without the unused part of its stack copy.
  UninitializedBytes sparse_;

  // Decompressed bytes waiting to be parsed: dec_[dec_head_, dec_tail_).
  std::unique_ptr<ZstdStream> zstd_;
  std::vector<uint8_t> comp_;  // the current compressed record's payload
  size_t comp_pos_ = 0;
  bool zstd_full_ = false;     // the last call filled the output: more may be buffered
  UninitializedBytes dec_;
  size_t dec_head_ = 0;
  size_t dec_tail_ = 0;
  uint64_t compressed_in_ = 0;     // compressed bytes handed to zstd so far
  uint64_t decompressed_out_ = 0;  // and what they inflated to
};

}  // namespace swprof
