#include "binary/binary_cache.h"

#include <algorithm>

#include "common/error.h"
#include "common/hex.h"

namespace swprof {

BinaryCache::Lookup BinaryCache::get(const std::string& path, const std::vector<uint8_t>& build_id,
                                     uint64_t warning_order) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto img = images_.find(path); img != images_.end()) return {img->second, false};
  if (auto copy = embedded_copy(path, build_id)) return {copy, false};
  const std::string key = path + "\n" + to_hex(Bytes(build_id.data(), build_id.size()));
  if (auto it = by_path_.find(key); it != by_path_.end()) {
    lower_warning_order(key, warning_order);
    return it->second;
  }
  Lookup found;
  if (!is_anonymous_path(path)) {
    // Without a recorded build-id the file on disk cannot be checked; the
    // archive's copy of the path is the one identified as the recorded file.
    if (build_id.empty()) {
      if (auto copy = archived_copy(path, build_id, warning_order, key)) {
        found.binary = copy;
        by_path_[key] = found;
        return found;
      }
    }
    auto opened = ElfBinary::open_file(path);
    found.binary = opened.value.value_or(nullptr);
    const bool usable = found.binary && (build_id.empty() || found.binary->build_id() == build_id);
    if (!usable) {
      if (auto copy = recorded_copy(path, build_id, warning_order, key)) {
        found.binary = copy;
        by_path_[key] = found;
        return found;
      }
    } else if (!build_id.empty()) {
      as_recorded_.push_back(found.binary);
    }
    if (!found.binary && opened.missing()) {
      warn(warning_order, key,
           path + " is missing (" + opened.reason + "): its frames are unwound without its unwind info and named by "
               "address; " + archive_hint());
    } else if (!found.binary) {
      warn(warning_order, key,
           "cannot open " + path + " (" + opened.reason + "): its frames are unwound without its unwind info");
    } else if (!build_id.empty() && found.binary->build_id() != build_id) {
      found.build_id_mismatch = true;
      warn(warning_order, key,
           path + " changed since it was recorded (build-id " + to_hex(Bytes(build_id.data(), build_id.size())) +
               " recorded, " + to_hex(Bytes(found.binary->build_id().data(), found.binary->build_id().size())) +
               " on disk): its frames are unwound without its unwind info and named by address; " + archive_hint());
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

std::shared_ptr<const ElfBinary> BinaryCache::recorded_copy(const std::string& path,
                                                            const std::vector<uint8_t>& build_id, uint64_t order,
                                                            const std::string& key) {
  if (auto copy = cached_copy(path, build_id, order, key)) return copy;
  return archived_copy(path, build_id, order, key);
}

// The build-id cache's copy of the binary with `build_id` (one ElfBinary
// per build-id), opened from the cache's file; nullptr when there is none.
// An entry that is there but not the binary is a warning.
std::shared_ptr<const ElfBinary> BinaryCache::cached_copy(const std::string& path,
                                                          const std::vector<uint8_t>& build_id, uint64_t order,
                                                          const std::string& key) {
  if (!build_id_cache_ || build_id.empty()) return nullptr;
  if (auto it = cached_.find(build_id); it != cached_.end()) return it->second;
  std::shared_ptr<const ElfBinary> binary;
  const std::string file = build_id_cache_->path_of(CachedFile::kBinary, build_id);
  auto kept = build_id_cache_->open(CachedFile::kBinary, build_id);
  if (kept) {
    auto opened = ElfBinary::open_file(std::move(*kept.value), file);
    binary = opened.value.value_or(nullptr);
    if (!binary) kept.reason = opened.reason;
  }
  if (binary) build_id_cache_->note_use(build_id);
  else if (!kept.missing())
    warn(order, key, "ignored the build-id cache's copy of " + path + " (" + file + "): " + kept.reason);
  cached_[build_id] = binary;
  return binary;
}

// The archive's copy of the binary with `build_id` (one ElfBinary per
// build-id, whatever path maps it), or, with no build-id, the copy archived
// from `path`; nullptr when there is none. A damaged copy is a warning.
std::shared_ptr<const ElfBinary> BinaryCache::archived_copy(const std::string& path,
                                                            const std::vector<uint8_t>& build_id, uint64_t order,
                                                            const std::string& key) {
  if (!archive_) return nullptr;
  if (build_id.empty()) {
    // No recorded build-id: the copy archived from this path, identified
    // when it was archived (archive_builder.h).
    const ArchiveEntry* entry = archive_->find_binary_at(path);
    return entry && !entry->build_id.empty() ? archived_copy(path, entry->build_id, order, key) : nullptr;
  }
  if (auto it = archived_.find(build_id); it != archived_.end()) return it->second;
  std::shared_ptr<const ElfBinary> binary;
  if (const ArchiveEntry* entry = archive_->find(ArchiveKind::kBinary, build_id)) {
    try {
      binary = ElfBinary::from_image(archived_image_name(path), archive_->read(*entry));
    } catch (const Error& e) {
      warn(order, key, std::string(e.what()) + ": " + path + " is not taken from it");
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

size_t BinaryCache::build_id_cache_supplied() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (const auto& [id, binary] : cached_) n += binary != nullptr;
  return n;
}

std::vector<std::shared_ptr<const ElfBinary>> BinaryCache::opened_as_recorded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return as_recorded_;
}

void BinaryCache::add_image(const std::string& name, std::vector<uint8_t> bytes) {
  auto binary = ElfBinary::from_image(name, std::move(bytes));
  std::lock_guard<std::mutex> lock(mutex_);
  if (binary) images_[name] = std::move(binary);
}

std::string BinaryCache::archive_hint() const {
  return archive_ ? "the archive has no copy of it either"
                  : "'swprof archive RECORDING' where it was recorded, before its binaries change, keeps them for "
                    "reports elsewhere";
}

void BinaryCache::warn(uint64_t order, const std::string& key, std::string text) {
  warnings_.push_back(Warning{order, key, std::move(text)});
}

void BinaryCache::lower_warning_order(const std::string& key, uint64_t order) {
  for (Warning& w : warnings_)
    if (w.key == key) w.order = std::min(w.order, order);
}

std::vector<std::string> BinaryCache::warnings() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<const Warning*> sorted;
  for (const Warning& w : warnings_) sorted.push_back(&w);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Warning* a, const Warning* b) { return a->order < b->order; });
  std::vector<std::string> out;
  for (const Warning* w : sorted) out.push_back(w->text);
  return out;
}

}  // namespace swprof
