#include "binary/binary_cache.h"

#include "common/error.h"
#include "common/hex.h"

namespace swprof {

BinaryCache::Lookup BinaryCache::get(const std::string& path, const std::vector<uint8_t>& build_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto img = images_.find(path); img != images_.end()) return {img->second, false};
  if (auto copy = embedded_copy(path, build_id)) return {copy, false};
  const std::string key = path + "\n" + to_hex(Bytes(build_id.data(), build_id.size()));
  if (auto it = by_path_.find(key); it != by_path_.end()) return it->second;
  Lookup found;
  if (!is_anonymous_path(path)) {
    // Without a recorded build-id the file on disk cannot be checked; the
    // archive's copy of the path is the one identified as the recorded file.
    if (build_id.empty()) {
      if (auto copy = archived_copy(path, build_id)) {
        found.binary = copy;
        by_path_[key] = found;
        return found;
      }
    }
    auto opened = ElfBinary::open_file(path);
    found.binary = opened.value.value_or(nullptr);
    const bool usable = found.binary && (build_id.empty() || found.binary->build_id() == build_id);
    if (!usable) {
      if (auto copy = archived_copy(path, build_id)) {
        found.binary = copy;
        by_path_[key] = found;
        return found;
      }
    }
    if (!found.binary) {
      warnings_.push_back("cannot open " + path + " (" + opened.reason +
                          "): its frames are unwound without its unwind info");
    } else if (!build_id.empty() && found.binary->build_id() != build_id) {
      found.build_id_mismatch = true;
      warnings_.push_back(path + " changed since it was recorded (build-id " +
                          to_hex(Bytes(build_id.data(), build_id.size())) + " recorded, " +
                          to_hex(Bytes(found.binary->build_id().data(), found.binary->build_id().size())) +
                          " on disk): its frames are unwound without its unwind info");
      found.binary = nullptr;  // wrong unwind info is worse than none
    }
  }
  by_path_[key] = found;
  return found;
}

// A file embedded by the recorder (found only inside a process's mount
// namespace): used before the file system when its build-id is the mapped one.
std::shared_ptr<const ElfBinary> BinaryCache::embedded_copy(const std::string& path,
                                                            const std::vector<uint8_t>& build_id) const {
  auto img = images_.find(embedded_file_image_name(path));
  if (img == images_.end()) return nullptr;
  if (!build_id.empty() && img->second->build_id() != build_id) return nullptr;
  return img->second;
}

// The archive's copy of the binary with `build_id` (one ElfBinary per
// build-id, whatever path maps it), or, with no build-id, the copy archived
// from `path`; nullptr when there is none. A damaged copy is a warning.
std::shared_ptr<const ElfBinary> BinaryCache::archived_copy(const std::string& path,
                                                            const std::vector<uint8_t>& build_id) {
  if (!archive_) return nullptr;
  if (build_id.empty()) {
    // No recorded build-id: the copy archived from this path, identified
    // when it was archived (archive_builder.h).
    const ArchiveEntry* entry = archive_->find_binary_at(path);
    return entry && !entry->build_id.empty() ? archived_copy(path, entry->build_id) : nullptr;
  }
  if (auto it = archived_.find(build_id); it != archived_.end()) return it->second;
  std::shared_ptr<const ElfBinary> binary;
  if (const ArchiveEntry* entry = archive_->find(ArchiveKind::kBinary, build_id)) {
    try {
      binary = ElfBinary::from_image(archived_image_name(path), archive_->read(*entry));
    } catch (const Error& e) {
      warnings_.push_back(std::string(e.what()) + ": " + path + " is not taken from it");
    }
    if (binary && binary->build_id() != build_id) binary = nullptr;
  }
  archived_[build_id] = binary;
  return binary;
}

size_t BinaryCache::archive_supplied() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (const auto& [id, binary] : archived_) n += binary != nullptr;
  return n;
}

void BinaryCache::add_image(const std::string& name, std::vector<uint8_t> bytes) {
  auto binary = ElfBinary::from_image(name, std::move(bytes));
  std::lock_guard<std::mutex> lock(mutex_);
  if (binary) images_[name] = std::move(binary);
}

std::vector<std::string> BinaryCache::warnings() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return warnings_;
}

}  // namespace swprof
