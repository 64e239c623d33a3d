#pragma once
// The binaries of a recording, each opened once.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "binary/build_id_cache.h"
#include "binary/elf_binary.h"
#include "recording/binary_archive.h"
#include "recording/records.h"

namespace swprof {

// Opens each binary once (by path, checked against the recorded build-id),
// and serves in-memory images recorded in the file (the vDSO, and embedded
// copies of files, which come before the file system). A binary missing or
// changed on disk is served from the build-id cache (binary/build_id_cache.h)
// when it keeps the recorded build-id, else from the archive (`swprof
// archive`), as an in-memory image.
class BinaryCache {
 public:
  struct Lookup {
    std::shared_ptr<const ElfBinary> binary;
    bool build_id_mismatch = false;
  };
  // The binary of `path` (opened on the first call for this path and
  // build-id). A warning about it (missing, changed) is listed among the
  // others by the smallest `warning_order` any call gave it, then in the
  // order first asked: callers asking from several threads stay
  // deterministic by giving an order (AddressSpaces: the mapping record's).
  static constexpr uint64_t kInOrderAsked = ~uint64_t{0};
  Lookup get(const std::string& path, const std::vector<uint8_t>& build_id, uint64_t warning_order = kInOrderAsked);
  void add_image(const std::string& name, std::vector<uint8_t> bytes);
  void use_archive(std::shared_ptr<const BinaryArchive> archive) { archive_ = std::move(archive); }
  void use_build_id_cache(std::shared_ptr<BuildIdCache> cache) { build_id_cache_ = std::move(cache); }
  // Binaries served from the archive so far.
  size_t archive_supplied() const;
  // Binaries served from the build-id cache so far.
  size_t build_id_cache_supplied() const;
  // The binaries opened from their files so far whose build-id is the
  // recorded one: what the build-id cache is to keep.
  std::vector<std::shared_ptr<const ElfBinary>> opened_as_recorded() const;
  // One line per binary that was missing or changed, for the user.
  std::vector<std::string> warnings() const;

 private:
  std::shared_ptr<const ElfBinary> embedded_copy(const std::string& path, const std::vector<uint8_t>& build_id) const;
  // The recorded binary when its file is missing or changed: from the
  // build-id cache, else from the archive; nullptr when neither has it.
  std::shared_ptr<const ElfBinary> recorded_copy(const std::string& path, const std::vector<uint8_t>& build_id,
                                                 uint64_t order, const std::string& key);
  std::shared_ptr<const ElfBinary> cached_copy(const std::string& path, const std::vector<uint8_t>& build_id,
                                              uint64_t order, const std::string& key);
  std::shared_ptr<const ElfBinary> archived_copy(const std::string& path, const std::vector<uint8_t>& build_id,
                                                uint64_t order, const std::string& key);

  mutable std::mutex mutex_;
  std::map<std::string, Lookup> by_path_;
  std::map<std::string, std::shared_ptr<const ElfBinary>> images_;
  struct Warning {
    uint64_t order;
    std::string key;  // of by_path_
    std::string text;
  };
  void warn(uint64_t order, const std::string& key, std::string text);
  // For a binary missing or changed: what gives reports the recorded one.
  std::string archive_hint() const;
  void lower_warning_order(const std::string& key, uint64_t order);
  std::vector<Warning> warnings_;
  std::shared_ptr<const BinaryArchive> archive_;
  std::map<std::vector<uint8_t>, std::shared_ptr<const ElfBinary>> archived_;  // by build-id; null: unusable
  std::shared_ptr<BuildIdCache> build_id_cache_;
  std::map<std::vector<uint8_t>, std::shared_ptr<const ElfBinary>> cached_;  // by build-id; null: not there
  std::vector<std::shared_ptr<const ElfBinary>> as_recorded_;
};

}  // namespace swprof
