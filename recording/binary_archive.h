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
// before anything is allocated: a cut or damaged archive gives one Error.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/byte_reader.h"
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

class ArchiveWriter {
 public:
  // Creates (truncates) `path`; throws Error when it cannot be written.
  explicit ArchiveWriter(const std::string& path);
  // Appends one file (compressed); returns its compressed size.
  uint64_t add(ArchiveKind kind, const std::vector<uint8_t>& build_id, const std::string& path, Bytes bytes);
  // Writes the index and the trailer.
  void finish();
  uint64_t bytes_written() const { return offset_; }

 private:
  void write_all(const void* data, size_t n);

  std::string path_;
  UniqueFd fd_;
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
  // Error when they are damaged. Safe from several threads.
  std::vector<uint8_t> read(const ArchiveEntry& entry) const;

 private:
  BinaryArchive() = default;
  void load_index(uint64_t file_bytes);
  bool read_at(void* dst, size_t n, uint64_t offset) const;
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
