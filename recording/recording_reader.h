#pragma once
// Streams the records of a recording, one chunk at a time. Chunks are read
// and decompressed ahead, on a thread of their own (ChunkPrefetcher), while
// the caller decodes the records of the current one. A cut or damaged file
// yields every record up to its last good chunk; status() then says how far
// it got and why it stopped.
//
// Before the first next(), a report asks for the trailing images and the
// off-CPU records (RecordSource). In a finished recording of version 4 the
// chunk index (recording_index.h) says where they are: they are read first,
// and next() then reads the other chunks only, and hands over those already
// read without reading them again: every byte of the file is read once.
// Without an index (a recording cut short, or of an older version) they are
// found as before: by walking the chunk headers, and by reading the whole
// file once more for the off-CPU records.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "recording/chunk_loader.h"
#include "recording/record_codec.h"
#include "recording/record_source.h"
#include "recording/recording_bytes.h"
#include "recording/recording_format.h"
#include "recording/recording_index.h"

namespace swprof {

class RecordingReader final : public RecordSource {
 public:
  // Opens and checks the file header; throws Error when the file is missing,
  // not a recording, of an unsupported version, or has a damaged header.
  explicit RecordingReader(const std::string& path);
  // Reads a whole recording image held in memory (e.g. a fuzzer's input);
  // `name` stands for the path in messages. `image` must outlive the reader.
  RecordingReader(Bytes image, const std::string& name);
  // Reads an open file (shared with other readers) from its start; throws
  // as the constructors above.
  explicit RecordingReader(std::shared_ptr<const RecordingBytes> file);
  ~RecordingReader() override;

  const RecordingHeader& header() const override { return header_; }
  // The next record, or nullopt at the end of the file or at the first damage.
  // Views inside the record stay valid until the next call.
  std::optional<Record> next() override;
  const ReadStatus& status() const override { return status_; }
  const std::string& path() const override { return file_->path(); }
  SourceFormat format() const override { return SourceFormat::kRecording; }
  std::unique_ptr<RecordSource> reread() const override;
  std::vector<StoredImage> trailing_images() override;
  uint64_t read_off_cpu_records(const std::function<void(const Record&)>& each) override;
  const std::shared_ptr<const RecordingBytes>& file() const { return file_; }
  // Where the first chunk starts: the file header's size.
  uint64_t header_bytes() const { return header_bytes_; }
  uint32_t version() const { return version_; }

 private:
  void read_header();
  // The chunk index, read when first asked for before the first next();
  // null when there is none (or next() has begun).
  const RecordingIndex* index();
  // The chunk `i` of the index, read ahead and kept for next(); null when it
  // cannot be read (next() then reads it again, and stops there).
  const LoadedChunk* read_ahead(size_t i);
  // Decodes the records of a chunk read ahead; false at damage.
  bool decode_chunk(const LoadedChunk& chunk, const std::function<void(DecodeResult&)>& each) const;
  bool next_chunk();
  void stop(ReadStatus::State state, const std::string& problem);

  std::shared_ptr<const RecordingBytes> file_;
  RecordingHeader header_;
  ReadStatus status_;
  uint32_t version_ = 0;
  uint64_t header_bytes_ = 0;
  bool index_read_ = false;
  std::optional<RecordingIndex> index_;
  // What next() loads, once the index is read: the index's chunks, and those read ahead.
  std::shared_ptr<ChunkPlan> plan_;
  // Exactly one of these loads the chunks, from the first next() on: a
  // prefetcher for files, a loader on this thread for images in memory.
  std::unique_ptr<ChunkPrefetcher> prefetcher_;
  std::unique_ptr<ChunkLoader> loader_;
  std::unique_ptr<ChunkLoader> ahead_;  // reads chunks ahead of next(), before it begins
  std::unique_ptr<LoadedChunk> chunk_;  // the chunk being decoded
  ByteReader cursor_;
  uint32_t chunk_records_left_ = 0;
  RecordDecoder decoder_;
};

}  // namespace swprof
