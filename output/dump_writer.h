#pragma once
// `swprof dump`: the stacks of every thread of a live process, unwound and
// symbolized by the same pipeline as the reports (from a recording holding
// one sample per thread), printed like `swprof script` or as JSON.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "output/script_writer.h"

namespace swprof {

struct DumpFrame {
  std::string function;  // "" when unknown
  std::string module;
  std::string file;
  uint32_t line = 0;
  std::string kind;  // "kernel", "user" or "inlined"
};

struct DumpThread {
  // What the snapshot saw.
  uint32_t tid = 0;
  std::string comm;
  char state = '?';  // as /proc/PID/task/TID/stat says ('S', 'R', ...)
  std::string state_name;  // "sleeping"
  std::string wchan;
  std::vector<std::string> kernel_stack;  // /proc/PID/task/TID/stack lines, innermost first
  bool stopped = false;     // read under ptrace
  bool ip_sp_only = false;  // read without stopping it (registers: ip and sp)
  std::string error;        // nothing read: why
  // What the pipeline made of it (unwind_dump).
  bool unwound = false;
  bool complete = false;  // the walk reached the thread's entry
  bool guessed = false;   // a frame came from the return-address scan
  std::string walk_end;
  std::string frame_text;  // user frames as `swprof script` prints them
  std::vector<DumpFrame> frames;  // kernel frames then user frames, innermost first

  // A thread read without stopping it whose walk did not reach its entry
  // cleanly: a register the walk needed may have been missing.
  bool wants_full_registers() const { return ip_sp_only && unwound && (!complete || guessed); }
};

struct DumpView {
  uint32_t pid = 0;
  std::string name;           // the process's comm
  uint64_t unix_time_ns = 0;  // when the snapshot began
  bool group_stopped = false;
  std::vector<DumpThread> threads;
};

// Unwinds and symbolizes `recording` (one sample per thread of the dump) into
// the threads of `view` with the same tid. Returns the pipeline's warnings.
std::vector<std::string> unwind_dump(const std::string& recording, const ScriptOptions& options, DumpView& view);

// "process 4242 (app), 4 threads, at 2026-...Z" then per thread
// "comm pid/tid state S (sleeping) wchan anon_pipe_read" and its frames,
// innermost first, as `swprof script` prints them.
void write_dump_text(const DumpView& view, FILE* out);
// {"pid", "time", "threads": [{"tid", "comm", "state", "wchan", "frames": [...], "error"}]}
void write_dump_json(const DumpView& view, FILE* out);

}  // namespace swprof
