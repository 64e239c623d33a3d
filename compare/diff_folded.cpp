// `swprof diff --folded`: FlameGraph's difffolded format.

#include "compare/diff_folded.h"

#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "output/folded_writer.h"

namespace swprof {
namespace {

// A context with samples of its own on either side: its folded stack (NEW's
// names when NEW has it) and both counts.
struct Line {
  std::string stack;
  uint64_t base = 0, current = 0;
};
using LinesById = std::unordered_map<uint64_t, Line>;

// Adds the self samples of every context of `tree` to the base or the
// current count of its line; a line's stack comes from the first tree that
// has it.
void collect(const CallTree& tree, bool is_current, LinesById& by_id) {
  std::vector<std::string> names;
  for (const CctFrame& f : tree.frames()) names.push_back(folded_frame_name(f, false));
  for (uint32_t i = 1; i < tree.nodes().size(); ++i) {
    const CctNode& n = tree.node(i);
    if (!n.self) continue;
    Line& line = by_id[n.context_id];
    if (line.stack.empty())
      for (uint32_t f : tree.path(i)) line.stack += (line.stack.empty() ? "" : ";") + names[f];
    (is_current ? line.current : line.base) += n.self;
  }
}

// One line per stack text: contexts that read the same (a function of one
// name in two modules, names that differ only in characters the folded
// format replaces) share it.
std::map<std::string, std::pair<uint64_t, uint64_t>> by_stack(const LinesById& by_id) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> sorted;
  for (const auto& [id, line] : by_id) {
    auto& counts = sorted[line.stack];
    counts.first += line.base;
    counts.second += line.current;
  }
  return sorted;
}

}  // namespace

void write_diff_folded(const CallTree& base, const CallTree& current, std::ostream& out) {
  LinesById by_id;
  collect(current, true, by_id);
  collect(base, false, by_id);
  for (const auto& [stack, counts] : by_stack(by_id)) out << stack << ' ' << counts.first << ' ' << counts.second << '\n';
}

}  // namespace swprof
