#include "profile/thread_names.h"

namespace swprof {

void ThreadNames::on_comm(const CommRecord& record) { by_tid_[record.tid] = Entry{record.comm, true}; }

void ThreadNames::on_task(const TaskRecord& record) {
  if (record.exit || by_tid_.count(record.tid)) return;
  const auto parent = by_tid_.find(record.ptid);
  if (parent != by_tid_.end()) by_tid_[record.tid] = Entry{parent->second.name, false};
}

const std::string& ThreadNames::name(uint32_t tid) const {
  static const std::string kUnknown;
  const auto it = by_tid_.find(tid);
  return it != by_tid_.end() ? it->second.name : kUnknown;
}

bool ThreadNames::named_by_record(uint32_t tid) const {
  const auto it = by_tid_.find(tid);
  return it != by_tid_.end() && it->second.from_record;
}

}  // namespace swprof
