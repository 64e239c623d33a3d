#include "output/dump_writer.h"

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/format.h"
#include "common/text_escape.h"
#include "profile/pipeline.h"

namespace swprof {
namespace {

DumpFrame user_frame(const SourceFrame& f) {
  DumpFrame d;
  d.function = f.function.empty() && f.start_offset ? display_name(f) : f.function;
  d.module = f.module;
  d.file = f.file;
  d.line = f.line;
  d.kind = f.inlined ? "inlined" : "user";
  return d;
}

// "anon_pipe_read+0x366/0x410" -> "anon_pipe_read"; a module suffix
// ("ext4_read [ext4]") names the module.
DumpFrame kernel_frame(const std::string& line) {
  DumpFrame d;
  d.kind = "kernel";
  d.module = "[kernel]";
  auto space = line.find(' ');
  std::string name = line.substr(0, space);
  if (space != std::string::npos) d.module = line.substr(space + 1);
  d.function = name.substr(0, name.find('+'));
  return d;
}

// Collects each thread's unwound, symbolized sample.
class DumpSink : public SampleSink {
 public:
  explicit DumpSink(DumpView& view) : view_(view) {}

  void add(const PipelineSample& s) override {
    DumpThread* t = find(s.unwound.tid);
    if (!t) return;
    const WalkResult& walk = s.unwound.walk;
    t->unwound = true;
    t->complete = walk.complete();
    t->walk_end = walk_end_name(walk.end);
    t->guessed = false;
    t->frame_text.clear();
    t->frames.clear();
    for (const std::string& k : t->kernel_stack) t->frames.push_back(kernel_frame(k));
    for (size_t i = 0; i < walk.frames.size(); ++i) {
      t->guessed |= (walk.frames[i].flags & kFrameGuess) != 0;
      t->frame_text += format_user_frame(walk.frames[i], *s.user_symbols[i]);
      for (const SourceFrame& f : s.user_symbols[i]->frames) t->frames.push_back(user_frame(f));
    }
  }

 private:
  DumpThread* find(uint32_t tid) {
    for (DumpThread& t : view_.threads)
      if (t.tid == tid) return &t;
    return nullptr;
  }

  DumpView& view_;
};

std::string header_line(const DumpView& view, const DumpThread& t) {
  std::string line = terminal_safe(t.comm) + " " + std::to_string(view.pid) + "/" + std::to_string(t.tid) +
                     " state " + std::string(1, t.state) + " (" + t.state_name + ")";
  if (!t.wchan.empty()) line += " wchan " + terminal_safe(t.wchan);
  if (!t.error.empty()) return line + ": " + t.error;
  if (t.unwound && !t.complete) line += " [walk ended: " + t.walk_end + "]";
  return line;
}

std::string kernel_line(const std::string& frame) {
  char pc[24];
  snprintf(pc, sizeof pc, "\t%16s ", "");
  const bool has_module = frame.find(' ') != std::string::npos;
  return pc + terminal_safe(frame) + (has_module ? "" : " ([kernel])") + "\n";
}

nlohmann::json frame_json(const DumpFrame& f) {
  nlohmann::json j = {{"function", f.function}, {"module", f.module}, {"kind", f.kind}};
  j["file"] = f.file.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.file);
  j["line"] = f.line ? nlohmann::json(f.line) : nlohmann::json(nullptr);
  return j;
}

nlohmann::json thread_json(const DumpThread& t) {
  nlohmann::json frames = nlohmann::json::array();
  for (const DumpFrame& f : t.frames) frames.push_back(frame_json(f));
  nlohmann::json j = {{"tid", t.tid},
                      {"comm", t.comm},
                      {"state", std::string(1, t.state)},
                      {"wchan", t.wchan},
                      {"frames", std::move(frames)},
                      {"complete", t.complete},
                      {"stopped", t.stopped}};
  j["error"] = t.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.error);
  return j;
}

}  // namespace

std::vector<std::string> unwind_dump(const std::string& recording, const ScriptOptions& options, DumpView& view) {
  DumpSink sink(view);
  PipelineOptions pipeline;
  pipeline.unwind = options.unwind;
  pipeline.symbols = options.symbolize;
  pipeline.symbolize_order = FrameOrder::kLeafFirst;
  PipelineResult pass = run_pipeline(recording, pipeline, sink);
  if (!pass.status.ok()) throw Error("the snapshot's recording could not be read: " + pass.status.problem);
  return std::move(pass.warnings);
}

void write_dump_text(const DumpView& view, FILE* out) {
  fprintf(out, "process %u (%s), %zu thread%s, %s%s\n\n", view.pid, terminal_safe(view.name).c_str(),
          view.threads.size(), view.threads.size() == 1 ? "" : "s", format_time(view.unix_time_ns).c_str(),
          view.group_stopped ? ", stopped (SIGSTOP): left stopped" : "");
  for (const DumpThread& t : view.threads) {
    fputs((header_line(view, t) + "\n").c_str(), out);
    if (t.error.empty()) {
      for (const std::string& k : t.kernel_stack) fputs(kernel_line(k).c_str(), out);
      fputs(t.frame_text.c_str(), out);
    }
    fputc('\n', out);
  }
}

void write_dump_json(const DumpView& view, FILE* out) {
  nlohmann::json threads = nlohmann::json::array();
  for (const DumpThread& t : view.threads) threads.push_back(thread_json(t));
  nlohmann::json j = {{"pid", view.pid},
                      {"name", view.name},
                      {"time", format_time(view.unix_time_ns)},
                      {"stopped", view.group_stopped},
                      {"threads", std::move(threads)}};
  fputs((j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(), out);
}

}  // namespace swprof
