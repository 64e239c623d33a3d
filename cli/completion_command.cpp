// `swprof completion bash`: the bash completion script (hidden; the build
// writes the file that is installed).

#include <memory>
#include <string>

#include "cli/bash_completion.h"
#include "cli/command_outline.h"
#include "cli/commands.h"
#include "common/error.h"
#include "output/output_file.h"

namespace swprof::cli {

std::function<int()> add_completion_command(CLI::App& app) {
  auto* sub = app.add_subcommand("completion", "print the shell completion script");
  sub->group("");  // hidden: for packagers and the build
  auto shell = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  sub->add_option("shell", *shell, "the shell: bash")->required()->check(choices({"bash"}));
  sub->add_option("-o,--output", *output, "write here instead of standard output");
  return [&app, shell, output]() {
    if (*shell != "bash") throw Error("no completion for shell '" + *shell + "': only bash");
    OutputFile out(*output);
    out.stream() << bash_completion_script(outline_of(app));
    out.commit();
    return kExitOk;
  };
}

}  // namespace swprof::cli
