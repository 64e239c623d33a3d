// Where a recording's bytes go: for each kind of record, and for samples
// each part of them, the bytes once decompressed and what that part costs
// compressed on its own: each chunk's records are split into one stream per
// part, and each stream is compressed apart as the writer compresses a chunk
// (zstd level 3). The parts' compressed sizes add up to about the file's
// (zstd finds less to share across parts, a little more within each).
//
//   swprof_recording_bytes RECORDING
//
// Also prints what two codings of the same values would cost, compressed
// the same way: the registers XORed with the previous sample's of the same
// thread in the chunk (unchanged registers become zeros), and the time as
// the difference from the previous sample's.

#include <zstd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/byte_reader.h"
#include "common/error.h"
#include "recording/chunk_loader.h"
#include "recording/record_codec.h"
#include "recording/recording_reader.h"

namespace {

using namespace swprof;

struct Part {
  uint64_t raw = 0;
  uint64_t compressed = 0;
};

class Streams {
 public:
  std::vector<uint8_t>& operator[](const std::string& name) { return streams_[name]; }
  // Compresses each stream of the chunk and adds it to `parts`.
  void flush(std::map<std::string, Part>& parts) {
    for (auto& [name, bytes] : streams_) {
      if (bytes.empty()) continue;
      std::vector<uint8_t> out(ZSTD_compressBound(bytes.size()));
      const size_t n = ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), 3);
      if (ZSTD_isError(n)) throw Error("zstd failed");
      parts[name].raw += bytes.size();
      parts[name].compressed += n;
      bytes.clear();
    }
  }

 private:
  std::map<std::string, std::vector<uint8_t>> streams_;
};

void append(std::vector<uint8_t>& to, Bytes bytes) { to.insert(to.end(), bytes.begin(), bytes.end()); }

// One sample's encoded body (record_codec.cpp), split into parts.
struct SampleSplitter {
  std::unordered_map<uint32_t, std::vector<uint64_t>> last_regs;  // by tid, this chunk
  std::unordered_map<uint32_t, uint64_t> last_time;

  void split(Bytes body, Streams& s) {
    ByteReader r(body);
    const auto fixed = r.bytes(44);
    if (!fixed) return;
    uint64_t time;
    uint32_t tid;
    uint16_t nregs, nkernel;
    std::memcpy(&time, fixed->data(), 8);
    std::memcpy(&tid, fixed->data() + 12, 4);
    std::memcpy(&nregs, fixed->data() + 40, 2);
    std::memcpy(&nkernel, fixed->data() + 42, 2);
    append(s["sample: time"], fixed->subspan(0, 8));
    append(s["sample: pid, tid, cpu, abi"], fixed->subspan(8, 16));
    append(s["sample: period"], fixed->subspan(24, 8));
    append(s["sample: ip"], fixed->subspan(32, 8));
    append(s["sample: nregs, nkernel"], fixed->subspan(40, 4));
    const auto regs = r.bytes(size_t{nregs} * 8);
    const auto kernel = r.bytes(size_t{nkernel} * 8);
    const auto sizes = r.bytes(8);
    if (!regs || !kernel || !sizes) return;
    uint32_t stored;
    std::memcpy(&stored, sizes->data() + 4, 4);
    const auto stack = r.bytes(stored);
    if (!stack) return;
    append(s["sample: registers"], *regs);
    append(s["sample: kernel chain"], *kernel);
    append(s["sample: stack sizes"], *sizes);
    append(s["sample: stack (delta-coded)"], *stack);
    append(s["sample: stack beyond"], r.bytes(r.remaining()).value_or(Bytes()));
    what_if(time, tid, *regs, s);
  }

  void what_if(uint64_t time, uint32_t tid, Bytes regs, Streams& s) {
    std::vector<uint64_t> values(regs.size() / 8);
    std::memcpy(values.data(), regs.data(), values.size() * 8);
    std::vector<uint64_t>& prev = last_regs[tid];
    std::vector<uint8_t>& x = s["what if: registers XOR previous of thread"];
    for (size_t i = 0; i < values.size(); ++i) {
      const uint64_t v = values[i] ^ (i < prev.size() ? prev[i] : 0);
      const size_t at = x.size();
      x.resize(at + 8);
      std::memcpy(x.data() + at, &v, 8);
    }
    std::vector<uint8_t>& v = s["what if: registers - previous of thread (zigzag LEB128)"];
    for (size_t i = 0; i < values.size(); ++i) {
      const auto diff = static_cast<int64_t>(values[i] - (i < prev.size() ? prev[i] : 0));
      uint64_t z = (static_cast<uint64_t>(diff) << 1) ^ static_cast<uint64_t>(diff >> 63);
      do {
        v.push_back(static_cast<uint8_t>((z & 0x7f) | (z > 0x7f ? 0x80 : 0)));
        z >>= 7;
      } while (z);
    }
    std::vector<uint8_t>& c = s["what if: registers without FLAGS, CS, SS"];
    for (size_t i = 0; i < values.size(); ++i) {
      if (i >= 9 && i <= 11) continue;  // FLAGS CS SS in kX86_64RegsMask order
      const size_t at = c.size();
      c.resize(at + 8);
      std::memcpy(c.data() + at, &values[i], 8);
    }
    prev = values;
    const uint64_t delta = time - last_time[tid];
    last_time[tid] = time;
    std::vector<uint8_t>& d = s["what if: time - previous of thread (8 bytes)"];
    const size_t at = d.size();
    d.resize(at + 8);
    std::memcpy(d.data() + at, &delta, 8);
  }
};

// What-ifs that need the decoded samples of a chunk: the registers stored
// column by column (each register of every sample, then the next), and the
// stacks stored whole (no delta: zstd finds what repeats).
void decoded_what_ifs(const LoadedChunk& chunk, uint32_t stack_size, Streams& s) {
  RecordDecoder decoder;
  if (stack_size) decoder.set_max_stack_size(stack_size);
  ByteReader r(Bytes(chunk.raw.data(), chunk.raw.size()));
  std::vector<std::vector<uint64_t>> columns;
  std::vector<uint8_t>& whole = s["what if: stack whole (no delta)"];
  for (uint32_t i = 0; i < chunk.count; ++i) {
    DecodeResult d = decoder.decode(r);
    if (d.status == DecodeResult::Status::kCorrupt) break;
    const auto* sample = std::get_if<SampleView>(&d.record);
    if (d.status != DecodeResult::Status::kOk || !sample || d.type != RecordType::kSample) continue;
    if (columns.size() < sample->nregs) columns.resize(sample->nregs);
    for (uint32_t k = 0; k < sample->nregs; ++k) columns[k].push_back(sample->regs[k]);
    append(whole, sample->stack);
  }
  std::vector<uint8_t>& c = s["what if: registers column by column"];
  for (const auto& column : columns)
    append(c, Bytes(reinterpret_cast<const uint8_t*>(column.data()), column.size() * 8));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: swprof_recording_bytes RECORDING\n");
    return 2;
  }
  try {
    const auto file = RecordingBytes::open(argv[1], "recording");
    const RecordingReader reader(file);
    ChunkLoader loader(file, reader.header_bytes(), file->size());
    std::map<std::string, Part> parts;
    std::map<std::string, uint64_t> records;
    uint64_t samples = 0;
    std::map<int, std::pair<uint64_t, double>> whole;  // zstd level -> bytes, seconds of the whole chunks
    for (;;) {
      LoadedChunk chunk;
      loader.load(chunk);
      if (!chunk.good()) break;
      Streams s;
      SampleSplitter splitter;
      ByteReader r(Bytes(chunk.raw.data(), chunk.raw.size()));
      for (uint32_t i = 0; i < chunk.count; ++i) {
        const auto size = r.read<uint32_t>();
        if (!size || *size < kRecordHeaderSize) break;
        const auto rest = r.bytes(*size - 4);
        if (!rest) break;
        uint16_t type;
        std::memcpy(&type, rest->data(), 2);
        const std::string name = record_type_name(static_cast<RecordType>(type));
        ++records[name];
        append(s["record headers (all kinds)"], Bytes(reinterpret_cast<const uint8_t*>(&*size), 4));
        append(s["record headers (all kinds)"], rest->subspan(0, 4));
        const Bytes body = rest->subspan(4);
        if (type == static_cast<uint16_t>(RecordType::kSample)) {
          ++samples;
          splitter.split(body, s);
        } else {
          append(s[name + " records"], body);
        }
      }
      decoded_what_ifs(chunk, reader.header().stack_size, s);
      s.flush(parts);
      for (int level : {1, 3, 6, 9, 12}) {
        std::vector<uint8_t> out(ZSTD_compressBound(chunk.raw.size()));
        const auto t0 = std::chrono::steady_clock::now();
        const size_t n = ZSTD_compress(out.data(), out.size(), chunk.raw.data(), chunk.raw.size(), level);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        whole[level].first += ZSTD_isError(n) ? 0 : n;
        whole[level].second += secs;
      }
    }
    const uint64_t size = file->size();
    std::printf("%s: %" PRIu64 " bytes, %" PRIu64 " samples, %.1f bytes/sample\n\n", argv[1], size, samples,
                samples ? static_cast<double>(size) / static_cast<double>(samples) : 0.0);
    std::printf("| part | records | raw bytes | raw/sample | compressed apart | compressed/sample |\n|---|---|---|---|---|---|\n");
    uint64_t raw_total = 0, compressed_total = 0;
    for (const auto& [name, p] : parts) {
      const bool what_if = name.starts_with("what if");
      if (!what_if) {
        raw_total += p.raw;
        compressed_total += p.compressed;
      }
      const std::string kind = name.substr(0, name.find(' '));
      const auto n = records.find(kind.back() == ':' ? kind.substr(0, kind.size() - 1) : kind);
      std::printf("| %s | %s | %" PRIu64 " | %.1f | %" PRIu64 " | %.1f |\n", name.c_str(),
                  n != records.end() ? std::to_string(n->second).c_str() : "", p.raw,
                  static_cast<double>(p.raw) / static_cast<double>(samples), p.compressed,
                  static_cast<double>(p.compressed) / static_cast<double>(samples));
    }
    std::printf("| all parts (but what if) | | %" PRIu64 " | %.1f | %" PRIu64 " | %.1f |\n", raw_total,
                static_cast<double>(raw_total) / static_cast<double>(samples), compressed_total,
                static_cast<double>(compressed_total) / static_cast<double>(samples));
    std::printf("\nThe whole chunks at other zstd levels (the writer uses 3):\n\n| level | bytes/sample | compress seconds |\n|---|---|---|\n");
    for (const auto& [level, w] : whole)
      std::printf("| %d | %.1f | %.3f |\n", level, static_cast<double>(w.first) / static_cast<double>(samples), w.second);
  } catch (const Error& e) {
    std::fprintf(stderr, "swprof_recording_bytes: %s\n", e.what());
    return 1;
  }
  return 0;
}
