#pragma once
// The browser's model: the profile, its two main pages (top functions and
// the calling-context tree) and a stack of sub-pages over them (a
// function's callers and callees, its annotation, the help), the search,
// and what a key does to them. No terminal here: tui/render.h draws a
// Browser, tui/browse.h runs one on the terminal, and the tests press its
// keys directly.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "output/annotate.h"
#include "profile/function_table.h"
#include "profile/profile.h"
#include "tui/key_map.h"
#include "tui/pages.h"

namespace swprof::tui {

struct BrowseOptions {
  InlineRows inlined = InlineRows::kMerge;  // rows of the top functions (--inlined)
  // How `a` reads a function's code and source: symbols, source folders,
  // syntax. The function is the selection's.
  AnnotateOptions annotate;
};

class Browser {
 public:
  // Lines of the screen besides the page's rows: the title, the page's
  // column heading and the status line.
  static constexpr size_t kChromeLines = 3;

  Browser(const Profile& profile, BrowseOptions options);

  // The screen's size in columns and lines.
  void resize(size_t width, size_t height);
  size_t width() const { return width_; }
  size_t height() const { return height_; }

  void press(Key key);
  bool done() const { return done_; }
  // Work a key started that takes a while (annotating reads the binary and
  // its DWARF): busy() says what it is, for the screen to show before
  // run_pending() does it.
  const std::string& busy() const { return busy_; }
  void run_pending();

  const Profile& profile() const { return profile_; }
  const Page& page() const;
  // A sub-page is shown (Esc goes back).
  bool in_sub_page() const { return !sub_.empty(); }
  // A line for the status bar after a key ("no match", ...); empty when none.
  const std::string& message() const { return message_; }
  bool typing_search() const { return typing_; }
  // The pattern being typed, or else the last one searched.
  const std::string& search_text() const { return typing_ ? typed_ : pattern_; }

 private:
  Page& current();  // page(), to change
  void push(std::unique_ptr<Page> page);
  void back();
  void run(Command command);
  void search_key(Key key);
  // Finds the pattern from `from`, forward or back, `from` itself included
  // or not; selects the match or says there is none.
  void find(const std::string& pattern, size_t from, bool forward, bool include_from);
  void next_match(bool forward);
  // The frame of the function the selection names, out of line when its
  // row has such a frame (what annotate and callers/callees show).
  std::optional<uint32_t> selected_function();
  void open_caller_callee();
  void start_annotate();
  std::unique_ptr<Page> annotation_page(uint32_t frame) const;
  std::unique_ptr<Page> help_page() const;

  const Profile& profile_;
  BrowseOptions options_;
  size_t width_ = 80, height_ = 24;
  std::unique_ptr<Page> main_[2];  // top functions, calling-context tree
  size_t shown_main_ = 0;
  std::vector<std::unique_ptr<Page>> sub_;
  bool done_ = false;
  std::string message_;
  std::string busy_;
  std::function<void()> pending_;
  // The search: typing (`/` until Enter or Esc) and the last pattern.
  bool typing_ = false;
  std::string typed_, pattern_;
  size_t origin_ = 0;  // the search position when `/` was pressed
};

}  // namespace swprof::tui
