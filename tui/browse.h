#pragma once
// `swprof browse`: a profile in an interactive terminal browser
// (docs/browse.md).

#include "profile/profile.h"
#include "tui/browser.h"

namespace swprof::tui {

// Shows `profile` on the terminal of standard input and output until the
// user quits. Throws Error when the terminal cannot be used.
void browse(const Profile& profile, const BrowseOptions& options);

}  // namespace swprof::tui
