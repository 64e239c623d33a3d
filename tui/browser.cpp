// The browser's model (tui/browser.h).

#include "tui/browser.h"

#include <algorithm>
#include <sstream>

#include "common/error.h"
#include "common/text_escape.h"
#include "output/annotate_writer.h"

namespace swprof::tui {
namespace {

void append_utf8(std::string& s, Key key) {
  const auto c = static_cast<uint32_t>(key);
  if (c < 0x80) {
    s += static_cast<char>(c);
  } else if (c < 0x800) {
    s += static_cast<char>(0xc0 | (c >> 6));
    s += static_cast<char>(0x80 | (c & 0x3f));
  } else if (c < 0x10000) {
    s += static_cast<char>(0xe0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (c & 0x3f));
  } else {
    s += static_cast<char>(0xf0 | (c >> 18));
    s += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (c & 0x3f));
  }
}

// Removes the last character (all its UTF-8 bytes).
void pop_utf8(std::string& s) {
  while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xc0) == 0x80) s.pop_back();
  if (!s.empty()) s.pop_back();
}

bool is_text_key(Key key) { return key >= 0x20 && key != 0x7f && key < keys::kUp; }

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!lines.empty() || !line.empty()) lines.push_back(std::move(line));
  return lines;
}

std::string function_label(const CctFrame& f) { return f.function + "  " + module_label(f.module); }

}  // namespace

Browser::Browser(const Profile& profile, BrowseOptions options) : profile_(profile), options_(std::move(options)) {
  main_[0] = std::make_unique<FunctionsPage>(profile, options_.inlined);
  main_[1] = std::make_unique<TreePage>(profile);
  resize(width_, height_);
}

void Browser::resize(size_t width, size_t height) {
  width_ = width;
  height_ = height;
  const size_t rows = height > kChromeLines ? height - kChromeLines : 1;
  for (auto& p : main_) p->set_height(rows);
  for (auto& p : sub_) p->set_height(rows);
}

const Page& Browser::page() const { return sub_.empty() ? *main_[shown_main_] : *sub_.back(); }
Page& Browser::current() { return sub_.empty() ? *main_[shown_main_] : *sub_.back(); }

void Browser::push(std::unique_ptr<Page> page) {
  page->set_height(height_ > kChromeLines ? height_ - kChromeLines : 1);
  sub_.push_back(std::move(page));
}

void Browser::back() {
  if (!sub_.empty()) sub_.pop_back();
}

void Browser::press(Key key) {
  if (!busy_.empty()) return;  // run_pending() first
  if (typing_) {
    search_key(key);
    return;
  }
  message_.clear();
  run(command_for(key));
}

void Browser::run(Command command) {
  if (current().kind() == PageKind::kFunctions && (command == Command::kActivate || command == Command::kExpand))
    command = Command::kCallerCallee;
  switch (command) {
    case Command::kNone:
    case Command::kRedraw: return;
    case Command::kQuit: done_ = true; return;
    case Command::kBack: back(); return;
    case Command::kUp: current().cursor().move(-1); return;
    case Command::kDown: current().cursor().move(1); return;
    case Command::kPageUp: current().cursor().page(-1); return;
    case Command::kPageDown: current().cursor().page(1); return;
    case Command::kHome: current().cursor().home(); return;
    case Command::kEnd: current().cursor().end(); return;
    case Command::kSwitchView:
      sub_.clear();
      shown_main_ = 1 - shown_main_;
      return;
    case Command::kSearch:
      typing_ = true;
      typed_.clear();
      origin_ = current().search_position();
      return;
    case Command::kNextMatch: next_match(true); return;
    case Command::kPreviousMatch: next_match(false); return;
    case Command::kCallerCallee: open_caller_callee(); return;
    case Command::kAnnotate: start_annotate(); return;
    case Command::kHelp: push(help_page()); return;
    default: break;
  }
  if (current().act(command)) return;
  if (command == Command::kCollapse && in_sub_page()) back();
}

void Browser::search_key(Key key) {
  if (key == keys::kEscape) {  // cancelled: back where it started
    typing_ = false;
    if (current().search_size()) current().search_select(origin_);
    return;
  }
  if (key == keys::kEnter || key == '\r' || !(is_text_key(key) || key == keys::kBackspace || key == 0x7f || key == 8)) {
    typing_ = false;
    if (!typed_.empty()) pattern_ = typed_;
    if (key != keys::kEnter && key != '\r') press(key);  // a key that is no text ends the typing, then acts
    return;
  }
  if (is_text_key(key)) append_utf8(typed_, key);
  else pop_utf8(typed_);
  message_.clear();
  if (typed_.empty()) {
    if (current().search_size()) current().search_select(origin_);
    return;
  }
  find(typed_, origin_, true, true);
}

void Browser::next_match(bool forward) {
  if (pattern_.empty()) {
    message_ = "no search yet: / to search";
    return;
  }
  find(pattern_, current().search_position(), forward, false);
}

void Browser::find(const std::string& pattern, size_t from, bool forward, bool include_from) {
  Page& p = current();
  const size_t n = p.search_size();
  const NameMatcher matcher(pattern);
  for (size_t step = include_from ? 0 : 1; n && step <= n; ++step) {
    const size_t at = forward ? (from + step) % n : (from + n - step % n) % n;
    if (!p.search_matches(at, matcher)) continue;
    p.search_select(at);
    if (forward ? at < from : at > from) message_ = forward ? "search wrapped to the top" : "search wrapped to the bottom";
    return;
  }
  message_ = "no match for '" + pattern + "'";
}

std::optional<uint32_t> Browser::selected_function() {
  const std::optional<Selection> s = current().selection();
  if (!s) return std::nullopt;
  for (uint32_t f : row_frames(profile_.tree, s->frame, options_.inlined))
    if (!(profile_.tree.frame(f).flags & kCctInline)) return f;
  return s->frame;
}

void Browser::open_caller_callee() {
  const std::optional<uint32_t> f = selected_function();
  if (!f) {
    message_ = "no function selected";
    return;
  }
  push(std::make_unique<TreePage>(profile_, caller_callee(profile_.tree, row_frames(profile_.tree, *f, options_.inlined), *f)));
}

void Browser::start_annotate() {
  const std::optional<uint32_t> f = selected_function();
  if (!f) {
    message_ = "no function selected";
    return;
  }
  busy_ = "annotating " + profile_.tree.frame(*f).function + "\u2026";
  pending_ = [this, frame = *f] { push(annotation_page(frame)); };
}

void Browser::run_pending() {
  if (!pending_) return;
  const std::function<void()> work = std::move(pending_);
  pending_ = nullptr;
  work();
  busy_.clear();
}

std::unique_ptr<Page> Browser::annotation_page(uint32_t frame) const {
  const CctFrame& f = profile_.tree.frame(frame);
  AnnotateOptions o = options_.annotate;
  o.frame = frame;
  o.top = 1;
  std::vector<std::string> lines;
  try {
    const Annotation a = annotate(profile_, o);
    if (a.functions.empty()) {
      lines = {"No samples in the code of " + terminal_safe(f.function) + " itself: its time is in the functions it calls,",
               "or in copies of it inlined into other functions (annotate those)."};
    } else {
      std::ostringstream text;
      write_annotated_function_text(a, a.functions.front(), profile_.weight_kind != WeightKind::kCpu, text);
      lines = split_lines(text.str());
    }
  } catch (const Error& e) {
    lines = {"annotate: " + terminal_safe(e.what())};
  }
  return std::make_unique<TextPage>("Annotation of " + function_label(f), "source lines, then instructions",
                                    std::move(lines));
}

std::unique_ptr<Page> Browser::help_page() const {
  std::vector<std::string> lines = {
      "Self: samples whose leaf is in the function.  Total: samples with the function",
      "anywhere on their stack (once each, whatever the recursion).",
      "Callers and callees (c): the function's callers, inverted (each level the",
      "callers of the one above), then its callees, over every place it is called.",
      "",
  };
  for (const KeyBinding& b : key_bindings()) {
    std::string line = "  " + std::string(b.label);
    line.resize(std::max<size_t>(line.size() + 2, 20), ' ');
    lines.push_back(line + b.help);
  }
  return std::make_unique<TextPage>("Help", "keys", std::move(lines));
}

}  // namespace swprof::tui
