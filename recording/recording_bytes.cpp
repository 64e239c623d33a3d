#include "recording/recording_bytes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace swprof {

std::shared_ptr<const RecordingBytes> RecordingBytes::open(const std::string& path, const std::string& what) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) throw Error("cannot open " + what + " '" + path + "': " + errno_text(errno));
  return adopt(std::move(fd), path, what);
}

std::shared_ptr<const RecordingBytes> RecordingBytes::adopt(UniqueFd fd, const std::string& path,
                                                            const std::string& what) {
  std::shared_ptr<RecordingBytes> f(new RecordingBytes());
  f->path_ = path;
  f->fd_ = std::move(fd);
  struct stat st;
  if (fstat(f->fd_.get(), &st) != 0) throw Error("cannot open " + what + " '" + path + "': " + errno_text(errno));
  if (S_ISDIR(st.st_mode)) throw Error("cannot open " + what + " '" + path + "': it is a directory");
  f->regular_ = S_ISREG(st.st_mode);
  f->owner_ = st.st_uid;
  if (f->regular_) f->size_at_open_ = static_cast<uint64_t>(st.st_size);
  f->head_.resize(kHeadBytes);
  f->head_.resize(f->read_file(f->head_.data(), f->head_.size(), 0));
  return f;
}

std::shared_ptr<const RecordingBytes> RecordingBytes::in_memory(Bytes image, const std::string& name) {
  std::shared_ptr<RecordingBytes> f(new RecordingBytes());
  f->path_ = name;
  f->image_ = image;
  f->size_at_open_ = image.size();
  f->owner_ = geteuid();
  return f;
}

Bytes RecordingBytes::head() const {
  if (image_) return image_->first(std::min(image_->size(), kHeadBytes));
  return Bytes(head_.data(), head_.size());
}

size_t RecordingBytes::read_at(void* dst, size_t n, uint64_t offset) const {
  auto* p = static_cast<uint8_t*>(dst);
  if (image_) {
    const uint64_t at = std::min<uint64_t>(offset, image_->size());
    const size_t done = static_cast<size_t>(std::min<uint64_t>(n, image_->size() - at));
    if (done) std::memcpy(p, image_->data() + at, done);
    return done;
  }
  size_t done = 0;
  if (offset < head_.size()) {  // kept since the file was opened
    done = static_cast<size_t>(std::min<uint64_t>(n, head_.size() - offset));
    std::memcpy(p, head_.data() + offset, done);
  }
  if (done == n) return done;
  return done + read_file(p + done, n - done, offset + done);
}

size_t RecordingBytes::read_file(uint8_t* dst, size_t n, uint64_t offset) const {
  if (!regular_) return read_stream(dst, n, offset);
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd_.get(), dst + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  bytes_read_.fetch_add(done, std::memory_order_relaxed);
  return done;
}

size_t RecordingBytes::read_stream(uint8_t* dst, size_t n, uint64_t offset) const {
  std::lock_guard<std::mutex> lock(stream_mutex_);
  if (offset != stream_pos_) return 0;  // a stream cannot go back (or skip ahead)
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::read(fd_.get(), dst + done, n - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  stream_pos_ += done;
  bytes_read_.fetch_add(done, std::memory_order_relaxed);
  return done;
}

uint64_t RecordingBytes::size() const {
  if (image_) return image_->size();
  struct stat st;
  if (!regular_ || fstat(fd_.get(), &st) != 0 || !S_ISREG(st.st_mode)) return UINT64_MAX;
  return static_cast<uint64_t>(st.st_size);
}

}  // namespace swprof
