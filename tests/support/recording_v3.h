#pragma once
// Writes records as swprof wrote recordings of format version 3 (and the
// versions before it): the header, then every record in one stream of
// 'SWCK' chunks -- switch and off-CPU repeat records among the others, no
// off-CPU sample time records -- and no chunk index at the end. Tests read
// such a file to check that the reader still takes the older layout.

#include <zstd.h>

#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "common/byte_reader.h"
#include "recording/record_codec.h"
#include "recording/recording_format.h"

namespace swprof::testing {

class RecordingV3Writer {
 public:
  RecordingV3Writer(const std::string& path, const RecordingHeader& header, size_t chunk_bytes = 1u << 20)
      : out_(path, std::ios::binary | std::ios::trunc), chunk_bytes_(chunk_bytes) {
    std::vector<uint8_t> head;
    ByteWriter w(head);
    w.put_bytes(Bytes(reinterpret_cast<const uint8_t*>(kRecordingMagic), sizeof kRecordingMagic));
    w.put(uint32_t{3});
    const std::string json = header.to_json();
    w.put(static_cast<uint32_t>(json.size()));
    w.put_bytes(Bytes(reinterpret_cast<const uint8_t*>(json.data()), json.size()));
    put(head);
  }
  ~RecordingV3Writer() { flush(); }

  void write(const Record& record) {
    const auto* sample = std::get_if<SampleView>(&record);
    if (sample && !sample->beyond_changed.empty()) {  // version 3 had no map of a copy's end (flag 32)
      SampleView older = *sample;
      older.beyond_changed = {};
      older.beyond_delay_us = 0;
      return write(older);
    }
    encoder_.encode(record, raw_);
    ++records_;
    if (raw_.size() >= chunk_bytes_) flush();
  }
  // As RecordingWriter::finish, without the index.
  void finish(const EndRecord& end) {
    write(end);
    flush();
  }
  void flush() {
    if (records_ == 0) return;
    std::vector<uint8_t> chunk(kChunkHeaderSize + ZSTD_compressBound(raw_.size()));
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    const size_t n = ZSTD_compress2(cctx, chunk.data() + kChunkHeaderSize, chunk.size() - kChunkHeaderSize,
                                    raw_.data(), raw_.size());
    ZSTD_freeCCtx(cctx);
    if (ZSTD_isError(n)) throw std::runtime_error(ZSTD_getErrorName(n));
    const uint32_t fields[4] = {kChunkMagic, static_cast<uint32_t>(raw_.size()), static_cast<uint32_t>(n), records_};
    std::memcpy(chunk.data(), fields, sizeof fields);
    chunk.resize(kChunkHeaderSize + n);
    put(chunk);
    raw_.clear();
    records_ = 0;
    encoder_.reset();
  }

 private:
  void put(const std::vector<uint8_t>& bytes) {
    out_.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out_.flush();
  }

  std::ofstream out_;
  size_t chunk_bytes_;
  std::vector<uint8_t> raw_;
  uint32_t records_ = 0;
  RecordEncoder encoder_;
};

}  // namespace swprof::testing
