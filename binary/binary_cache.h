#pragma once
// The binaries of a recording, each opened once.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "binary/elf_binary.h"
#include "recording/binary_archive.h"
#include "recording/records.h"

namespace swprof {

// Opens each binary once (by path, checked against the recorded build-id),
// and serves in-memory images recorded in the file (the vDSO, and embedded
// copies of files, which come before the file system). With an archive
// (`swprof archive`), a binary missing or changed on disk is served from its
// archived copy of the recorded build-id, as an in-memory image.
class BinaryCache {
 public:
  struct Lookup {
    std::shared_ptr<const ElfBinary> binary;
    bool build_id_mismatch = false;
  };
  Lookup get(const std::string& path, const std::vector<uint8_t>& build_id);
  void add_image(const std::string& name, std::vector<uint8_t> bytes);
  void use_archive(std::shared_ptr<const BinaryArchive> archive) { archive_ = std::move(archive); }
  // Binaries served from the archive so far.
  size_t archive_supplied() const;
  // One line per binary that was missing or changed, for the user.
  std::vector<std::string> warnings() const;

 private:
  std::shared_ptr<const ElfBinary> embedded_copy(const std::string& path, const std::vector<uint8_t>& build_id) const;
  std::shared_ptr<const ElfBinary> archived_copy(const std::string& path, const std::vector<uint8_t>& build_id);

  mutable std::mutex mutex_;
  std::map<std::string, Lookup> by_path_;
  std::map<std::string, std::shared_ptr<const ElfBinary>> images_;
  std::vector<std::string> warnings_;
  std::shared_ptr<const BinaryArchive> archive_;
  std::map<std::vector<uint8_t>, std::shared_ptr<const ElfBinary>> archived_;  // by build-id; null: unusable
};

}  // namespace swprof
