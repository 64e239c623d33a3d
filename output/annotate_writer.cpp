// `swprof annotate`: text and JSON (docs/annotate.md).

#include "output/annotate_writer.h"

#include <cinttypes>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/format.h"
#include "common/text_escape.h"
#include "output/json_fields.h"

namespace swprof {
namespace {

// What the columns count: samples in cpu profiles, time in off-CPU and
// wall profiles (an off-CPU sample stands for a whole wait).
struct Measure {
  bool time = false;
  uint64_t whole = 0;  // what shares are of

  uint64_t of(uint64_t samples, uint64_t weight) const { return time ? weight : samples; }
  // "   812  27.1%", or "     ." and no share for nothing.
  std::string columns(uint64_t samples, uint64_t weight, uint64_t of_whole) const {
    char buf[64];
    const uint64_t n = of(samples, weight);
    if (n == 0) {
      snprintf(buf, sizeof buf, "%10s %6s", ".", "");
    } else {
      const std::string value = time ? format_duration(n) : std::to_string(n);
      snprintf(buf, sizeof buf, "%10s %5.1f%%", value.c_str(), percent(n, of_whole));
    }
    return buf;
  }
};

Measure measure(const Annotation& a, bool by_time) {
  Measure m;
  m.time = by_time;
  m.whole = m.of(a.samples, a.weight);
  return m;
}

// The heading of the columns above, then `rest`.
std::string heading(const Measure& m, const char* rest) {
  char buf[128];
  snprintf(buf, sizeof buf, "%10s %6s %s\n", m.time ? "Time" : "Samples", "Share", rest);
  return buf;
}

std::string hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

std::string basename_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Skid: where a sample lands is not always the instruction that cost it.
std::string skid_note(const std::string& event) {
  if (event == "cpu-clock" || event == "task-clock")
    return "a " + event + " sample is taken by a timer interrupt and names the instruction it landed on, often "
           "the one after the slow one (skid): read an instruction's samples with its neighbours'";
  return "a sample names the instruction the processor reported, which may be a few after the one that caused "
         "the event (skid)";
}

void write_header(const Profile& p, const Annotation& a, const Measure& m, std::ostream& out) {
  const RecordingHeader& h = p.header;
  out << "swprof annotate: " << terminal_safe(p.source) << "\n";
  if (!h.command.empty()) out << "  command:   " << quote_command(h.command) << "\n";
  if (!h.event.empty()) {
    out << "  event:     " << terminal_safe(h.event);
    if (h.frequency) out << " at " << h.frequency << " Hz";
    else if (h.period) out << " every " << h.period;
    out << "\n";
  }
  out << "  samples:   " << p.samples_kept;
  if (m.time) out << " (" << format_duration(a.weight) << ")";
  out << "\n  skid:      " << skid_note(h.event) << "\n";
  if (a.matched > a.functions.size())
    out << "  shown:     the " << a.functions.size() << " hottest of the " << a.matched
        << " functions selected (--top to see more)\n";
}

void write_function_header(const AnnotatedFunction& f, const Measure& m, std::ostream& out) {
  const uint64_t n = m.of(f.samples, f.weight);
  char share[64];
  snprintf(share, sizeof share, " (%.1f%% of all)\n", percent(n, m.whole));
  out << "\n== " << terminal_safe(f.function) << "  " << terminal_safe(module_label(f.module)) << "  "
      << (m.time ? format_duration(n) : std::to_string(n) + (n == 1 ? " sample" : " samples")) << share;
  if (!f.file.empty()) {
    out << "  source:    " << terminal_safe(f.file);
    if (f.line) out << ":" << f.line;
    out << "\n";
  }
  if (!f.path.empty()) {
    out << "  binary:    " << terminal_safe(f.path);
    if (!f.build_id.empty()) out << " (build-id " << f.build_id << ")";
    out << "\n";
  }
  for (const auto& [start, end] : f.ranges) out << "  code:      " << hex(start) << "-" << hex(end) << "\n";
  for (const std::string& note : f.notes) out << "  note:      " << terminal_safe(note) << "\n";
}

// The function's own lines, then those of the functions inlined into it,
// a heading for each.
void write_lines(const AnnotatedFunction& f, const Measure& m, std::ostream& out) {
  if (f.lines.empty()) return;
  const uint64_t whole = m.of(f.samples, f.weight);
  out << "\n  Source lines (code inlined into " << terminal_safe(f.function) << " counts at the line of its call):\n"
      << heading(m, "   Line");
  const AnnotatedLine* group = nullptr;
  for (const AnnotatedLine& l : f.lines) {
    if (l.depth > 0 && (!group || group->depth != l.depth || group->at.function != l.at.function ||
                        group->at.file != l.at.file)) {
      if (!group) out << "\n  Inlined into " << terminal_safe(f.function) << ", by their own lines:\n";
      out << std::string(2 + 2 * l.depth, ' ') << terminal_safe(l.at.function) << "  "
          << terminal_safe(l.at.file.empty() ? "(no file)" : l.at.file) << "\n";
      group = &l;
    }
    char number[16];
    snprintf(number, sizeof number, "%7" PRIu32, l.at.line);
    out << (l.code ? m.columns(l.samples, l.weight, whole) : std::string(17, ' ')) << " " << number;
    if (!l.source.empty()) out << "  " << terminal_safe(l.source);
    out << "\n";
  }
}

// "file.c:15  source text" for the changed part of an instruction's inline
// chain, indented by depth.
void write_position(const SourcePosition& at, size_t depth, const std::string& source, std::ostream& out) {
  out << std::string(32 + 2 * depth, ' ');
  if (depth > 0) out << terminal_safe(at.function) << "  ";
  out << terminal_safe(basename_of(at.file)) << ":" << at.line;
  if (!source.empty()) out << "  " << terminal_safe(source);
  out << "\n";
}

// The text of the line an instruction is at, from the function's lines.
std::string source_of(const AnnotatedFunction& f, size_t depth, const SourcePosition& at) {
  for (const AnnotatedLine& l : f.lines)
    if (l.depth == depth && l.at.line == at.line && l.at.file == at.file && l.at.function == at.function) return l.source;
  return "";
}

void write_instructions(const AnnotatedFunction& f, const Measure& m, std::ostream& out) {
  if (f.instructions.empty()) return;
  const uint64_t whole = m.of(f.samples, f.weight);
  out << "\n  Instructions (ELF addresses):\n" << heading(m, "     Address  Instruction");
  const std::vector<SourcePosition>* shown = nullptr;
  for (const AnnotatedInstruction& insn : f.instructions) {
    if (!shown || *shown != insn.where) {
      // From the first depth that changed; back out of inlined code, the
      // line it returns to again.
      size_t same = 0;
      while (shown && same < shown->size() && same < insn.where.size() && (*shown)[same] == insn.where[same]) ++same;
      if (same == insn.where.size() && same > 0) --same;
      for (size_t d = same; d < insn.where.size(); ++d) write_position(insn.where[d], d, source_of(f, d, insn.where[d]), out);
    }
    shown = &insn.where;
    char address[24];
    snprintf(address, sizeof address, "%12" PRIx64, insn.address);
    out << m.columns(insn.samples, insn.weight, whole) << " " << address << "  " << terminal_safe(insn.text) << "\n";
  }
}

nlohmann::ordered_json position_json(const SourcePosition& at) {
  return {{"function", at.function}, {"file", at.file}, {"line", at.line}};
}

nlohmann::ordered_json function_json(const AnnotatedFunction& f) {
  using nlohmann::ordered_json;
  ordered_json lines = ordered_json::array();
  for (const AnnotatedLine& l : f.lines)
    if (l.code)
      lines.push_back({{"file", l.at.file}, {"line", l.at.line}, {"samples", l.samples}, {"weight", l.weight},
                       {"function", l.at.function}, {"depth", l.depth}});
  ordered_json insns = ordered_json::array();
  for (const AnnotatedInstruction& i : f.instructions) {
    ordered_json j = {{"address", hex(i.address)}, {"size", i.size}, {"text", i.text},
                      {"samples", i.samples}, {"weight", i.weight}};
    if (!i.where.empty()) {
      j["file"] = i.where.front().file;
      j["line"] = i.where.front().line;
    }
    if (i.where.size() > 1) {
      ordered_json inlined = ordered_json::array();
      for (size_t d = 1; d < i.where.size(); ++d) inlined.push_back(position_json(i.where[d]));
      j["inlined"] = std::move(inlined);
    }
    insns.push_back(std::move(j));
  }
  ordered_json ranges = ordered_json::array();
  for (const auto& [start, end] : f.ranges) ranges.push_back({{"start", hex(start)}, {"end", hex(end)}});
  return {{"function", f.function}, {"module", f.module}, {"file", f.file}, {"line", f.line},
          {"path", f.path}, {"build_id", f.build_id}, {"samples", f.samples}, {"weight", f.weight},
          {"ranges", std::move(ranges)}, {"lines", std::move(lines)}, {"instructions", std::move(insns)},
          {"notes", f.notes}};
}

}  // namespace

void write_annotation_text(const Profile& profile, const Annotation& annotation, std::ostream& out) {
  const bool by_time = profile.weight_kind != WeightKind::kCpu;
  write_header(profile, annotation, measure(annotation, by_time), out);
  if (annotation.functions.empty()) out << "\nNo samples.\n";
  for (const AnnotatedFunction& f : annotation.functions) write_annotated_function_text(annotation, f, by_time, out);
}

void write_annotated_function_text(const Annotation& annotation, const AnnotatedFunction& f, bool by_time,
                                   std::ostream& out) {
  const Measure m = measure(annotation, by_time);
  write_function_header(f, m, out);
  write_lines(f, m, out);
  write_instructions(f, m, out);
}

void write_annotation_json(const Annotation& annotation, std::ostream& out) {
  out << "[";
  for (size_t i = 0; i < annotation.functions.size(); ++i)
    out << (i ? ",\n " : "\n ") << dump_json(function_json(annotation.functions[i]));
  out << "\n]\n";
}

}  // namespace swprof
