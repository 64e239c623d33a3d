#include "recording/record_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "common/unique_fd.h"
#include "recording/perf_data_reader.h"
#include "recording/recording_bytes.h"
#include "recording/recording_reader.h"

namespace swprof {

bool is_perf_data_file(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return false;
  char head[sizeof kPerfDataMagic];
  ssize_t n;
  do n = ::read(fd.get(), head, sizeof head);
  while (n < 0 && errno == EINTR);
  return n > 0 && is_perf_data(head, static_cast<size_t>(n));
}

std::unique_ptr<RecordSource> open_record_source(std::shared_ptr<const RecordingBytes> file) {
  char head[sizeof kPerfDataMagic];
  const size_t n = file->read_at(head, sizeof head, 0);
  if (n > 0 && is_perf_data(head, n)) return std::make_unique<PerfDataReader>(std::move(file));
  return std::make_unique<RecordingReader>(std::move(file));
}

std::unique_ptr<RecordSource> open_record_source(const std::string& path) {
  return open_record_source(RecordingBytes::open(path, "recording"));
}

}  // namespace swprof
