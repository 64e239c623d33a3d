// The pages of the browser (tui/pages.h).

#include "tui/pages.h"

#include <algorithm>

#include "output/text_width.h"

namespace swprof::tui {

FunctionsPage::FunctionsPage(const Profile& profile, InlineRows rows) : measure_(profile), list_(profile, rows) {
  rows_changed();
}

std::string FunctionsPage::title() const {
  return std::string("Top functions by ") + function_order_name(list_.order());
}

std::optional<Selection> FunctionsPage::selection() const {
  if (list_.rows().empty()) return std::nullopt;
  const FunctionRow& r = list_.rows()[cursor_.selected()];
  return Selection{r.frame, measure_.self(r), measure_.total(r), true};
}

bool FunctionsPage::act(Command command) {
  if (command != Command::kSort) return false;
  // The selected function stays selected, wherever the new order puts it.
  const std::optional<Selection> selected = selection();
  list_.sort_next();
  if (!selected) return true;
  const auto& rows = list_.rows();
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const FunctionRow& r) { return r.frame == selected->frame; });
  cursor_.select(static_cast<size_t>(it - rows.begin()));
  return true;
}

bool FunctionsPage::search_matches(size_t position, const NameMatcher& matcher) const {
  return matcher.matches(list_.frame(position).function);
}

TreePage::TreePage(const Profile& profile) : profile_(profile), outline_({&profile.tree}, Measure(profile)) {
  rows_changed();
}

TreePage::TreePage(const Profile& profile, CallerCallee sandwich)
    : profile_(profile),
      sandwich_(std::make_unique<const CallerCallee>(std::move(sandwich))),
      outline_({&sandwich_->callers, &sandwich_->callees}, Measure(profile)) {
  for (size_t r = outline_.rows().size(); r-- > 0;)
    if (outline_.rows()[r].depth == 0) outline_.set_expanded(r, true);
  rows_changed();
}

std::string TreePage::title() const {
  if (!sandwich_) return "Calling-context tree";
  const CctFrame& f = profile_.tree.frame(sandwich_->function);
  return "Callers and callees of " + f.function + "  " + module_label(f.module);
}

std::string TreePage::caption(uint32_t tree) const {
  if (!sandwich_) return "";
  // A tree built leaf first has the callees above a frame.
  const bool callers = (tree == 0) != profile_.reversed;
  return callers ? "callers" : "callees";
}

bool TreePage::shows_self(const OutlineRow& row) const { return !sandwich_ || row.tree == 1; }

uint32_t TreePage::profile_frame(const OutlineRow& row) const {
  const uint32_t frame = outline_.tree(row.tree).node(row.node).frame;
  if (!sandwich_) return frame;
  return row.tree == 0 ? sandwich_->callers_profile_frame[frame] : sandwich_->callees_profile_frame[frame];
}

std::optional<Selection> TreePage::selection() const {
  if (outline_.rows().empty()) return std::nullopt;
  const OutlineRow& row = outline_.rows()[cursor_.selected()];
  const CctNode& node = outline_.node(row);
  const Measure m(profile_);
  return Selection{profile_frame(row), m.self(node), m.total(node), shows_self(row)};
}

bool TreePage::act(Command command) {
  const size_t row = cursor_.selected();
  const std::vector<OutlineRow>& rows = outline_.rows();
  switch (command) {
    case Command::kActivate:
      if (rows.empty()) return true;
      outline_.set_expanded(row, !outline_.expanded(rows[row]));
      break;
    case Command::kExpand:
      if (!rows.empty()) outline_.set_expanded(row, true);
      break;
    case Command::kCollapse: return collapse_or_go_up();
    case Command::kExpandSubtree: outline_.set_subtree_expanded(row, true); break;
    case Command::kCollapseSubtree: outline_.set_subtree_expanded(row, false); break;
    case Command::kExpandAll: outline_.set_all_expanded(true); break;
    case Command::kCollapseAll: {
      // The selection goes to the top row of its tree.
      const size_t position = rows.empty() ? 0 : outline_.position_of(rows[row]);
      outline_.set_all_expanded(false);
      rows_changed();
      if (!rows.empty()) {
        OutlineRow top = outline_.node_at(position);
        const CallTree& tree = outline_.tree(top.tree);
        while (tree.node(top.node).parent != CallTree::kRoot) top.node = tree.node(top.node).parent;
        top.depth = 0;
        cursor_.select(static_cast<size_t>(std::find(rows.begin(), rows.end(), top) - rows.begin()));
      }
      return true;
    }
    default: return false;
  }
  rows_changed();
  return true;
}

// An open node closes; else the selection goes to the parent; at a closed
// top row, nothing to do (false: the browser goes back from a sub-view).
bool TreePage::collapse_or_go_up() {
  const std::vector<OutlineRow>& rows = outline_.rows();
  if (rows.empty()) return false;
  const size_t row = cursor_.selected();
  if (outline_.expanded(rows[row]) && outline_.has_children(rows[row])) {
    outline_.set_expanded(row, false);
    rows_changed();
    return true;
  }
  const std::optional<size_t> parent = outline_.parent_row(row);
  if (!parent) return false;
  cursor_.select(*parent);
  return true;
}

size_t TreePage::search_position() const {
  if (outline_.rows().empty()) return 0;
  return outline_.position_of(outline_.rows()[cursor_.selected()]);
}

bool TreePage::search_matches(size_t position, const NameMatcher& matcher) const {
  if (matched_frames_.empty() || matched_pattern_ != matcher.pattern()) {
    matched_pattern_ = matcher.pattern();
    matched_frames_.assign(outline_.tree_count(), {});
    for (uint32_t t = 0; t < outline_.tree_count(); ++t)
      for (const CctFrame& f : outline_.tree(t).frames()) matched_frames_[t].push_back(matcher.matches(f.function));
  }
  const OutlineRow at = outline_.node_at(position);
  return matched_frames_[at.tree][outline_.tree(at.tree).node(at.node).frame];
}

void TreePage::search_select(size_t position) {
  const size_t row = outline_.reveal(position);
  rows_changed();
  cursor_.select(row);
}

TextPage::TextPage(std::string title, std::string heading, std::vector<std::string> lines)
    : title_(std::move(title)), heading_(std::move(heading)), lines_(std::move(lines)) {
  for (const std::string& l : lines_) widest_ = std::max(widest_, display_width(l));
  rows_changed();
}

bool TextPage::act(Command command) {
  if (command == Command::kExpand) {
    if (column_ + kScrollColumns < widest_) column_ += kScrollColumns;
    return true;
  }
  if (command == Command::kCollapse && column_ > 0) {
    column_ -= std::min(column_, kScrollColumns);
    return true;
  }
  return false;
}

}  // namespace swprof::tui
