#include "recording/perf_data_reader.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "common/error.h"
#include "recording/build_id.h"

namespace swprof {
namespace {

constexpr size_t kFileBuffer = 1u << 20;     // holds any record (at most 64 KiB: a u16 size)
constexpr size_t kDecompressed = 256u << 10;
// Samples this large are read without the unused end of their stack copy
// (next_sparse), with at least kSparseHead bytes of their start at hand,
// when they are kSparseGain times what the last one needed (below that, a
// read per sample costs more than the copying it saves: 16 KB copies of
// 6.6 KB of stack read 30 % slower so); after one, refills read about what
// the next needs, until kSmallRun records in a row are read otherwise.
constexpr size_t kSparseMin = 16u << 10;
constexpr size_t kSparseGain = 3;
constexpr size_t kSparseHead = 4u << 10;
constexpr size_t kSmallRun = 64;
constexpr uint64_t kMinAttrSize = PERF_ATTR_SIZE_VER0 + 16;
constexpr uint64_t kMaxAttrSize = 4096;
constexpr uint64_t kMaxEvents = 1024;
// Sample ids over all events: perf writes one per event and ring buffer
// (CPU, or thread with --per-thread).
constexpr uint64_t kMaxIds = 1u << 20;
constexpr uint64_t kMaxFeatureSize = 16u << 20;
// Compressed records (perf record -z) inflate at most this many times the
// compressed bytes read so far, and to at most kMaxDecompressed in all: a
// real recording inflates about 120 times, while a zstd stream can inflate
// 30,000 times (an 18 KB record made 8 M samples).
constexpr uint64_t kMaxInflation = 1000;
constexpr uint64_t kMaxDecompressed = uint64_t{64} << 30;

// The bytes of a stack copy of `copy_size` that a sample read in parts
// keeps: dyn_size + 8 (more than dyn_size, so the copy still reads as not
// full), all of it when all of it is stack (or it claims more: damaged, as
// the parser then says).
size_t copy_kept(uint64_t copy_size, uint64_t dyn) {
  return static_cast<size_t>(dyn < copy_size ? std::min(copy_size, dyn + 8) : copy_size);
}

uint16_t record_size(const uint8_t* header) {
  uint16_t size;
  std::memcpy(&size, header + 6, 2);
  return size;
}

uint32_t record_type(Bytes raw) {
  uint32_t type;
  std::memcpy(&type, raw.data(), 4);
  return type;
}

// perf names events with their modifiers ("cpu-clock:ppp", "cycles:u");
// reports know the event itself.
std::string without_modifiers(const std::string& name) {
  const size_t colon = name.rfind(':');
  if (colon == std::string::npos || colon + 1 == name.size()) return name;
  const bool modifiers = name.find_first_not_of("ukhIGHpPSDeWb", colon + 1) == std::string::npos;
  return modifiers ? name.substr(0, colon) : name;
}

// The profiled command: what follows "--" in perf's command line, else the
// whole line.
std::vector<std::string> profiled_command(const std::vector<std::string>& cmdline) {
  const auto dashes = std::find(cmdline.begin(), cmdline.end(), "--");
  if (dashes == cmdline.end() || dashes + 1 == cmdline.end()) return cmdline;
  return std::vector<std::string>(dashes + 1, cmdline.end());
}

// This process's vDSO: the running kernel's.
std::vector<uint8_t> running_vdso() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (!line.ends_with("[vdso]")) continue;
    unsigned long start = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &start, &end) != 2 || end <= start) return {};
    const auto* p = reinterpret_cast<const uint8_t*>(start);
    return std::vector<uint8_t>(p, p + (end - start));
  }
  return {};
}

bool inside(PerfFileSection s, uint64_t file_size) { return s.offset <= file_size && s.size <= file_size - s.offset; }

}  // namespace

struct PerfDataReader::ZstdStream {
  ZSTD_DCtx* ctx = ZSTD_createDCtx();
  ~ZstdStream() { ZSTD_freeDCtx(ctx); }
};

PerfDataReader::PerfDataReader(const std::string& path)
    : PerfDataReader(RecordingBytes::open(path, "perf.data file")) {}

PerfDataReader::PerfDataReader(Bytes image, const std::string& name)
    : PerfDataReader(RecordingBytes::in_memory(image, name)) {}

PerfDataReader::PerfDataReader(std::shared_ptr<const RecordingBytes> file)
    : path_(file->path()), file_(std::move(file)), file_size_(file_->size_at_open()) {
  open();
}

PerfDataReader::~PerfDataReader() = default;

std::unique_ptr<RecordSource> PerfDataReader::reread() const { return std::make_unique<PerfDataReader>(file_); }

size_t PerfDataReader::read_at(uint64_t offset, void* dst, size_t n) const {
  if (offset >= file_size_ || n == 0) return 0;
  n = static_cast<size_t>(std::min<uint64_t>(n, file_size_ - offset));
  return file_->read_at(dst, n, offset);
}

void PerfDataReader::open() {
  status_.file_bytes = file_size_;
  uint8_t raw[kPerfFileHeaderSize];
  const size_t got = read_at(0, raw, sizeof raw);
  auto h = parse_perf_file_header(Bytes(raw, got));
  if (got >= 16 && !h && raw[8] == kPerfPipeHeaderSize && std::all_of(raw + 9, raw + 16, [](uint8_t b) { return !b; }))
    throw Error("'" + path_ + "' is perf.data written to a pipe (perf record -o -); swprof reads perf.data files");
  if (!h) throw Error("perf.data file '" + path_ + "' is cut inside its header");
  if (h->size == kPerfPipeHeaderSize)
    throw Error("'" + path_ + "' is perf.data written to a pipe (perf record -o -); swprof reads perf.data files");
  if (h->size != kPerfFileHeaderSize || h->attr_size < kMinAttrSize || h->attr_size > kMaxAttrSize ||
      h->attrs.size % h->attr_size || h->attrs.size / h->attr_size > kMaxEvents || h->attrs.size == 0)
    throw Error("perf.data file '" + path_ + "' has a damaged header");
  if (!inside(h->attrs, file_size_)) throw Error("perf.data file '" + path_ + "' is cut inside its attribute section");
  if (h->data.offset >= file_size_) throw Error("perf.data file '" + path_ + "' is cut before its data");
  read_attrs(*h);
  read_features(*h);
  keep_vdso_if_recorded();
  if (auto it = features_.build_ids.find("[kernel.kallsyms]"); it != features_.build_ids.end())
    kernel_.build_id = it->second;
  data_at_ = h->data.offset;
  // perf writes the data size last: 0 in a file whose perf was killed.
  const uint64_t declared = h->data.size ? h->data.size : file_size_ - data_at_;
  data_end_ = data_at_ + std::min(declared, file_size_ - data_at_);
  if (data_end_ - data_at_ < declared) status_.problem = "file ends inside the data section";
  buf_offset_ = data_at_;
  status_.good_bytes = data_at_;
  buf_.resize(kFileBuffer);
  window_ = kFileBuffer;
  make_header();
  parser_ = std::make_unique<PerfRecordParser>(attrs_, reported_, features_.arch.empty() || features_.arch == "x86_64");
  peek_kernel_mappings();
}

// perf writes the kernel's mapping and its modules' first in the data,
// among records of its own and before any process's: they are read here,
// so that recorded_kernel() is known from the start (and the kernel's
// symbols can be read while the first samples are). The peek counts only
// when it ends at another record or at the data's end: cut short (by
// kPeekBytes, or compressed data), it could miss modules, which are then
// noted as read.
// When read in turn, the peeked mappings (the file's first kernel mappings)
// are not noted again.
void PerfDataReader::peek_kernel_mappings() {
  constexpr uint64_t kPeekBytes = 256u << 10;
  UninitializedBytes head(static_cast<size_t>(std::min(kPeekBytes, data_end_ - data_at_)));
  head.resize(read_at(data_at_, head.data(), head.size()));
  const bool whole = head.size() == data_end_ - data_at_;  // the data section is no longer
  RecordedKernel peeked = kernel_;
  size_t count = 0;
  for (size_t at = 0;;) {
    if (head.size() - at < 8 || record_size(head.data() + at) > head.size() - at) {
      if (!whole) return;  // the peek ends before the mappings may
      break;
    }
    const uint16_t size = record_size(head.data() + at);
    if (size < 8) break;
    const Bytes raw(head.data() + at, size);
    const uint32_t type = record_type(raw);
    if (type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2) {
      PerfParsed parsed = parser_->parse(raw);
      if (!parsed.kernel_mapping) break;
      peeked.add_mapping(*parsed.kernel_mapping);
      ++count;
    } else if (type == kPerfRecordCompressed || type == kPerfRecordCompressed2) {
      return;
    } else if (type < kPerfUserTypeStart || type == kPerfRecordAuxtrace || type == kPerfRecordTracingData) {
      break;  // a process's record, or one with a payload after it
    }
    at += size;
  }
  kernel_ = std::move(peeked);
  peeked_kernel_mappings_ = count;
}

// `ids_read` counts the ids read so far, over every event.
std::vector<uint64_t> PerfDataReader::read_ids(PerfFileSection ids, uint64_t& ids_read) const {
  if (!inside(ids, file_size_) || ids.size / 8 > kMaxIds - ids_read)
    throw Error("perf.data file '" + path_ + "' has a damaged attribute section (more than " +
                std::to_string(kMaxIds) + " sample ids)");
  std::vector<uint64_t> out(ids.size / 8);
  if (read_at(ids.offset, out.data(), out.size() * 8) != out.size() * 8)
    throw Error("perf.data file '" + path_ + "' is cut inside its attribute section");
  ids_read += out.size();
  return out;
}

// An id list that an earlier event names too is read once: its ids are the
// first event's (as the parser, which takes the first, would have them).
void PerfDataReader::read_attrs(const PerfFileHeader& h) {
  std::vector<uint8_t> raw(h.attr_size);
  std::vector<std::pair<uint64_t, uint64_t>> lists_read;  // {offset, size} of each id list read
  uint64_t ids_read = 0;
  for (uint64_t at = h.attrs.offset; at < h.attrs.offset + h.attrs.size; at += h.attr_size) {
    if (read_at(at, raw.data(), raw.size()) != raw.size())
      throw Error("perf.data file '" + path_ + "' is cut inside its attribute section");
    auto attr = parse_perf_event_attr(Bytes(raw.data(), raw.size() - 16));
    if (!attr) throw Error("perf.data file '" + path_ + "' has a damaged attribute section");
    PerfFileSection ids;
    std::memcpy(&ids, raw.data() + raw.size() - 16, 16);
    const std::pair<uint64_t, uint64_t> list{ids.offset, ids.size};
    if (std::find(lists_read.begin(), lists_read.end(), list) == lists_read.end()) {
      attr->ids = read_ids(ids, ids_read);
      lists_read.push_back(list);
    }
    attrs_.push_back(std::move(*attr));
  }
}

void PerfDataReader::read_features(const PerfFileHeader& h) {
  // The section table follows the data; a file cut earlier has none.
  const uint64_t table_at = h.data.offset + h.data.size;
  size_t count = 0;
  for (uint64_t word : h.features) count += static_cast<size_t>(std::popcount(word));
  if (!h.data.size || table_at < h.data.offset || table_at > file_size_ || count * 16 > file_size_ - table_at) {
    if (count) ++status_.skipped["feature sections (the file ends before them)"];
    return;
  }
  std::vector<PerfFileSection> table(count);
  read_at(table_at, table.data(), count * 16);
  size_t i = 0;
  std::vector<uint8_t> raw;
  for (unsigned bit = 0; bit < 256; ++bit) {
    if (!h.has_feature(bit)) continue;
    const PerfFileSection s = table[i++];
    if (!inside(s, file_size_) || s.size > kMaxFeatureSize) {
      ++status_.skipped["damaged feature sections"];
      continue;
    }
    raw.resize(s.size);
    read_at(s.offset, raw.data(), raw.size());
    if (!parse_perf_feature(bit, Bytes(raw.data(), raw.size()), features_)) ++status_.skipped["damaged feature sections"];
  }
  if (features_.event_names.size() == attrs_.size())
    for (size_t e = 0; e < attrs_.size(); ++e) attrs_[e].name = features_.event_names[e];
}

// perf.data holds no copy of the [vdso] (perf keeps it in ~/.debug); the
// running kernel's serves when its build-id is the one perf recorded.
void PerfDataReader::keep_vdso_if_recorded() {
  const auto it = features_.build_ids.find("[vdso]");
  if (it == features_.build_ids.end()) return;
  vdso_ = running_vdso();
  const std::optional<BuildId> id = read_build_id(Bytes(vdso_.data(), vdso_.size()));
  if (!id || *id != it->second) vdso_.clear();
}

void PerfDataReader::make_header() {
  for (size_t e = 0; e < attrs_.size(); ++e)
    if (!attrs_[e].is_dummy()) {
      reported_ = e;
      break;
    }
  const PerfEventAttr& a = attrs_[reported_];
  header_.mode = "perf record";
  header_.command = profiled_command(features_.cmdline);
  header_.event = without_modifiers(a.name);
  if (a.freq) header_.frequency = static_cast<uint32_t>(std::min<uint64_t>(a.sample_period, UINT32_MAX));
  else header_.period = a.sample_period;
  header_.stack_size = std::min(a.sample_stack_user, kMaxStackSize);
  header_.regs_mask = a.sample_regs_user;
  header_.kernel_samples = !a.exclude_kernel;
  header_.host = features_.hostname;
  header_.kernel_release = features_.os_release;
  // perf's clock, not CLOCK_MONOTONIC: relative times need only agree with the samples'.
  header_.start_monotonic_ns = features_.first_sample_time;
}

std::vector<std::string> PerfDataReader::events() const {
  std::vector<std::string> names{attrs_[reported_].name};
  for (size_t e = 0; e < attrs_.size(); ++e)
    if (e != reported_) names.push_back(attrs_[e].name);
  return names;
}

void PerfDataReader::stop(ReadStatus::State state, const std::string& problem) {
  status_.state = state;
  status_.problem = problem;
}

std::string PerfDataReader::where() const { return "at byte " + std::to_string(buf_offset_ + pos_); }

bool PerfDataReader::refill(size_t need) {
  if (pos_) {
    std::memmove(buf_.data(), buf_.data() + pos_, len_ - pos_);
    buf_offset_ += pos_;
    len_ -= pos_;
    pos_ = 0;
  }
  const uint64_t file_at = buf_offset_ + len_;
  if (file_at < data_end_) {
    const size_t room = buf_.size() - len_;
    const size_t at_least = need > len_ ? need - len_ : 0;
    const size_t want =
        static_cast<size_t>(std::min<uint64_t>(std::min(room, std::max(window_, at_least)), data_end_ - file_at));
    len_ += read_at(file_at, buf_.data() + len_, want);
  }
  return len_ >= need;
}

// Copies bytes [at, at + n) of the record that starts at buf_[pos_] (of
// which buf_ holds len_ - pos_): from the buffer, and the rest from the
// file. False when the data section ends first.
bool PerfDataReader::record_bytes(size_t at, uint8_t* dst, size_t n) const {
  const size_t have = len_ - pos_;
  size_t done = 0;
  if (at < have) {
    done = std::min(n, have - at);
    std::memcpy(dst, buf_.data() + pos_ + at, done);
  }
  if (done == n) return true;
  const uint64_t from = buf_offset_ + pos_ + at + done;
  if (from > data_end_ || n - done > data_end_ - from) return false;
  return read_at(from, dst + done, n - done) == n - done;
}

// perf copies the whole --call-graph dwarf size of stack into every sample,
// of which dyn_size bytes hold stack (6.6 KB of 32 KB on average for xz):
// a large sample not yet in the buffer is read without the rest, as a
// record of the same layout whose copy is cut after dyn_size + 8 bytes (so
// that it still reads as not full). The buffer then goes on from the bytes
// after the copy (dyn_size, any later fields, and the next records), so a
// sample costs one read, more when its start or its stack is larger than
// the last one's.
// nullopt: read it whole (another record, or a damaged one, which the
// parser then reports), unless the reader stopped (the file ends inside).
std::optional<Bytes> PerfDataReader::next_sparse(uint16_t size) {
  const uint64_t record_at = buf_offset_ + pos_;
  if (record_at > data_end_ || size > data_end_ - record_at) return std::nullopt;
  if (sparse_.size() < size) sparse_.resize(UINT16_MAX + 1);
  const size_t have = std::min<size_t>(size, std::max(len_ - pos_, kSparseHead));
  if (!record_bytes(0, sparse_.data(), have)) return std::nullopt;
  const std::optional<size_t> copy_at = parser_->user_stack_offset(Bytes(sparse_.data(), have));
  if (!copy_at) return std::nullopt;
  uint64_t copy_size = 0;
  std::memcpy(&copy_size, sparse_.data() + *copy_at, 8);
  const size_t data_at = *copy_at + 8;
  if (copy_size == 0 || copy_size > size - data_at || size - data_at - copy_size < 8) return std::nullopt;
  const size_t tail_at = data_at + static_cast<size_t>(copy_size);  // dyn_size, then any later fields
  const size_t tail = size - tail_at;
  const auto cut = [&] {
    stop(ReadStatus::State::kTruncated, "file ends inside a record at byte " + std::to_string(record_at));
    return std::nullopt;
  };
  buf_offset_ = record_at + tail_at;  // the buffer goes on from the tail
  pos_ = len_ = 0;
  if (window_ == kFileBuffer) window_ = 4 * kSparseHead;  // the first: not a whole buffer of samples
  if (!refill(tail)) return cut();
  uint64_t dyn = 0;
  std::memcpy(&dyn, buf_.data(), 8);
  const size_t kept = copy_kept(copy_size, dyn);
  if (data_at + kept > have &&
      read_at(record_at + have, sparse_.data() + have, data_at + kept - have) != data_at + kept - have)
    return cut();
  std::memcpy(sparse_.data() + data_at + kept, buf_.data(), tail);
  pos_ = tail;
  const size_t new_size = data_at + kept + tail;
  const auto size16 = static_cast<uint16_t>(new_size);
  const uint64_t kept64 = kept;
  std::memcpy(sparse_.data() + offsetof(perf_event_header, size), &size16, sizeof size16);
  std::memcpy(sparse_.data() + *copy_at, &kept64, 8);
  // The next refill: a little more than this sample needed.
  last_need_ = data_at + kept;
  window_ = std::clamp<size_t>(last_need_ * 5 / 4 + 1024, kSparseHead, kFileBuffer / 16);
  small_run_ = 0;
  ++sparse_samples_;
  return Bytes(sparse_.data(), new_size);
}

// What of a large sample read whole its parse needs (up to dyn_size + 8
// bytes of its stack copy): tells next_sparse whether the next is worth
// reading in parts.
void PerfDataReader::note_need(Bytes raw) {
  const std::optional<size_t> copy_at = parser_->user_stack_offset(raw);
  if (!copy_at) return;
  ByteReader r(raw.subspan(*copy_at));
  const std::optional<uint64_t> copy_size = r.read<uint64_t>();
  if (!copy_size || !r.skip(static_cast<size_t>(std::min<uint64_t>(*copy_size, r.remaining())))) return;
  const std::optional<uint64_t> dyn = r.read<uint64_t>();
  if (dyn) last_need_ = *copy_at + 8 + copy_kept(*copy_size, *dyn);
}

std::optional<Bytes> PerfDataReader::next_from_file() {
  status_.good_bytes = buf_offset_ + pos_;
  if (len_ - pos_ < 8 && !refill(8)) {
    if (len_ == pos_ && status_.problem.empty()) stop(ReadStatus::State::kComplete, "");
    else stop(ReadStatus::State::kTruncated, len_ == pos_ ? status_.problem : "file ends inside a record " + where());
    return std::nullopt;
  }
  const uint16_t size = record_size(buf_.data() + pos_);
  if (size < 8) {
    stop(ReadStatus::State::kCorrupt, "damaged record header " + where());
    return std::nullopt;
  }
  if (len_ - pos_ < size && size >= kSparseMin && size >= kSparseGain * last_need_ &&
      record_type(Bytes(buf_.data() + pos_, 8)) == PERF_RECORD_SAMPLE) {
    if (std::optional<Bytes> sparse = next_sparse(size)) return sparse;
    if (status_.state != ReadStatus::State::kReading) return std::nullopt;
  }
  if (len_ - pos_ < size && !refill(size)) {
    stop(ReadStatus::State::kTruncated, "file ends inside a record " + where());
    return std::nullopt;
  }
  if (window_ != kFileBuffer && ++small_run_ >= kSmallRun) window_ = kFileBuffer;
  const Bytes raw(buf_.data() + pos_, size);
  if (size >= kSparseMin) note_need(raw);
  pos_ += size;
  return raw;
}

// PERF_RECORD_AUXTRACE and PERF_RECORD_HEADER_TRACING_DATA are followed by
// a payload their size does not count: {u64 size} resp. {u32 size} (padded
// to 8 bytes) at the start of the body.
bool PerfDataReader::skip_payload(Bytes raw, uint32_t type) {
  uint64_t size = 0;
  if (type == kPerfRecordAuxtrace && raw.size() >= 16) std::memcpy(&size, raw.data() + 8, 8);
  if (type == kPerfRecordTracingData && raw.size() >= 12) {
    uint32_t s32;
    std::memcpy(&s32, raw.data() + 8, 4);
    size = (uint64_t{s32} + 7) & ~uint64_t{7};
  }
  if (size <= len_ - pos_) {
    pos_ += static_cast<size_t>(size);
    return true;
  }
  const uint64_t to = buf_offset_ + pos_ + size;
  if (to < buf_offset_ || to > data_end_) {
    stop(ReadStatus::State::kTruncated, "file ends inside the payload of a record " + where());
    return false;
  }
  buf_offset_ = to;
  pos_ = len_ = 0;
  return true;
}

void PerfDataReader::start_decompressing(Bytes raw, uint32_t type) {
  Bytes data = raw.subspan(8);
  if (type == kPerfRecordCompressed2) {  // {u64 data_size; data, padded}
    uint64_t size = 0;
    if (data.size() >= 8) std::memcpy(&size, data.data(), 8);
    data = data.subspan(std::min<size_t>(8, data.size()));
    data = data.first(static_cast<size_t>(std::min<uint64_t>(size, data.size())));
  }
  if (!zstd_) {
    zstd_ = std::make_unique<ZstdStream>();
    dec_.resize(kDecompressed);
  }
  comp_.assign(data.begin(), data.end());
  comp_pos_ = 0;
  compressed_in_ += comp_.size();
}

// What the compressed data read so far may still inflate to (kMaxInflation).
uint64_t PerfDataReader::inflation_room() const {
  const uint64_t allowed = std::min(kMaxDecompressed, compressed_in_ * kMaxInflation);
  return allowed > decompressed_out_ ? allowed - decompressed_out_ : 0;
}

std::optional<Bytes> PerfDataReader::next_decompressed() {
  if (!zstd_) return std::nullopt;
  for (;;) {
    const size_t avail = dec_tail_ - dec_head_;
    if (avail >= 8) {
      const uint16_t size = record_size(dec_.data() + dec_head_);
      if (size < 8) {
        stop(ReadStatus::State::kCorrupt, "damaged record in the compressed data before byte " + std::to_string(buf_offset_ + pos_));
        return std::nullopt;
      }
      if (avail >= size) {
        const Bytes raw(dec_.data() + dec_head_, size);
        dec_head_ += size;
        return raw;
      }
    }
    // Decompress more; a record cut at the end of this compressed record
    // waits for the next one.
    if (comp_pos_ == comp_.size() && !zstd_full_) return std::nullopt;
    std::memmove(dec_.data(), dec_.data() + dec_head_, avail);
    dec_tail_ = avail;
    dec_head_ = 0;
    const uint64_t room = inflation_room();
    if (room == 0) {
      const std::string bound = decompressed_out_ >= kMaxDecompressed
                                    ? "beyond " + std::to_string(kMaxDecompressed >> 30) + " GiB"
                                    : "more than " + std::to_string(kMaxInflation) + " times";
      stop(ReadStatus::State::kCorrupt, "compressed data inflates " + bound + " (" + std::to_string(decompressed_out_) +
                                            " bytes from " + std::to_string(compressed_in_) + ") before byte " +
                                            std::to_string(buf_offset_ + pos_) + "; the rest is not read");
      return std::nullopt;
    }
    ZSTD_inBuffer in{comp_.data(), comp_.size(), comp_pos_};
    ZSTD_outBuffer out{dec_.data(), static_cast<size_t>(std::min<uint64_t>(dec_.size(), dec_tail_ + room)), dec_tail_};
    const size_t ret = ZSTD_decompressStream(zstd_->ctx, &out, &in);
    if (ZSTD_isError(ret)) {
      stop(ReadStatus::State::kCorrupt, std::string("damaged compressed data (") + ZSTD_getErrorName(ret) +
                                            ") before byte " + std::to_string(buf_offset_ + pos_));
      return std::nullopt;
    }
    const bool progress = in.pos != comp_pos_ || out.pos != dec_tail_;
    decompressed_out_ += out.pos - dec_tail_;
    comp_pos_ = in.pos;
    dec_tail_ = out.pos;
    zstd_full_ = out.pos == out.size;
    if (!progress) return std::nullopt;
  }
}

void PerfDataReader::attach_build_id(MappingRecord& m) const {
  if (m.build_id_size) return;
  auto it = features_.build_ids.find(m.path);
  if (it == features_.build_ids.end()) return;
  m.build_id_size = static_cast<uint8_t>(std::min(it->second.size(), kBuildIdMax));
  std::memcpy(m.build_id.data(), it->second.data(), m.build_id_size);
}

std::optional<Record> PerfDataReader::take(Bytes raw) {
  const uint32_t type = record_type(raw);
  if (type == kPerfRecordCompressed || type == kPerfRecordCompressed2) {
    if (raw.data() >= dec_.data() && raw.data() < dec_.data() + dec_.size()) ++status_.skipped["compressed records inside compressed data"];
    else start_decompressing(raw, type);
    return std::nullopt;
  }
  if (type == kPerfRecordAuxtrace || type == kPerfRecordTracingData) {
    ++status_.skipped[type == kPerfRecordAuxtrace ? "AUX area trace data" : "tracing data"];
    if (raw.data() >= buf_.data() && raw.data() < buf_.data() + buf_.size()) skip_payload(raw, type);
    return std::nullopt;
  }
  if (type == kPerfRecordFinishedRound) {
    const uint64_t settled = round_newest_;
    round_newest_ = newest_;
    if (settled) return FlushRecord{settled};
    return std::nullopt;
  }
  PerfParsed parsed = parser_->parse(raw);
  if (parsed.kernel_mapping && peeked_kernel_mappings_ > 0) --peeked_kernel_mappings_;
  else if (parsed.kernel_mapping) kernel_.add_mapping(*parsed.kernel_mapping);
  if (parsed.record) newest_ = std::max(newest_, time_of(*parsed.record).value_or(0));
  if (!parsed.record) {
    if (!parsed.skipped.empty()) ++status_.skipped[parsed.skipped];
    if (parsed.skipped == kDamagedSamples) ++status_.damaged_samples;
    return std::nullopt;
  }
  if (auto* m = std::get_if<MappingRecord>(&*parsed.record)) attach_build_id(*m);
  return std::move(parsed.record);
}

std::optional<Record> PerfDataReader::next() {
  if (!vdso_.empty() && !vdso_given_) {
    vdso_given_ = true;
    ++status_.records;
    return ImageRecord{"[vdso]", Bytes(vdso_.data(), vdso_.size())};
  }
  while (status_.state == ReadStatus::State::kReading) {
    std::optional<Bytes> raw = next_decompressed();
    if (!raw && status_.state == ReadStatus::State::kReading) raw = next_from_file();
    if (!raw) break;
    if (auto rec = take(*raw)) {
      ++status_.records;
      return rec;
    }
  }
  if (dec_tail_ > dec_head_) {
    ++status_.skipped["records cut at the end of the compressed data"];
    dec_head_ = dec_tail_;
  }
  return std::nullopt;
}

}  // namespace swprof
