#pragma once
// Streams the records of a recording, one chunk in memory at a time. A cut or
// damaged file yields every record up to its last good chunk; status() then
// says how far it got and why it stopped.

#include <zstd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/unique_fd.h"
#include "recording/record_codec.h"
#include "recording/record_source.h"
#include "recording/recording_format.h"

namespace swprof {

struct ZstdDCtxDeleter {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

class RecordingReader final : public RecordSource {
 public:
  // Opens and checks the file header; throws Error when the file is missing,
  // not a recording, of an unsupported version, or has a damaged header.
  explicit RecordingReader(const std::string& path);
  // Reads a whole recording image held in memory (e.g. a fuzzer's input);
  // `name` stands for the path in messages. `image` must outlive the reader.
  RecordingReader(Bytes image, const std::string& name);

  const RecordingHeader& header() const override { return header_; }
  // The next record, or nullopt at the end of the file or at the first damage.
  // Views inside the record stay valid until the next call.
  std::optional<Record> next() override;
  const ReadStatus& status() const override { return status_; }
  const std::string& path() const override { return path_; }
  SourceFormat format() const override { return SourceFormat::kRecording; }

 private:
  void read_header();
  bool load_chunk();
  void stop(ReadStatus::State state, const std::string& problem);
  // Reads exactly n bytes at the current offset; fewer means the file ended.
  size_t read_fully(void* dst, size_t n);
  // Bytes of the file after the current offset (UINT64_MAX when not a regular file).
  uint64_t bytes_left();

  std::string path_;
  UniqueFd fd_;
  std::optional<Bytes> image_;  // set when reading from memory instead of fd_
  RecordingHeader header_;
  ReadStatus status_;
  uint64_t offset_ = 0;
  std::vector<uint8_t> compressed_;
  std::vector<uint8_t> raw_;
  ByteReader cursor_;
  uint32_t chunk_records_left_ = 0;
  RecordDecoder decoder_;
  std::unique_ptr<ZSTD_DCtx, ZstdDCtxDeleter> dctx_;
};

}  // namespace swprof
