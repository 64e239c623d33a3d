// `swprof browse` (tui/browse.h): the loop that joins the terminal and the
// browser.

#include "tui/browse.h"

#include "tui/render.h"
#include "tui/terminal.h"

namespace swprof::tui {

void browse(const Profile& profile, const BrowseOptions& options) {
  Browser browser(profile, options);
  Terminal terminal;
  browser.resize(terminal.width(), terminal.height());
  while (!browser.done()) {
    terminal.draw(render(browser, terminal.charset()));
    if (!browser.busy().empty()) {  // shown, then done
      browser.run_pending();
      continue;
    }
    const Key key = terminal.read_key();
    if (key == keys::kClosed) return;
    if (key == keys::kResize) browser.resize(terminal.width(), terminal.height());
    else if (command_for(key) == Command::kRedraw) terminal.redraw();
    else browser.press(key);
  }
}

}  // namespace swprof::tui
