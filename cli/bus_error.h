#pragma once
// Binaries and debuginfo are read mapped. A file cut short while it is
// mapped (rewritten in place, as `cp` over it does) makes the kernel raise
// SIGBUS at the next read of a page past its new end. exit_on_bus_error()
// makes that one line on stderr and exit status kExitUsage, instead of a
// bare "Bus error" and a core dump. Any other SIGBUS keeps its default
// action.

namespace swprof::cli {

void exit_on_bus_error();

}  // namespace swprof::cli
