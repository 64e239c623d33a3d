#include "output/flamegraph.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "common/error.h"
#include "output/flamegraph_assets.h"
#include "output/html_escape.h"
#include "profile/function_table.h"

namespace swprof {
namespace {

// The data the page reads, as compact JSON: a frame table and per-node
// arrays in pre-order, rather than one object per node.
//
// {
//   "format": "swprof-flamegraph", "version": 1,
//   "unit": "samples", "icicle": false,
//   "reversed": false,                          // the stacks run leaf first (--reverse)
//   "modules": ["", "libc.so.6", ...],          // index 0: no module
//   "files": ["", "src/main.c", ...],           // index 0: no file
//   "frames": {                                 // frame 0 is the root, "all"; the others
//                                               // sorted by name, front-coded:
//     "prefix": [...], "name": [...],           // name[i] = name[i-1].slice(0, prefix[i]) + name[i]
//     "module": [...], "file": [...], "line": [...],
//     "flags": [...],                           // CctFrameFlags bits
//     "sameFunction": [...]                     // frames that are one function with the frame before
//                                               // them (an inlined copy: function_key, kMerge)
//   },
//   "nodes": {                                  // pre-order; node 0 is the root
//     "frame": [...], "depth": [...],           // root depth 0, child = parent + 1
//     "total": [...],                           // samples through the node (off_cpu: its weight, ns)
//     "off": [...],                             // off_cpu only: of total, off-CPU ns
//     "base": [...]                             // differential only
//   },
//   "baseTotal": 123,                           // differential only
//   "timeline": {                               // a profile with a timeline only
//     "threads": {"name": [...], "tid": [...],  // a lane per thread, "comm [tid]"
//                 "blocks": [...]},             // how many blocks each lane has, in order
//     "blocks": {                               // the lanes' blocks one lane after the other
//       "node": [...],                          // the stack's leaf node
//       "gap": [...], "length": [...],          // µs from the lane's previous block (or from the
//                                               // recording's start), µs long
//       "samples": [...]
//     },
//     "end": 123,                               // µs: the end of the latest block
//     "cut": {"at": 123, "blocks": 456}         // only when bounded: blocks from `at` µs on are left
//                                               // out, of `blocks` in all
//   },
//   "sourceLines": {                            // FlamegraphOptions::source_lines, when given:
//     "frame": [...], "file": [...],            // a frame of the function, the line's file
//     "line": [...], "samples": [...]
//   }
// }
//
// A node's parent is the nearest earlier node one level up; self counts are
// total minus the children's totals. Children are ordered by (function,
// module, flags) so the page is deterministic; so are the frames, which puts
// a function's inlined copies right after it (the inline mark is the lowest
// flag bit), as sameFunction needs. Prefix lengths count UTF-16 code units
// (JavaScript string indices); names are valid UTF-8, invalid bytes replaced
// by U+FFFD.
class FlamegraphData {
 public:
  FlamegraphData(const CallTree& tree, const FlamegraphOptions& options) : tree_(tree), options_(options) {
    modules_.intern("");
    files_.intern("");
    rank_frames();
    collect_nodes();
    build_frames();
    collect_source_lines();
  }

  // Per tree node, the page node that stands for it: its own, or its
  // nearest ancestor's when it is left out.
  std::vector<uint32_t> page_nodes() const {
    std::vector<uint32_t> page(tree_.nodes().size(), kUnused);
    for (uint32_t i = 0; i < nodes_.size(); ++i) page[nodes_[i].tree_node] = i;
    for (uint32_t n = 1; n < page.size(); ++n)  // a parent comes before its children
      if (page[n] == kUnused) page[n] = page[tree_.node(n).parent];
    return page;
  }

  void write(std::string& out, const TimeOrder& order) const {
    out += "{\"format\":\"swprof-flamegraph\",\"version\":1,\"unit\":";
    append_script_json_string(out, options_.unit);
    out += ",\"icicle\":";
    out += options_.icicle ? "true" : "false";
    out += ",\"reversed\":";
    out += options_.reversed ? "true" : "false";
    out += ",\"modules\":";
    append_strings(out, modules_.values);
    out += ",\"files\":";
    append_strings(out, files_.values);
    write_frames(out);
    write_nodes(out);
    if (options_.differential) {
      out += ",\"baseTotal\":";
      append_number(out, options_.base_total);
    }
    if (!order.lanes.empty()) write_time_order(out, order);
    if (!source_lines_.empty()) write_source_lines(out);
    out += "}";
  }

 private:
  static constexpr uint32_t kUnused = UINT32_MAX;

  struct StringTable {
    std::vector<std::string_view> values;
    std::unordered_map<std::string_view, uint32_t> index;
    uint32_t intern(std::string_view s) {
      auto [it, inserted] = index.try_emplace(s, static_cast<uint32_t>(values.size()));
      if (inserted) values.push_back(s);
      return it->second;
    }
  };
  struct PageFrame {
    std::string name;
    uint32_t module = 0, file = 0, line = 0, flags = 0;
    uint32_t tree_frame = CallTree::kNoFrame;
  };
  struct PageSourceLine {
    uint32_t frame = 0, file = 0, line = 0;
    uint64_t samples = 0;
  };
  struct PageNode {
    uint32_t tree_node, frame, depth;
  };

  // The order of the tree's frames by (function, module, flags): children
  // are sorted by it, and the frame table follows it so that neighbouring
  // names share prefixes.
  void rank_frames() {
    by_rank_.resize(tree_.frames().size());
    for (uint32_t i = 0; i < by_rank_.size(); ++i) by_rank_[i] = i;
    std::sort(by_rank_.begin(), by_rank_.end(), [this](uint32_t a, uint32_t b) {
      const CctFrame& x = tree_.frame(a);
      const CctFrame& y = tree_.frame(b);
      return std::tie(x.function, x.module, x.flags) < std::tie(y.function, y.module, y.flags);
    });
    rank_.resize(by_rank_.size());
    for (uint32_t r = 0; r < by_rank_.size(); ++r) rank_[by_rank_[r]] = r;
  }

  // Pre-order walk from the root, leaving out nodes below the threshold.
  // Node frames are tree frame indices until build_frames.
  void collect_nodes() {
    const double threshold = options_.min_fraction * static_cast<double>(width(tree_.node(CallTree::kRoot)));
    std::vector<std::pair<uint32_t, uint32_t>> stack{{CallTree::kRoot, 0}};  // (tree node, depth)
    std::vector<uint32_t> children;
    while (!stack.empty()) {
      const auto [id, depth] = stack.back();
      stack.pop_back();
      const CctNode& node = tree_.node(id);
      nodes_.push_back({id, node.frame, depth});
      children.clear();
      for (uint32_t c : node.children) {
        const uint64_t total = width(tree_.node(c));
        if (total > 0 && static_cast<double>(total) >= threshold) children.push_back(c);
      }
      std::sort(children.begin(), children.end(),
                [this](uint32_t a, uint32_t b) { return rank_[tree_.node(a).frame] < rank_[tree_.node(b).frame]; });
      for (auto it = children.rbegin(); it != children.rend(); ++it) stack.emplace_back(*it, depth + 1);
    }
  }

  // The page's frame table: "all", then the frames the nodes use, in rank order.
  void build_frames() {
    std::vector<uint32_t>& page_index = page_frame_;
    page_index.assign(tree_.frames().size(), kUnused);
    for (const PageNode& n : nodes_)
      if (n.frame != CallTree::kNoFrame) page_index[n.frame] = 0;
    frames_.push_back(PageFrame{"all"});
    for (uint32_t tree_frame : by_rank_) {
      if (page_index[tree_frame] == kUnused) continue;
      const CctFrame& f = tree_.frame(tree_frame);
      page_index[tree_frame] = static_cast<uint32_t>(frames_.size());
      frames_.push_back(PageFrame{valid_utf8(f.function), modules_.intern(f.module), files_.intern(f.file), f.line,
                                  f.flags, tree_frame});
    }
    for (PageNode& n : nodes_) n.frame = n.frame == CallTree::kNoFrame ? 0 : page_index[n.frame];
  }

  // The given source lines of frames on the page, by page frame.
  void collect_source_lines() {
    for (const FlamegraphSourceLine& l : options_.source_lines) {
      if (l.frame >= page_frame_.size() || page_frame_[l.frame] == kUnused) continue;
      source_lines_.push_back({page_frame_[l.frame], files_.intern(l.file), l.line, l.samples});
    }
  }

  uint64_t width(const CctNode& n) const { return options_.off_cpu ? n.total_weight : n.total; }

  static void append_number(std::string& out, uint64_t value) {
    char buffer[24];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, end);
  }

  static void append_strings(std::string& out, const std::vector<std::string_view>& values) {
    out += '[';
    for (size_t i = 0; i < values.size(); ++i) {
      if (i) out += ',';
      append_script_json_string(out, values[i]);
    }
    out += ']';
  }

  template <typename Items, typename Value>
  static void append_array(std::string& out, const char* key, const Items& items, Value value) {
    out += '"';
    out += key;
    out += "\":[";
    bool first = true;
    for (const auto& item : items) {
      if (!first) out += ',';
      first = false;
      append_number(out, value(item));
    }
    out += ']';
  }

  // Length in bytes of the common prefix of a and b, ending on a character boundary.
  static size_t shared_prefix(std::string_view a, std::string_view b) {
    size_t n = std::mismatch(a.begin(), a.begin() + std::min(a.size(), b.size()), b.begin()).first - a.begin();
    while (n > 0 && n < a.size() && (static_cast<unsigned char>(a[n]) & 0xC0) == 0x80) --n;
    return n;
  }

  void write_frames(std::string& out) const {
    std::vector<size_t> prefix(frames_.size(), 0);
    for (size_t i = 1; i < frames_.size(); ++i) prefix[i] = shared_prefix(frames_[i - 1].name, frames_[i].name);
    out += ",\"frames\":{\"prefix\":[";
    for (size_t i = 0; i < frames_.size(); ++i) {
      if (i) out += ',';
      append_number(out, utf16_length(std::string_view(frames_[i].name).substr(0, prefix[i])));
    }
    out += "],\"name\":[";
    for (size_t i = 0; i < frames_.size(); ++i) {
      if (i) out += ',';
      append_script_json_string(out, std::string_view(frames_[i].name).substr(prefix[i]));
    }
    out += "],";
    append_array(out, "module", frames_, [](const PageFrame& f) { return f.module; });
    out += ',';
    append_array(out, "file", frames_, [](const PageFrame& f) { return f.file; });
    out += ',';
    append_array(out, "line", frames_, [](const PageFrame& f) { return f.line; });
    out += ',';
    append_array(out, "flags", frames_, [](const PageFrame& f) { return f.flags; });
    out += ',';
    append_array(out, "sameFunction", same_function_frames(), [](uint32_t f) { return f; });
    out += '}';
  }

  // The page frames that are one function with the frame before them. The
  // frames' order puts the frames of a function together (see above).
  std::vector<uint32_t> same_function_frames() const {
    std::vector<uint32_t> same;
    std::string previous;
    for (uint32_t i = 1; i < frames_.size(); ++i) {
      std::string key = function_key(tree_.frame(frames_[i].tree_frame), InlineRows::kMerge);
      if (i > 1 && !key.empty() && key == previous) same.push_back(i);
      previous = std::move(key);
    }
    return same;
  }

  void write_time_order(std::string& out, const TimeOrder& order) const {
    std::vector<std::string_view> names;
    std::vector<const TimeBlock*> blocks;
    for (const ThreadLane& lane : order.lanes) {
      names.push_back(lane.name);
      for (const TimeBlock& b : lane.blocks) blocks.push_back(&b);
    }
    out += ",\"timeline\":{\"threads\":{\"name\":";
    append_strings(out, names);
    out += ',';
    append_array(out, "tid", order.lanes, [](const ThreadLane& l) { return l.tid; });
    out += ',';
    append_array(out, "blocks", order.lanes, [](const ThreadLane& l) { return l.blocks.size(); });
    out += "},\"blocks\":{";
    append_array(out, "node", blocks, [](const TimeBlock* b) { return b->node; });
    out += ',';
    std::vector<uint64_t> gaps;
    uint64_t end = 0;
    for (const ThreadLane& lane : order.lanes)
      for (size_t i = 0; i < lane.blocks.size(); ++i) {
        gaps.push_back(lane.blocks[i].start_us - (i ? lane.blocks[i - 1].end_us : 0));
        end = std::max(end, lane.blocks[i].end_us);
      }
    append_array(out, "gap", gaps, [](uint64_t g) { return g; });
    out += ',';
    append_array(out, "length", blocks, [](const TimeBlock* b) { return b->end_us - b->start_us; });
    out += ',';
    append_array(out, "samples", blocks, [](const TimeBlock* b) { return b->samples; });
    out += "},\"end\":";
    append_number(out, end);
    if (order.cut()) {
      out += ",\"cut\":{\"at\":";
      append_number(out, order.cut_us);
      out += ",\"blocks\":";
      append_number(out, order.all_blocks);
      out += '}';
    }
    out += '}';
  }

  void write_source_lines(std::string& out) const {
    out += ",\"sourceLines\":{";
    append_array(out, "frame", source_lines_, [](const PageSourceLine& l) { return l.frame; });
    out += ',';
    append_array(out, "file", source_lines_, [](const PageSourceLine& l) { return l.file; });
    out += ',';
    append_array(out, "line", source_lines_, [](const PageSourceLine& l) { return l.line; });
    out += ',';
    append_array(out, "samples", source_lines_, [](const PageSourceLine& l) { return l.samples; });
    out += '}';
  }

  void write_nodes(std::string& out) const {
    out += ",\"nodes\":{";
    append_array(out, "frame", nodes_, [](const PageNode& n) { return n.frame; });
    out += ',';
    append_array(out, "depth", nodes_, [](const PageNode& n) { return n.depth; });
    out += ',';
    append_array(out, "total", nodes_, [this](const PageNode& n) { return width(tree_.node(n.tree_node)); });
    if (options_.off_cpu) {
      out += ',';
      append_array(out, "off", nodes_, [this](const PageNode& n) { return tree_.node(n.tree_node).total_off_weight; });
    }
    if (options_.differential) {
      out += ',';
      append_array(out, "base", nodes_, [this](const PageNode& n) { return options_.base_totals[n.tree_node]; });
    }
    out += '}';
  }

  const CallTree& tree_;
  const FlamegraphOptions& options_;
  StringTable modules_, files_;
  std::vector<PageFrame> frames_;
  std::vector<uint32_t> by_rank_;  // tree frames in rank order
  std::vector<uint32_t> rank_;     // per tree frame
  std::vector<PageNode> nodes_;
  std::vector<uint32_t> page_frame_;  // per tree frame: its page frame, or kUnused
  std::vector<PageSourceLine> source_lines_;
};

// Writes the template with every {{NAME}} replaced by fill(NAME).
template <typename Fill>
void fill_template(std::string_view page, std::ostream& out, Fill fill) {
  size_t at = 0;
  while (true) {
    const size_t open = page.find("{{", at);
    if (open == std::string_view::npos) break;
    const size_t close = page.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    out << page.substr(at, open - at);
    fill(page.substr(open + 2, close - open - 2));
    at = close + 2;
  }
  out << page.substr(at);
}

void check_differential(const CallTree& tree, const FlamegraphOptions& options) {
  if (!options.differential) return;
  if (options.base_totals.size() != tree.nodes().size())
    throw Error("differential flame graph: " + std::to_string(options.base_totals.size()) + " base totals for " +
                std::to_string(tree.nodes().size()) + " nodes");
}

void write_page(const CallTree& tree, const Profile* profile, const FlamegraphOptions& options, std::ostream& out) {
  check_differential(tree, options);
  std::string data;
  const FlamegraphData page(tree, options);
  page.write(data, profile && !profile->timeline.empty() ? time_order(*profile, page.page_nodes(), options.max_time_blocks) : TimeOrder{});
  fill_template(flamegraph_assets::kPageHtml, out, [&](std::string_view name) {
    if (name == "TITLE")
      out << html_escape(options.title);
    else if (name == "SUBTITLE")
      out << html_escape(options.subtitle);
    else if (name == "STYLE")
      out << flamegraph_assets::kStyle;
    else if (name == "SCRIPT")
      out << flamegraph_assets::kScript;
    else if (name == "DATA")
      out << data;
    else
      throw std::logic_error("flamegraph.html: unknown placeholder " + std::string(name));
  });
}

}  // namespace

void write_flamegraph(const CallTree& tree, const FlamegraphOptions& options, std::ostream& out) {
  write_page(tree, nullptr, options, out);
}

void write_flamegraph(const Profile& profile, const FlamegraphOptions& options, std::ostream& out) {
  write_page(profile.tree, &profile, options, out);
}

}  // namespace swprof
