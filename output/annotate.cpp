// `swprof annotate` (docs/annotate.md): a function's samples by source line
// and by instruction.

#include "output/annotate.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "binary/function_bounds.h"
#include "common/error.h"
#include "profile/name_filter.h"
#include "recording/binary_archive.h"
#include "symbolize/debug_info.h"
#include "symbolize/demangle.h"

namespace swprof {
namespace {

// Code shown for one function at most: a bigger one (generated code) is
// shown from its first sampled instruction on.
constexpr uint64_t kMaxFunctionBytes = uint64_t{1} << 20;
// Lines of the function's file shown before its first line with code, when
// its declaration is there (the signature of a function whose first
// instruction has the line of its body).
constexpr uint32_t kMaxLeadingLines = 10;

// The leaf samples of one function of one binary (or of code outside
// binaries: binary null).
struct FunctionSamples {
  uint32_t frame = 0;  // the real function's CallTree frame
  const CodeMapping* mapping = nullptr;
  std::vector<const CodeLocation*> locations;
  uint64_t samples = 0, weight = 0;
};

// What the shares and the order measure: samples in cpu profiles, time in
// off-CPU and wall profiles (an off-CPU sample stands for a whole wait).
bool by_weight(const Profile& p) { return p.weight_kind != WeightKind::kCpu; }

std::vector<FunctionSamples> functions_with_samples(const Profile& p) {
  const AddressCounts& counts = p.addresses;
  std::map<std::pair<uint32_t, const ElfBinary*>, FunctionSamples> by_function;
  for (const CodeLocation& loc : counts.locations()) {
    if (!loc.self) continue;
    const CodeMapping* m = loc.mapping == CodeLocation::kNoMapping ? nullptr : &counts.mappings()[loc.mapping];
    FunctionSamples& f = by_function[{loc.function(), m ? m->binary.get() : nullptr}];
    f.frame = loc.function();
    if (!f.mapping) f.mapping = m;
    f.locations.push_back(&loc);
    f.samples += loc.self;
    f.weight += loc.self_weight;
  }
  std::vector<FunctionSamples> out;
  for (auto& [key, f] : by_function) out.push_back(std::move(f));
  const bool weight = by_weight(p);
  std::stable_sort(out.begin(), out.end(), [&](const FunctionSamples& a, const FunctionSamples& b) {
    return weight ? a.weight > b.weight : a.samples > b.samples;
  });
  return out;
}

// The function's name, or that of a function inlined into it at one of its
// sampled addresses, matches.
bool selected(const Profile& p, const FunctionSamples& f, const NameFilter& filter) {
  if (filter.matches(p.tree.frame(f.frame).function)) return true;
  for (const CodeLocation* loc : f.locations)
    for (const CodeLine& line : loc->lines)
      if (filter.matches(p.tree.frame(line.frame).function)) return true;
  return false;
}

// "<name>" or "<name+0x10>" for a call's or jump's target, "" when the
// binary names nothing there.
std::string target_label(const ElfBinary& binary, uint64_t target, bool demangled) {
  std::string name;
  uint64_t start = 0;
  if (const FunctionSymbol* f = binary.function_at(target)) {
    name = demangled ? demangle(f->name.c_str()) : f->name;
    start = f->start;
  } else if (const PltEntry* stub = binary.plt_entries().at(target)) {
    name = stub->name;
    start = stub->start;
  }
  if (name.empty()) return "";
  char offset[32] = "";
  if (target != start) snprintf(offset, sizeof offset, "+0x%llx", static_cast<unsigned long long>(target - start));
  return " <" + name + offset + ">";
}

// Tabs to the next multiple of 8 columns, as a terminal shows them.
std::string expand_tabs(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\t') out.append(8 - out.size() % 8, ' ');
    else out += c;
  }
  return out;
}

// Annotates functions one at a time; each binary's DWARF is opened once.
class Annotator {
 public:
  Annotator(const Profile& profile, const AnnotateOptions& options)
      : p_(profile), options_(options), symbols_(options.symbols), sources_(options.sources) {
    if (!symbols_.archive) symbols_.archive = profile.archive ? profile.archive : find_archive(profile.source, symbols_.archive_path);
  }

  AnnotatedFunction annotate(const FunctionSamples& f) {
    AnnotatedFunction out = header(f);
    if (!f.mapping || !f.mapping->binary) {
      out.notes.push_back("no machine code to show: " + out.module + " code is not read from a file");
      return out;
    }
    out.path = f.mapping->path;
    out.build_id = f.mapping->build_id;
    const ElfBinary& binary = *f.mapping->binary;
    out.ranges = code_ranges(binary, f);
    disassemble(binary, out);
    if (out.instructions.empty()) return out;  // the notes say why
    place_samples(f, out);
    add_lines(f.mapping->binary, out);
    return out;
  }

 private:
  AnnotatedFunction header(const FunctionSamples& f) const {
    const CctFrame& frame = p_.tree.frame(f.frame);
    AnnotatedFunction out;
    out.function = frame.function;
    out.module = frame.module;
    out.file = frame.file;
    out.line = frame.line;
    out.samples = f.samples;
    out.weight = f.weight;
    return out;
  }

  // The bounds of the functions holding the sampled addresses (one, or a
  // function and its split-off part: hot and .cold), in address order.
  static std::vector<std::pair<uint64_t, uint64_t>> code_ranges(const ElfBinary& binary, const FunctionSamples& f) {
    std::vector<uint64_t> addresses;
    for (const CodeLocation* loc : f.locations) addresses.push_back(loc->address);
    std::sort(addresses.begin(), addresses.end());
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    for (uint64_t a : addresses) {
      if (!ranges.empty() && a >= ranges.back().first && a < ranges.back().second) continue;
      const std::optional<FunctionBounds> b = function_bounds(binary, a);
      std::pair<uint64_t, uint64_t> r = b ? std::make_pair(b->start, b->end) : std::make_pair(a, a + 1);
      if (r.second - r.first > kMaxFunctionBytes) r = {std::max(r.first, a), std::min(r.second, a + kMaxFunctionBytes)};
      if (!ranges.empty() && r.first < ranges.back().second) r.first = ranges.back().second;
      ranges.push_back(r);
    }
    return ranges;
  }

  void disassemble(const ElfBinary& binary, AnnotatedFunction& out) {
    if (!disassembler_) disassembler_ = X86Disassembler::open(options_.syntax);
    if (!*disassembler_) {
      out.notes.push_back("no disassembly: Capstone could not be loaded (" + capstone_load_problem() +
                          "); install " + capstone_package());
      return;
    }
    for (const auto& [start, end] : out.ranges) {
      const Bytes code = binary.code_at(start, end - start, true);
      if (code.size() < end - start)
        out.notes.push_back("the code at " + hex(start + code.size()) + " is not in an executable segment of the file");
      for (InstructionText& insn : (*disassembler_)->disassemble(code, start)) {
        AnnotatedInstruction a;
        a.address = insn.address;
        a.size = insn.size;
        a.text = std::move(insn.text);
        if (insn.target) a.text += target_label(binary, insn.target, options_.symbols.demangle);
        out.instructions.push_back(std::move(a));
      }
    }
  }

  // Each sampled address's samples on the instruction holding it.
  static void place_samples(const FunctionSamples& f, AnnotatedFunction& out) {
    auto& insns = out.instructions;
    uint64_t outside = 0;
    for (const CodeLocation* loc : f.locations) {
      auto it = std::upper_bound(insns.begin(), insns.end(), loc->address,
                                 [](uint64_t a, const AnnotatedInstruction& i) { return a < i.address; });
      if (it == insns.begin() || loc->address >= std::prev(it)->address + std::prev(it)->size) {
        outside += loc->self;
        continue;
      }
      std::prev(it)->samples += loc->self;
      std::prev(it)->weight += loc->self_weight;
    }
    if (outside)
      out.notes.push_back(std::to_string(outside) + " samples are at addresses no instruction shown starts or covers");
  }

  // Each instruction's inline chain from DWARF, then the samples of each
  // line at each depth, with the lines' text.
  void add_lines(const std::shared_ptr<const ElfBinary>& binary, AnnotatedFunction& out) {
    DebugInfo& dwarf = debug_info(binary);
    bool any = false;
    for (AnnotatedInstruction& insn : out.instructions) {
      const std::vector<SourceFrame> frames = dwarf.frames_at(insn.address);
      if (frames.back().line == 0 && frames.front().line == 0) continue;
      for (auto f = frames.rbegin(); f != frames.rend(); ++f) insn.where.push_back({f->function, f->file, f->line});
      any = true;
    }
    if (!any) {
      out.notes.push_back("no line information: the binary and its debuginfo have no DWARF lines for this code "
                          "(build with -g, or install its debuginfo)");
      return;
    }
    out.lines = line_totals(out);
    add_source(out);
  }

  static std::vector<AnnotatedLine> line_totals(const AnnotatedFunction& out) {
    std::map<std::tuple<uint32_t, bool, std::string, std::string, uint32_t>, AnnotatedLine> lines;
    for (const AnnotatedInstruction& insn : out.instructions)
      for (uint32_t depth = 0; depth < insn.where.size(); ++depth) {
        const SourcePosition& at = insn.where[depth];
        AnnotatedLine& l = lines[{depth, at.file != out.file, at.function, at.file, at.line}];
        l.depth = depth;
        l.at = at;
        l.samples += insn.samples;
        l.weight += insn.weight;
      }
    std::vector<AnnotatedLine> result;
    for (auto& [key, line] : lines) result.push_back(std::move(line));
    return result;
  }

  // The lines' text; the function's own lines in its file as one listing
  // (the lines between them, and its declaration just above, for context).
  void add_source(AnnotatedFunction& out) {
    std::vector<std::string> missing;
    for (AnnotatedLine& l : out.lines) {
      const std::vector<std::string>* text = sources_.lines(l.at.file);
      if (!text) {
        if (!l.at.file.empty() && std::find(missing.begin(), missing.end(), l.at.file) == missing.end())
          missing.push_back(l.at.file);
        continue;
      }
      if (l.at.line >= 1 && l.at.line <= text->size()) l.source = expand_tabs((*text)[l.at.line - 1]);
    }
    for (const std::string& file : missing)
      out.notes.push_back("source file " + file + " not found (give its folder with --source-dir, or --prefix-map OLD=NEW)");
    add_context_lines(out);
  }

  void add_context_lines(AnnotatedFunction& out) {
    const std::vector<std::string>* text = sources_.lines(out.file);
    if (!text) return;
    std::vector<AnnotatedLine> own, rest;
    for (AnnotatedLine& l : out.lines) (l.depth == 0 && l.at.file == out.file ? own : rest).push_back(std::move(l));
    out.lines.clear();
    if (!own.empty()) {
      std::stable_sort(own.begin(), own.end(),
                       [](const AnnotatedLine& a, const AnnotatedLine& b) { return a.at.line < b.at.line; });
      out.lines = listing(own, *text, out.line);
    }
    out.lines.insert(out.lines.end(), rest.begin(), rest.end());
  }

  // `own` (by line) with the lines of `text` between them, from the
  // declaration at `decl` when it is just above.
  static std::vector<AnnotatedLine> listing(std::vector<AnnotatedLine>& own, const std::vector<std::string>& text,
                                            uint32_t decl) {
    uint32_t first = own.front().at.line;
    const uint32_t last = own.back().at.line;
    if (decl && decl < first && first - decl <= kMaxLeadingLines) first = decl;
    std::vector<AnnotatedLine> out;
    size_t next = 0;
    for (uint32_t n = first; n <= last; ++n) {
      if (next < own.size() && own[next].at.line == n) {
        while (next < own.size() && own[next].at.line == n) out.push_back(std::move(own[next++]));
        continue;
      }
      if (n == 0 || n > text.size()) continue;
      AnnotatedLine context;
      context.at = SourcePosition{own.front().at.function, own.front().at.file, n};
      context.code = false;
      context.source = expand_tabs(text[n - 1]);
      out.push_back(std::move(context));
    }
    while (next < own.size()) out.push_back(std::move(own[next++]));
    return out;
  }

  DebugInfo& debug_info(const std::shared_ptr<const ElfBinary>& binary) {
    auto& slot = dwarf_[binary.get()];
    if (!slot) slot = std::make_unique<DebugInfo>(binary, symbols_);
    return *slot;
  }

  static std::string hex(uint64_t v) {
    char buf[24];
    snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
  }

  const Profile& p_;
  const AnnotateOptions& options_;
  SymbolizerOptions symbols_;
  SourceFiles sources_;
  std::optional<std::optional<X86Disassembler>> disassembler_;  // opened on first use; inner nullopt: cannot be
  std::unordered_map<const ElfBinary*, std::unique_ptr<DebugInfo>> dwarf_;
};

}  // namespace

Annotation annotate(const Profile& profile, const AnnotateOptions& options) {
  if (profile.addresses.detail() == AddressDetail::kNone)
    throw Error("'" + profile.source + "' has no samples by address: annotate needs a recording");
  std::optional<NameFilter> filter;
  if (!options.frame && !options.function.empty()) filter.emplace(options.function, "function");
  Annotation a;
  a.samples = profile.tree.total();
  a.weight = profile.tree.total_weight();
  std::vector<FunctionSamples> chosen;
  for (FunctionSamples& f : functions_with_samples(profile))
    if (options.frame ? f.frame == *options.frame : !filter || selected(profile, f, *filter)) chosen.push_back(std::move(f));
  if (chosen.empty() && filter)
    throw Error("no function matching '" + options.function + "' has samples in '" + profile.source + "'");
  a.matched = chosen.size();
  if (chosen.size() > options.top) chosen.resize(options.top);
  Annotator annotator(profile, options);
  for (const FunctionSamples& f : chosen) a.functions.push_back(annotator.annotate(f));
  return a;
}

}  // namespace swprof
