#pragma once
// An output that is one of a command's inputs would replace what it is
// computed from (`report R -f json -o R` for R.json, `merge a b -o a`, an
// archive over its recording). Every command that reads files and writes
// one checks each output here, before any work.

#include <string>
#include <string_view>
#include <vector>

namespace swprof {

// Throws Error when `output` is the same regular file as one of `inputs`:
// the same device and inode, whatever names lead there (symbolic links, hard
// links, /proc/self/fd). `output` "" or "-" is standard output, compared as
// the file it is open on (`swprof script R >> R`). A path that does not
// exist, or is not a regular file (a device, a FIFO: written in place, never
// replaced), matches nothing. `option` names the output in the message.
void check_output_is_not_an_input(const std::string& output, const std::vector<std::string>& inputs,
                                  std::string_view option = "-o");

}  // namespace swprof
