#include "recording/record_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
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

uint64_t RecordSource::read_off_cpu_records(const std::function<void(const Record&)>& each) {
  const std::unique_ptr<RecordSource> reader = reread();
  uint64_t latest = 0;
  while (auto record = reader->next()) {
    if (const auto* s = std::get_if<SampleView>(&*record)) {
      latest = std::max(latest, s->time);
      if (!s->off_cpu) continue;
    } else if (const auto* sw = std::get_if<SwitchRecord>(&*record)) {
      latest = std::max(latest, sw->time);
    } else if (const auto* r = std::get_if<OffCpuRepeatRecord>(&*record)) {
      latest = std::max(latest, r->time);
    } else if (!std::holds_alternative<EndRecord>(*record)) {
      continue;
    }
    each(*record);
  }
  return latest;
}

std::unique_ptr<RecordSource> open_record_source(std::shared_ptr<const RecordingBytes> file) {
  const Bytes head = file->head();
  if (is_perf_data(head.data(), head.size())) return std::make_unique<PerfDataReader>(std::move(file));
  return std::make_unique<RecordingReader>(std::move(file));
}

std::unique_ptr<RecordSource> open_record_source(const std::string& path) {
  return open_record_source(RecordingBytes::open(path, "recording"));
}

}  // namespace swprof
