#include "sampler/launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "common/error.h"

namespace swprof {
namespace {

bool is_executable_file(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string resolve_command(const std::string& name) {
  if (name.empty()) throw Error("no command given");
  if (name.find('/') != std::string::npos) {
    struct stat st;
    if (stat(name.c_str(), &st) != 0) throw Error("command not found: " + name);
    if (S_ISDIR(st.st_mode)) throw Error("cannot run '" + name + "': it is a directory");
    if (access(name.c_str(), X_OK) != 0) throw Error("cannot run '" + name + "': not executable (" + errno_text(errno) + ")");
    return name;
  }
  const char* env = getenv("PATH");
  std::istringstream dirs(env ? env : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (is_executable_file(candidate)) return candidate;
  }
  throw Error("command not found: " + name + " (not in PATH)");
}

Launcher::Launcher(const std::vector<std::string>& argv) {
  if (argv.empty()) throw Error("no command given");
  path_ = resolve_command(argv[0]);
  int gate[2];
  int status[2];
  if (pipe2(gate, O_CLOEXEC) != 0 || pipe2(status, O_CLOEXEC) != 0)
    throw Error("cannot create pipes: " + errno_text(errno));
  UniqueFd gate_read(gate[0]), status_write(status[1]);
  gate_.reset(gate[1]);
  exec_status_.reset(status[0]);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_ = fork();
  if (pid_ < 0) throw Error("fork failed: " + errno_text(errno));
  if (pid_ == 0) {
    // Child: only async-signal-safe calls from here on.
    gate_.reset();
    exec_status_.reset();
    // Should swprof die without stopping it (SIGKILL, a crash), the command
    // gets SIGTERM. Before the gate opens, a dead parent closes the gate.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    char go = 0;
    ssize_t n;
    do n = read(gate_read.get(), &go, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1) _exit(127);  // the parent gave up before opening the gate
    execv(path_.c_str(), args.data());
    int err = errno;
    (void)!write(status_write.get(), &err, sizeof err);
    _exit(127);
  }
}

void Launcher::release() {
  char go = 1;
  if (write(gate_.get(), &go, 1) != 1) throw Error("cannot start the command: " + errno_text(errno));
  gate_.reset();
  released_ = true;
  int err = 0;
  ssize_t n;
  do n = read(exec_status_.get(), &err, sizeof err);
  while (n < 0 && errno == EINTR);
  exec_status_.reset();
  if (n == sizeof err) {
    int wstatus = 0;
    waitpid(pid_, &wstatus, 0);
    pid_ = -1;
    throw Error("cannot run '" + path_ + "': " + errno_text(err));
  }
}

Launcher::~Launcher() {
  if (pid_ > 0 && !released_) {
    gate_.reset();  // the child sees EOF and exits
    int wstatus = 0;
    waitpid(pid_, &wstatus, 0);
  }
}

}  // namespace swprof
