#pragma once
// The companion archive of a recording (`swprof archive`, default name
// REC.archive): copies of the binaries the recording mapped and of their
// separate debuginfo, keyed by build-id, for reports on a machine where a
// binary is missing or was rebuilt. docs/archive-format.md:
//
//   magic     8 bytes  "\x89SWPARC\n"
//   version   u32      kArchiveVersion
//   reserved  u32      0
//   data*     one zstd frame per entry (content size and checksum in the frame)
//   index     entry_count entries:
//               u8 kind (0 binary, 1 debuginfo), u8 build_id_size (1..20),
//               build_id bytes, u16 path_size, path bytes,
//               u64 offset, u64 compressed_size, u64 raw_size
//   trailer   u64 index_offset, u32 entry_count, u32 index_size, 8 bytes "SWPARCIX"
//
// Every size read is checked against the file and against kMaxArchiveEntryBytes
// before anything is allocated: a cut or damaged archive gives one Error. An
// entry is inflated only when its raw size is at most kMaxArchiveInflation
// times its compressed size: what an archive costs in memory is bounded by
// its size.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/byte_reader.h"
#include "common/temp_file_cleanup.h"
#include "common/unique_fd.h"

namespace swprof {

inline constexpr char kArchiveMagic[8] = {'\x89', 'S', 'W', 'P', 'A', 'R', 'C', '\n'};
inline constexpr char kArchiveIndexMagic[8] = {'S', 'W', 'P', 'A', 'R', 'C', 'I', 'X'};
inline constexpr uint32_t kArchiveVersion = 1;
inline constexpr size_t kArchiveHeaderSize = 16;
inline constexpr size_t kArchiveTrailerSize = 24;
// The largest file an archive holds (a binary is read whole into memory).
inline constexpr uint64_t kMaxArchiveEntryBytes = uint64_t{2} << 30;
inline constexpr uint32_t kMaxArchiveIndexBytes = 64u << 20;
// The most an entry inflates: its raw size over its compressed size. zstd
// compresses binaries and debuginfo 2 to 12 times; a frame of zeros claims
// 30000 times its bytes, so an archive of 80 KB could make a report hold
// 2 GiB per entry. The writer leaves out a file that compresses more: it
// would not be read back.
inline constexpr uint64_t kMaxArchiveInflation = 64;

enum class ArchiveKind : uint8_t { kBinary = 0, kDebuginfo = 1 };

struct ArchiveEntry {
  ArchiveKind kind = ArchiveKind::kBinary;
  std::vector<uint8_t> build_id;  // of the binary (for debuginfo: of the binary it describes)
  std::string path;               // where the file was: the mapped path, or the debuginfo's
  uint64_t offset = 0;            // of its zstd frame in the archive
  uint64_t compressed_size = 0;
  uint64_t raw_size = 0;
};

// The name of an ElfBinary made from an archived copy of `path`: the
// symbolizer reads its DWARF from memory (symbolize/debug_info.h).
inline std::string archived_image_name(const std::string& path) { return "archive:" + path; }
inline bool is_archived_image_name(const std::string& name) { return name.starts_with("archive:"); }

// Why a file of `bytes` bytes cannot be an entry under `build_id` and
// `path` ("it is 2.1 GB, more than the 2 GiB an archive holds of a file"),
// or "" when it can.
std::string archive_entry_problem(const std::vector<uint8_t>& build_id, const std::string& path, uint64_t bytes);

// Why an entry of `raw_size` bytes stored in `compressed_size` is not
// inflated ("claims 2147483648 bytes uncompressed from 65555, more than 64
// times as many"), or "" when it is.
std::string archive_inflation_problem(uint64_t raw_size, uint64_t compressed_size);

class BinaryArchive;

// Writes an archive beside `path` under a temporary name (PATH.tmp.PID,
// mode 0600, never through a link someone placed there) and renames it to
// `path` in finish(): an archive already at `path` stays whole until then,
// whatever stops the writer (an error, a file size limit, Ctrl-C). The
// temporary file is removed when the writer is destroyed unfinished, and on
// SIGINT, SIGTERM and SIGHUP (common/temp_file_cleanup.h).
class ArchiveWriter {
 public:
  // Throws Error when `path` exists and is not a regular file (a link, a
  // device: never replaced), or the temporary file cannot be written.
  explicit ArchiveWriter(const std::string& path);
  ~ArchiveWriter();
  ArchiveWriter(const ArchiveWriter&) = delete;
  ArchiveWriter& operator=(const ArchiveWriter&) = delete;

  // Appends one file, compressed; returns its compressed size, or nullopt
  // when it compresses more than kMaxArchiveInflation times (a reader would
  // refuse it) and is left out. Throws Error when archive_entry_problem()
  // names a problem, or on a write failure.
  std::optional<uint64_t> add(ArchiveKind kind, const std::vector<uint8_t>& build_id, const std::string& path,
                              Bytes bytes);
  // Appends an entry of another archive as it is stored there, not
  // inflated; false (nothing appended) when its bytes cannot be read there.
  // Throws Error when the entry is over the limits, or on a write failure.
  bool copy(const BinaryArchive& from, const ArchiveEntry& entry);
  // Writes the index and the trailer, and moves the archive into place.
  void finish();
  uint64_t bytes_written() const { return offset_; }

 private:
  void write_all(const void* data, size_t n);
  void compress(Bytes bytes);
  void rewind_to(uint64_t offset);
  void remove_temporary();
  [[noreturn]] void fail(int err) const;

  std::string path_;
  std::string temp_;
  UniqueFd fd_;
  std::optional<TempFileCleanup> cleanup_;
  bool finished_ = false;
  uint64_t offset_ = 0;
  std::vector<ArchiveEntry> entries_;
};

class BinaryArchive {
 public:
  // Opens and checks an archive's header, trailer and index; throws Error
  // (one line naming the archive and the damage) when they are not whole.
  static std::shared_ptr<const BinaryArchive> open(const std::string& path);
  // The same for an archive in memory (a fuzzer's input); `image` must outlive it.
  static std::shared_ptr<const BinaryArchive> from_memory(Bytes image, const std::string& name);

  const std::string& path() const { return path_; }
  const std::vector<ArchiveEntry>& entries() const { return entries_; }
  // The entry of this kind for the binary with `build_id`, or nullptr.
  const ArchiveEntry* find(ArchiveKind kind, const std::vector<uint8_t>& build_id) const;
  // The binary archived from `path`, or nullptr: for a mapping its recording
  // gives no build-id (a perf.data names only the files samples landed in).
  const ArchiveEntry* find_binary_at(const std::string& path) const;
  // The entry's bytes, decompressed and checked (size, checksum); throws
  // Error when they are damaged or inflate more than kMaxArchiveInflation
  // times (archive_inflation_problem). Safe from several threads.
  std::vector<uint8_t> read(const ArchiveEntry& entry) const;
  // The same, handed to `sink` a piece at a time as they are inflated, so
  // that the whole file is never held here: an Error after some pieces
  // (a checksum that does not hold) means the pieces are to be dropped.
  void read(const ArchiveEntry& entry, const std::function<void(Bytes)>& sink) const;

 private:
  friend class ArchiveWriter;  // copies entries' frames as they are
  BinaryArchive() = default;
  void load_index(uint64_t file_bytes);
  bool read_at(void* dst, size_t n, uint64_t offset) const;
  // Throws Error when the entry inflates more than the bounds allow.
  void refuse_inflation(const ArchiveEntry& entry) const;
  [[noreturn]] void damaged(const std::string& what) const;

  std::string path_;
  UniqueFd fd_;
  std::optional<Bytes> image_;
  std::vector<ArchiveEntry> entries_;
};

// REC.archive: where `swprof archive REC` writes by default and reports look.
inline std::string default_archive_path(const std::string& recording) { return recording + ".archive"; }

// The archive a report of `recording` uses: `explicit_path` when given (an
// Error when it cannot be opened), else REC.archive when it exists, else
// nullptr.
std::shared_ptr<const BinaryArchive> find_archive(const std::string& recording, const std::string& explicit_path);

}  // namespace swprof
