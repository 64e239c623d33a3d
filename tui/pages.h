#pragma once
// The pages of the browser, each the model of one screen: its rows, its
// selection (a Cursor) and what its own keys do. tui/render.h draws them;
// tui/browser.h keeps them in a stack and gives them the keys.
//
//   FunctionsPage  the top functions (tui/function_list.h), sortable
//   TreePage       the calling-context tree, or a function's callers and
//                  callees (tui/caller_callee.h), as an Outline
//   TextPage       lines of text: an annotation, the help

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "profile/profile.h"
#include "tui/caller_callee.h"
#include "tui/cursor.h"
#include "tui/function_list.h"
#include "tui/key_map.h"
#include "tui/outline.h"
#include "tui/search.h"

namespace swprof::tui {

enum class PageKind { kFunctions, kTree, kText };

// The function a page's selection names, and its share there.
struct Selection {
  uint32_t frame = 0;  // of the profile's CallTree
  uint64_t self = 0, total = 0;
  bool self_known = true;  // false in a callers tree, where a node's self is not the function's
};

class Page {
 public:
  virtual ~Page() = default;
  virtual PageKind kind() const = 0;
  // What the title line names (names as the profile has them: not escaped).
  virtual std::string title() const = 0;
  virtual size_t row_count() const = 0;
  virtual std::optional<Selection> selection() const { return std::nullopt; }
  // Carries out a command of the page's own (opening nodes, sorting,
  // scrolling a text); false when the page takes no such command.
  virtual bool act(Command) { return false; }

  // A search goes through the page's positions in order: the rows of a
  // list, every node of a tree (shown or not).
  virtual size_t search_size() const = 0;
  // The position of the selection.
  virtual size_t search_position() const = 0;
  virtual bool search_matches(size_t position, const NameMatcher& matcher) const = 0;
  // Selects the row of the position (opening what hides it).
  virtual void search_select(size_t position) = 0;

  const Cursor& cursor() const { return cursor_; }
  Cursor& cursor() { return cursor_; }
  // Rows shown at a time.
  void set_height(size_t height) { cursor_.resize(row_count(), height); }

 protected:
  void rows_changed() { cursor_.resize(row_count(), cursor_.height()); }

  Cursor cursor_;
};

class FunctionsPage : public Page {
 public:
  FunctionsPage(const Profile& profile, InlineRows rows);
  PageKind kind() const override { return PageKind::kFunctions; }
  std::string title() const override;
  size_t row_count() const override { return list_.rows().size(); }
  std::optional<Selection> selection() const override;
  bool act(Command command) override;
  size_t search_size() const override { return row_count(); }
  size_t search_position() const override { return cursor_.selected(); }
  bool search_matches(size_t position, const NameMatcher& matcher) const override;
  void search_select(size_t position) override { cursor_.select(position); }

  const FunctionList& list() const { return list_; }

 private:
  Measure measure_;
  FunctionList list_;
};

class TreePage : public Page {
 public:
  // The profile's calling-context tree.
  explicit TreePage(const Profile& profile);
  // A function's callers and callees, both opened one level.
  TreePage(const Profile& profile, CallerCallee sandwich);

  PageKind kind() const override { return PageKind::kTree; }
  std::string title() const override;
  size_t row_count() const override { return outline_.rows().size(); }
  std::optional<Selection> selection() const override;
  bool act(Command command) override;
  size_t search_size() const override { return outline_.node_count(); }
  size_t search_position() const override;
  bool search_matches(size_t position, const NameMatcher& matcher) const override;
  void search_select(size_t position) override;

  const Outline& outline() const { return outline_; }
  // What a tree's top row is, after its name: "callers", "callees"; empty
  // for the calling-context tree.
  std::string caption(uint32_t tree) const;
  // Whether a row's self share means something: not in a callers tree
  // (there F's self is in the callees tree's top row).
  bool shows_self(const OutlineRow& row) const;
  // The profile's frame of a row's node.
  uint32_t profile_frame(const OutlineRow& row) const;

 private:
  bool collapse_or_go_up();

  const Profile& profile_;
  std::unique_ptr<const CallerCallee> sandwich_;  // the outline's trees, when not the profile's
  Outline outline_;
  // The search's matching frames, per tree, for the pattern last asked.
  mutable std::string matched_pattern_;
  mutable std::vector<std::vector<uint8_t>> matched_frames_;
};

class TextPage : public Page {
 public:
  // `lines` are terminal_safe already (one line each, no control byte).
  TextPage(std::string title, std::string heading, std::vector<std::string> lines);

  PageKind kind() const override { return PageKind::kText; }
  std::string title() const override { return title_; }
  size_t row_count() const override { return lines_.size(); }
  bool act(Command command) override;
  size_t search_size() const override { return lines_.size(); }
  size_t search_position() const override { return cursor_.selected(); }
  bool search_matches(size_t position, const NameMatcher& matcher) const override {
    return matcher.matches(lines_[position]);
  }
  void search_select(size_t position) override { cursor_.select(position); }

  const std::string& heading() const { return heading_; }
  const std::vector<std::string>& lines() const { return lines_; }
  // Columns scrolled off to the left.
  size_t column() const { return column_; }

  static constexpr size_t kScrollColumns = 8;

 private:
  std::string title_, heading_;
  std::vector<std::string> lines_;
  size_t widest_ = 0;
  size_t column_ = 0;
};

}  // namespace swprof::tui
