#pragma once
// The name of every thread as of the current point of a recording's replay:
// set by COMM records (start, exec, prctl), and inherited from the parent
// thread at a fork when no COMM record named the new thread yet.

#include <cstdint>
#include <string>
#include <unordered_map>

#include "recording/records.h"

namespace swprof {

class ThreadNames {
 public:
  void on_comm(const CommRecord& record);
  void on_task(const TaskRecord& record);

  // The thread's name, named or inherited; empty when unknown.
  const std::string& name(uint32_t tid) const;
  // A COMM record named the thread (its name is not only inherited).
  bool named_by_record(uint32_t tid) const;

 private:
  struct Entry {
    std::string name;
    bool from_record = false;
  };
  std::unordered_map<uint32_t, Entry> by_tid_;
};

}  // namespace swprof
