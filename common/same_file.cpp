#include "common/same_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"

namespace swprof {

void check_output_is_not_an_input(const std::string& output, const std::vector<std::string>& inputs,
                                  std::string_view option) {
  const bool to_stdout = output.empty() || output == "-";
  struct stat out;
  if ((to_stdout ? ::fstat(STDOUT_FILENO, &out) : ::stat(output.c_str(), &out)) != 0 || !S_ISREG(out.st_mode)) return;
  for (const std::string& input : inputs) {
    struct stat in;
    if (input.empty() || ::stat(input.c_str(), &in) != 0 || in.st_dev != out.st_dev || in.st_ino != out.st_ino) continue;
    if (to_stdout)
      throw Error("standard output would write into the input '" + input + "' (the same file): redirect it elsewhere");
    throw Error("the output '" + output + "' would overwrite the input '" + input + "' (the same file): choose another " +
                std::string(option));
  }
}

}  // namespace swprof
