#include "output/script_writer.h"

#include <unordered_map>

#include "common/error.h"
#include "common/text_escape.h"
#include "recording/recording_reader.h"

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

// "function+0xOFF (module+0xOFF)" or "[unknown] (module+0xOFF)".
std::string function_and_module(const SourceFrame& f) {
  const std::string module = terminal_safe(f.module);
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
           ((frame.flags & kFrameGuess) ? ", guess" : "") + "]\n";
  }
  return out;
}

std::string format_kernel_frame(uint64_t addr, const SymbolizedAddress& where) {
  const SourceFrame& f = where.frames.back();
  const std::string module = terminal_safe(f.module);
  if (f.function.empty()) return pc_column(addr) + "[unknown] (" + module + "+" + hex(f.module_offset) + ")\n";
  return pc_column(addr) + terminal_safe(f.function) + "+" + hex(f.function_offset) + " (" + module + ")\n";
}

UnwindStats write_script(const std::string& recording, const ScriptOptions& options, FILE* out,
                         std::vector<std::string>* warnings) {
  RecordingReader reader(recording);
  const uint64_t start = reader.header().start_monotonic_ns;
  const std::string event = terminal_safe(reader.header().event);
  std::unordered_map<uint32_t, std::string> comms;  // terminal_safe thread names
  RecordingUnwinder unwinder(options.unwind);
  Symbolizer symbolizer(options.symbolize);
  unwinder.run(
      reader,
      [&](const UnwoundSample& s) {
        const double t = s.time >= start ? static_cast<double>(s.time - start) / 1e9 : 0.0;
        auto comm = comms.find(s.tid);
        fprintf(out, "%s %u/%u [%03u] %.6f: %llu %s%s (%s)\n", comm != comms.end() ? comm->second.c_str() : "?", s.pid,
                s.tid, s.cpu, t, static_cast<unsigned long long>(s.period), event.c_str(),
                s.in_kernel ? " in-kernel" : "", walk_end_name(s.walk.end));
        for (uint64_t ip : s.kernel_ips) fputs(format_kernel_frame(ip, symbolizer.symbolize_kernel(ip)).c_str(), out);
        for (const Frame& f : s.walk.frames)
          fputs(format_user_frame(f, symbolizer.symbolize(*s.maps, s.pid, f)).c_str(), out);
        fputc('\n', out);
      },
      [&](const Record& r) {
        if (auto* c = std::get_if<CommRecord>(&r)) comms[c->tid] = terminal_safe(c->comm);
      });
  if (warnings) {
    *warnings = unwinder.warnings();
    for (auto& w : symbolizer.warnings()) warnings->push_back(std::move(w));
  }
  if (!reader.status().ok() && reader.status().state != ReadStatus::State::kComplete)
    throw Error("recording '" + recording + "' is damaged: " + reader.status().problem +
                "; the samples before the damage were shown");
  return unwinder.stats();
}

}  // namespace swprof
