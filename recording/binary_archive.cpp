#include "recording/binary_archive.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "common/error.h"
#include "common/format.h"
#include "common/regular_file.h"

namespace swprof {
namespace {

// An index entry's fixed part: kind, build-id size, path size, three u64.
constexpr size_t kMinIndexEntryBytes = 1 + 1 + 2 + 3 * 8;
constexpr uint8_t kMaxBuildIdBytes = 20;
// What is read of a frame at a time, copying or inflating it.
constexpr size_t kFrameChunkBytes = size_t{1} << 20;
// A zstd frame header's largest size (ZSTD_FRAMEHEADERSIZE_MAX, of zstd's
// static-only API).
constexpr size_t kMaxFrameHeaderBytes = 18;

using ZstdCCtx = std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)>;
using ZstdDCtx = std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)>;

void put_entry(ByteWriter& w, const ArchiveEntry& e) {
  w.put(static_cast<uint8_t>(e.kind));
  w.put(static_cast<uint8_t>(e.build_id.size()));
  w.put_bytes(Bytes(e.build_id.data(), e.build_id.size()));
  w.put(static_cast<uint16_t>(e.path.size()));
  w.put_bytes(Bytes(reinterpret_cast<const uint8_t*>(e.path.data()), e.path.size()));
  w.put(e.offset);
  w.put(e.compressed_size);
  w.put(e.raw_size);
}

// One index entry, or nullopt when the bytes cannot be one.
std::optional<ArchiveEntry> read_entry(ByteReader& r) {
  ArchiveEntry e;
  auto kind = r.read<uint8_t>();
  auto id_size = r.read<uint8_t>();
  if (!kind || !id_size || *kind > 1 || *id_size == 0 || *id_size > kMaxBuildIdBytes) return std::nullopt;
  e.kind = static_cast<ArchiveKind>(*kind);
  auto id = r.bytes(*id_size);
  auto path_size = id ? r.read<uint16_t>() : std::nullopt;
  auto path = path_size ? r.bytes(*path_size) : std::nullopt;
  if (!path || !r.read_into(e.offset) || !r.read_into(e.compressed_size) || !r.read_into(e.raw_size))
    return std::nullopt;
  e.build_id.assign(id->begin(), id->end());
  e.path.assign(reinterpret_cast<const char*>(path->data()), path->size());
  return e;
}

}  // namespace

std::string archive_entry_problem(const std::vector<uint8_t>& build_id, const std::string& path, uint64_t bytes) {
  if (build_id.empty()) return "it has no build-id";
  if (build_id.size() > kMaxBuildIdBytes)
    return "its build-id is " + std::to_string(build_id.size()) + " bytes, more than an archive holds (20)";
  if (path.size() > UINT16_MAX) return "its path is " + std::to_string(path.size()) + " bytes, more than an archive holds";
  if (bytes > kMaxArchiveEntryBytes)
    return "it is " + human_bytes(bytes) + ", more than the " + std::to_string(kMaxArchiveEntryBytes >> 30) +
           " GiB an archive holds of a file";
  return "";
}

std::string archive_inflation_problem(uint64_t raw_size, uint64_t compressed_size) {
  // Past kMaxArchiveEntryBytes / kMaxArchiveInflation compressed, any raw
  // size the index allows is within the ratio (and below, the product
  // cannot overflow).
  if (raw_size <= kMaxArchiveEntryBytes &&
      (compressed_size >= kMaxArchiveEntryBytes / kMaxArchiveInflation ||
       raw_size <= compressed_size * kMaxArchiveInflation))
    return "";
  return "claims " + std::to_string(raw_size) + " bytes uncompressed from " + std::to_string(compressed_size) +
         ", more than " + std::to_string(kMaxArchiveInflation) + " times as many";
}

// The temporary file is created with O_EXCL and O_NOFOLLOW: never through
// a link or file someone placed at that name; a stale one of this pid is
// replaced.
ArchiveWriter::ArchiveWriter(const std::string& path) : path_(path), temp_(path + ".tmp." + std::to_string(getpid())) {
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw Error("cannot write archive '" + path + "': it is " + file_kind(st.st_mode) +
                " (an archive is written as a new file and renamed over it): choose another -o");
  for (int attempt = 0; attempt < 2 && !fd_.valid(); ++attempt) {
    fd_.reset(::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600));
    if (!fd_.valid() && errno == EEXIST && attempt == 0) ::unlink(temp_.c_str());
  }
  if (!fd_.valid()) throw Error("cannot write archive '" + path + "': " + errno_text(errno));
  cleanup_.emplace(temp_);
  std::vector<uint8_t> head;
  ByteWriter w(head);
  w.put_bytes(Bytes(reinterpret_cast<const uint8_t*>(kArchiveMagic), sizeof kArchiveMagic));
  w.put(kArchiveVersion);
  w.put(uint32_t{0});
  try {
    write_all(head.data(), head.size());
  } catch (const Error&) {
    remove_temporary();  // no destructor runs for a writer not made
    throw;
  }
}

ArchiveWriter::~ArchiveWriter() {
  if (!finished_) remove_temporary();
}

void ArchiveWriter::remove_temporary() {
  fd_.reset();
  ::unlink(temp_.c_str());
}

std::optional<uint64_t> ArchiveWriter::add(ArchiveKind kind, const std::vector<uint8_t>& build_id,
                                           const std::string& path, Bytes bytes) {
  if (const std::string problem = archive_entry_problem(build_id, path, bytes.size()); !problem.empty())
    throw Error("cannot archive '" + path + "': " + problem);
  const uint64_t start = offset_;
  compress(bytes);
  const uint64_t stored = offset_ - start;
  if (!archive_inflation_problem(bytes.size(), stored).empty()) {
    rewind_to(start);
    return std::nullopt;
  }
  entries_.push_back({kind, build_id, path, start, stored, bytes.size()});
  return stored;
}

// One zstd frame of `bytes` (content size and checksum in it), written a
// piece at a time as it is made.
void ArchiveWriter::compress(Bytes bytes) {
  ZstdCCtx cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!cctx) throw Error("cannot create a zstd compression context");
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, 6);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 1);
  ZSTD_CCtx_setPledgedSrcSize(cctx.get(), bytes.size());
  std::vector<uint8_t> out(ZSTD_CStreamOutSize());
  ZSTD_inBuffer in{bytes.data(), bytes.size(), 0};
  size_t left = 1;
  while (left != 0) {
    ZSTD_outBuffer o{out.data(), out.size(), 0};
    left = ZSTD_compressStream2(cctx.get(), &o, &in, ZSTD_e_end);
    if (ZSTD_isError(left)) throw Error(std::string("zstd compression failed: ") + ZSTD_getErrorName(left));
    write_all(out.data(), o.pos);
  }
}

bool ArchiveWriter::copy(const BinaryArchive& from, const ArchiveEntry& entry) {
  if (const std::string problem = archive_entry_problem(entry.build_id, entry.path, entry.raw_size); !problem.empty())
    throw Error("cannot archive '" + entry.path + "': " + problem);
  const uint64_t start = offset_;
  std::vector<uint8_t> chunk(static_cast<size_t>(std::min<uint64_t>(entry.compressed_size, kFrameChunkBytes)));
  for (uint64_t done = 0; done < entry.compressed_size;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk.size(), entry.compressed_size - done));
    if (!from.read_at(chunk.data(), n, entry.offset + done)) {
      rewind_to(start);
      return false;
    }
    write_all(chunk.data(), n);
    done += n;
  }
  ArchiveEntry copied = entry;
  copied.offset = start;
  entries_.push_back(std::move(copied));
  return true;
}

void ArchiveWriter::finish() {
  std::vector<uint8_t> index;
  ByteWriter w(index);
  for (const ArchiveEntry& e : entries_) put_entry(w, e);
  const uint64_t index_offset = offset_;
  w.put(index_offset);
  w.put(static_cast<uint32_t>(entries_.size()));
  w.put(static_cast<uint32_t>(index.size() - sizeof index_offset - sizeof(uint32_t)));
  w.put_bytes(Bytes(reinterpret_cast<const uint8_t*>(kArchiveIndexMagic), sizeof kArchiveIndexMagic));
  write_all(index.data(), index.size());
  if (fsync(fd_.get()) != 0 && errno != EINVAL) fail(errno);
  if (::close(fd_.release()) != 0 && errno != EINTR) fail(errno);
  if (::rename(temp_.c_str(), path_.c_str()) != 0) fail(errno);
  finished_ = true;
  cleanup_.reset();
}

void ArchiveWriter::write_all(const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd_.get(), p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) fail(errno);
    p += w;
    n -= static_cast<size_t>(w);
    offset_ += static_cast<uint64_t>(w);
  }
}

// Drops what was written from `offset` on (a frame left out).
void ArchiveWriter::rewind_to(uint64_t offset) {
  if (::ftruncate(fd_.get(), static_cast<off_t>(offset)) != 0 ||
      ::lseek(fd_.get(), static_cast<off_t>(offset), SEEK_SET) < 0)
    fail(errno);
  offset_ = offset;
}

void ArchiveWriter::fail(int err) const {
  throw Error("cannot write archive '" + path_ + "': " + errno_text(err) + " (an archive already there is kept)");
}

std::shared_ptr<const BinaryArchive> BinaryArchive::open(const std::string& path) {
  std::shared_ptr<BinaryArchive> a(new BinaryArchive());
  a->path_ = path;
  a->fd_.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!a->fd_.valid()) throw Error("cannot open archive '" + path + "': " + errno_text(errno));
  struct stat st;
  if (fstat(a->fd_.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw Error("cannot open archive '" + path + "': not a regular file");
  a->load_index(static_cast<uint64_t>(st.st_size));
  return a;
}

std::shared_ptr<const BinaryArchive> BinaryArchive::from_memory(Bytes image, const std::string& name) {
  std::shared_ptr<BinaryArchive> a(new BinaryArchive());
  a->path_ = name;
  a->image_ = image;
  a->load_index(image.size());
  return a;
}

void BinaryArchive::damaged(const std::string& what) const {
  throw Error("archive '" + path_ + "' is damaged: " + what);
}

bool BinaryArchive::read_at(void* dst, size_t n, uint64_t offset) const {
  if (n == 0) return offset <= (image_ ? image_->size() : UINT64_MAX);  // dst may be an empty vector's null data()
  if (image_) {
    if (offset > image_->size() || n > image_->size() - offset) return false;
    std::memcpy(dst, image_->data() + offset, n);
    return true;
  }
  auto* p = static_cast<uint8_t*>(dst);
  while (n > 0) {
    const ssize_t got = ::pread(fd_.get(), p, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

void BinaryArchive::load_index(uint64_t file_bytes) {
  uint8_t head[kArchiveHeaderSize];
  if (file_bytes < kArchiveHeaderSize || !read_at(head, sizeof head, 0) ||
      std::memcmp(head, kArchiveMagic, sizeof kArchiveMagic) != 0)
    throw Error("'" + path_ + "' is not a swprof archive (bad magic)");
  uint32_t version = 0;
  std::memcpy(&version, head + 8, 4);
  if (version != kArchiveVersion)
    throw Error("archive '" + path_ + "' has format version " + std::to_string(version) + "; this swprof reads version " +
                std::to_string(kArchiveVersion));
  uint8_t trailer[kArchiveTrailerSize];
  if (file_bytes < kArchiveHeaderSize + kArchiveTrailerSize || !read_at(trailer, sizeof trailer, file_bytes - sizeof trailer))
    damaged("it is cut short (no index)");
  ByteReader t(Bytes(trailer, sizeof trailer));
  const uint64_t index_offset = *t.read<uint64_t>();
  const uint32_t count = *t.read<uint32_t>();
  const uint32_t index_size = *t.read<uint32_t>();
  if (std::memcmp(trailer + 16, kArchiveIndexMagic, sizeof kArchiveIndexMagic) != 0)
    damaged("it is cut short or its trailer is damaged (no index magic)");
  const uint64_t index_end = file_bytes - kArchiveTrailerSize;
  if (index_size > kMaxArchiveIndexBytes || index_offset < kArchiveHeaderSize || index_offset > index_end ||
      index_end - index_offset != index_size || count > index_size / kMinIndexEntryBytes)
    damaged("its index is out of bounds");
  std::vector<uint8_t> index(index_size);
  if (!read_at(index.data(), index.size(), index_offset)) damaged("its index cannot be read");
  ByteReader r(Bytes(index.data(), index.size()));
  for (uint32_t i = 0; i < count; ++i) {
    auto e = read_entry(r);
    if (!e) damaged("index entry " + std::to_string(i + 1) + " is malformed");
    if (e->offset < kArchiveHeaderSize || e->offset > index_offset || e->compressed_size > index_offset - e->offset ||
        e->raw_size > kMaxArchiveEntryBytes)
      damaged("index entry " + std::to_string(i + 1) + " (" + e->path + ") is out of bounds");
    entries_.push_back(std::move(*e));
  }
  if (!r.at_end()) damaged("its index holds more bytes than its entries");
}

const ArchiveEntry* BinaryArchive::find(ArchiveKind kind, const std::vector<uint8_t>& build_id) const {
  for (const ArchiveEntry& e : entries_)
    if (e.kind == kind && e.build_id == build_id) return &e;
  return nullptr;
}

const ArchiveEntry* BinaryArchive::find_binary_at(const std::string& path) const {
  for (const ArchiveEntry& e : entries_)
    if (e.kind == ArchiveKind::kBinary && e.path == path) return &e;
  return nullptr;
}

void BinaryArchive::refuse_inflation(const ArchiveEntry& entry) const {
  if (const std::string problem = archive_inflation_problem(entry.raw_size, entry.compressed_size); !problem.empty())
    throw Error("archive '" + path_ + "': the copy of " + entry.path + " " + problem);
}

std::vector<uint8_t> BinaryArchive::read(const ArchiveEntry& entry) const {
  refuse_inflation(entry);
  std::vector<uint8_t> raw;
  try {
    raw.reserve(entry.raw_size);
  } catch (const std::bad_alloc&) {
    throw Error("archive '" + path_ + "': not enough memory for the copy of " + entry.path + " (" +
                human_bytes(entry.raw_size) + ")");
  }
  read(entry, [&](Bytes piece) { raw.insert(raw.end(), piece.begin(), piece.end()); });
  return raw;
}

// The frame is read kFrameChunkBytes at a time and inflated into a buffer of
// zstd's block size, so that only the window of the frame (what its header
// asks, at most zstd's default limit of 128 MiB) is held. The frame must
// hold exactly the entry's bytes: its content size is the index's raw size
// (zstd checks the bytes against it and the checksum at the frame's end),
// and it ends where the index says.
void BinaryArchive::read(const ArchiveEntry& entry, const std::function<void(Bytes)>& sink) const {
  refuse_inflation(entry);
  const std::string copy = "the copy of " + entry.path;
  uint8_t head[kMaxFrameHeaderBytes];
  const size_t head_size = static_cast<size_t>(std::min<uint64_t>(sizeof head, entry.compressed_size));
  if (!read_at(head, head_size, entry.offset)) damaged("cannot read " + copy);
  if (ZSTD_getFrameContentSize(head, head_size) != entry.raw_size) damaged(copy + " is not the size its index says");
  ZstdDCtx dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!dctx) throw Error("cannot create a zstd decompression context");
  std::vector<uint8_t> in(static_cast<size_t>(std::min<uint64_t>(entry.compressed_size, kFrameChunkBytes)));
  std::vector<uint8_t> out(ZSTD_DStreamOutSize());
  ZSTD_inBuffer i{in.data(), 0, 0};
  uint64_t read_bytes = 0;
  size_t left = 1;  // zstd's hint: 0 once the frame is whole and flushed
  while (left != 0) {
    if (i.pos == i.size && read_bytes < entry.compressed_size) {
      i.size = static_cast<size_t>(std::min<uint64_t>(in.size(), entry.compressed_size - read_bytes));
      i.pos = 0;
      if (!read_at(in.data(), i.size, entry.offset + read_bytes)) damaged("cannot read " + copy);
      read_bytes += i.size;
    }
    const size_t before = i.pos;
    ZSTD_outBuffer o{out.data(), out.size(), 0};
    left = ZSTD_decompressStream(dctx.get(), &o, &i);
    if (ZSTD_isError(left)) damaged(copy + " is corrupt (" + ZSTD_getErrorName(left) + ")");
    if (o.pos > 0) sink(Bytes(out.data(), o.pos));
    if (left != 0 && i.pos == before && o.pos == 0) damaged(copy + " is cut short");
  }
  if (i.pos != i.size || read_bytes != entry.compressed_size) damaged(copy + " is followed by bytes its frame does not hold");
}

std::shared_ptr<const BinaryArchive> find_archive(const std::string& recording, const std::string& explicit_path) {
  if (!explicit_path.empty()) return BinaryArchive::open(explicit_path);
  const std::string path = default_archive_path(recording);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return nullptr;
  return BinaryArchive::open(path);
}

}  // namespace swprof
