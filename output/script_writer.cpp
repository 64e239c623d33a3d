#include "output/script_writer.h"

#include "common/error.h"
#include "common/format.h"
#include "common/text_escape.h"
#include "profile/pipeline.h"

namespace swprof {
namespace {

std::string hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string pc_column(uint64_t pc) {
  char buf[24];
  snprintf(buf, sizeof buf, "\t%16llx ", static_cast<unsigned long long>(pc));
  return buf;
}

// Every name below comes from the profiled program: shown with terminal_safe.
std::string source_location(const SourceFrame& f) {
  if (f.file.empty()) return "";
  return " " + terminal_safe(f.file) + (f.line ? ":" + std::to_string(f.line) : "");
}

// "function+0xOFF (module+0xOFF)", "[unknown] module+0xSTART+0xOFF (module+0xOFF)"
// for an unnamed function whose start is known, or "[unknown] (module+0xOFF)".
std::string function_and_module(const SourceFrame& f) {
  const std::string module = terminal_safe(f.module);
  if (f.function.empty() && f.start_offset)
    return terminal_safe(display_name(f)) + "+" + hex(f.function_offset) + " (" + module + "+" + hex(f.module_offset) + ")";
  if (f.function.empty()) return "[unknown] (" + module + "+" + hex(f.module_offset) + ")";
  return terminal_safe(f.function) + "+" + hex(f.function_offset) + " (" + module + "+" + hex(f.module_offset) + ")";
}

}  // namespace

std::string format_user_frame(const Frame& frame, const SymbolizedAddress& where) {
  std::string out;
  for (const SourceFrame& f : where.frames) {
    out += pc_column(frame.pc);
    if (f.inlined) {
      const std::string name = f.function.empty() ? std::string("[unknown]") : terminal_safe(f.function);
      out += name + " (inlined)" + source_location(f) + "\n";
      continue;
    }
    out += function_and_module(f) + source_location(f) + " [" + stepper_name(frame.stepper) +
           ((frame.flags & kFrameGuess) ? ", guess" : "") +
           ((frame.flags & kFrameBeyondCopy) ? ", beyond copy" : "") + "]\n";
  }
  return out;
}

std::string format_kernel_frame(uint64_t addr, const SymbolizedAddress& where) {
  const SourceFrame& f = where.frames.back();
  const std::string module = terminal_safe(f.module);
  if (f.function.empty()) return pc_column(addr) + "[unknown] (" + module + "+" + hex(f.module_offset) + ")\n";
  return pc_column(addr) + terminal_safe(f.function) + "+" + hex(f.function_offset) + " (" + module + ")\n";
}

namespace {

// The pipeline's sink for `swprof script`: each sample as a header line, its
// kernel frames and its user frames, leaf first, and an empty line.
class ScriptSink : public SampleSink {
 public:
  ScriptSink(FILE* out, std::optional<WeightKind> weight) : out_(out), weight_(weight) {}

  void begin(const RecordingHeader& header) override {
    event_ = terminal_safe(header.event);
    start_ns_ = header.start_monotonic_ns;
    if (weight_) resolve_weight_kind(header, weight_);  // refuses what the recording cannot give
  }

  SampleKinds kinds() const override {
    if (!weight_) return {};
    return SampleKinds{*weight_ != WeightKind::kOffCpu, *weight_ != WeightKind::kCpu};
  }

  void add(const PipelineSample& s) override {
    write_header(s);
    const UnwoundSample& u = s.unwound;
    for (size_t i = 0; i < s.kernel_symbols.size(); ++i)
      fputs(format_kernel_frame(u.kernel_ips[i], *s.kernel_symbols[i]).c_str(), out_);
    for (size_t i = 0; i < u.walk.frames.size(); ++i)
      fputs(format_user_frame(u.walk.frames[i], *s.user_symbols[i]).c_str(), out_);
    fputc('\n', out_);
  }

 private:
  // "comm pid/tid [cpu] seconds: period event (how the walk ended)"; a thread
  // no COMM record named shows as "?".
  void write_header(const PipelineSample& s) {
    const UnwoundSample& u = s.unwound;
    const double t = u.time >= start_ns_ ? static_cast<double>(u.time - start_ns_) / 1e9 : 0.0;
    const std::string comm = s.named_by_record ? terminal_safe(s.comm) : "?";
    if (s.kind == SampleKind::kOffCpu) {
      fprintf(out_, "%s %u/%u [%03u] %.6f: off-cpu %s (%s) (%s)\n", comm.c_str(), u.pid, u.tid, u.cpu, t,
              format_duration(s.weight).c_str(), off_cpu_state(s.off_cpu), walk_end_name(u.walk.end));
      return;
    }
    fprintf(out_, "%s %u/%u [%03u] %.6f: %llu %s%s (%s)\n", comm.c_str(), u.pid, u.tid, u.cpu, t,
            static_cast<unsigned long long>(u.period), event_.c_str(), u.in_kernel ? " in-kernel" : "",
            walk_end_name(u.walk.end));
  }

  static const char* off_cpu_state(const OffCpuWeight* w) {
    if (!w || !w->matched) return "unmatched";
    if (w->open) return "open";
    return w->preempted ? "preempted" : "blocked";
  }

  FILE* out_;
  std::optional<WeightKind> weight_;
  std::string event_;  // terminal_safe
  uint64_t start_ns_ = 0;
};

}  // namespace

UnwindStats write_script(const std::string& recording, const ScriptOptions& options, FILE* out,
                         std::vector<std::string>* warnings) {
  ScriptSink sink(out, options.weight);
  PipelineOptions pipeline;
  pipeline.unwind = options.unwind;
  pipeline.symbols = options.symbolize;
  pipeline.symbolize_order = FrameOrder::kLeafFirst;  // the order the script lists frames in
  PipelineResult pass = run_pipeline(recording, pipeline, sink);
  if (warnings) *warnings = std::move(pass.warnings);
  if (!pass.status.ok() && pass.status.state != ReadStatus::State::kComplete)
    throw Error("recording '" + recording + "' is damaged: " + pass.status.problem +
                "; the samples before the damage were shown");
  return pass.unwind;
}

}  // namespace swprof
