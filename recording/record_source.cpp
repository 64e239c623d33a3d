#include "recording/record_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "common/unique_fd.h"
#include "recording/perf_data_reader.h"
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

std::unique_ptr<RecordSource> open_record_source(const std::string& path) {
  if (is_perf_data_file(path)) return std::make_unique<PerfDataReader>(path);
  return std::make_unique<RecordingReader>(path);
}

}  // namespace swprof
