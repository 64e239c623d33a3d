// `swprof report --format folded`.

#include "output/folded_writer.h"

#include <algorithm>
#include <vector>

#include "common/text_escape.h"

namespace swprof {

std::string folded_frame_name(const CctFrame& frame, bool modules) {
  const bool with_module = modules && !(frame.flags & kCctThread);
  std::string name;
  if (with_module) name = frame.module + "`";
  name += frame.function;
  // ';' separates frames and a line ends the stack: neither may appear in a
  // name, they become '_'. Without a module, neither may '`': a reader would
  // take what comes before it for a module (and fail on "name`", an empty
  // function). Any other control character (an escape sequence) is written as
  // \xNN, as on a terminal.
  for (char& c : name)
    if (c == ';' || c == '\n' || c == '\r' || (c == '`' && !with_module)) c = '_';
  name = terminal_safe(name);
  if (frame.flags & kCctKernel) name += "_[k]";
  else if (frame.flags & kCctInline) name += "_[i]";
  if (frame.flags & kCctGuess) name += "_[g]";
  return name;
}

void write_folded(const CallTree& tree, const FoldedOptions& options, std::ostream& out) {
  std::vector<std::string> names;
  names.reserve(tree.frames().size());
  for (const CctFrame& f : tree.frames()) names.push_back(folded_frame_name(f, options.modules));

  std::vector<std::string> lines;
  std::string path;
  // Depth-first; `path` holds the stack of the node being visited.
  struct Item {
    uint32_t node;
    size_t path_len;  // length of `path` before this node's frame
  };
  std::vector<Item> stack;
  for (auto it = tree.node(CallTree::kRoot).children.rbegin(); it != tree.node(CallTree::kRoot).children.rend(); ++it)
    stack.push_back({*it, 0});
  while (!stack.empty()) {
    const Item item = stack.back();
    stack.pop_back();
    const CctNode& n = tree.node(item.node);
    path.resize(item.path_len);
    if (!path.empty()) path += ';';
    path += names[n.frame];
    const uint64_t value = options.weights ? n.self_weight : n.self;
    if (value) lines.push_back(path + ' ' + std::to_string(value));
    for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) stack.push_back({*it, path.size()});
  }
  std::sort(lines.begin(), lines.end());
  for (const auto& l : lines) out << l << '\n';
}

}  // namespace swprof
