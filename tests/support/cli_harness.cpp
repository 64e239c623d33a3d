#include "support/cli_harness.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "recording/recording_reader.h"
#include "support/temp_dir.h"

namespace swprof::testing {

std::string swprof_bin() { return SWPROF_BIN; }
std::string workload_bin() { return WORKLOAD_BIN; }

std::string nobody_skip_reason() {
  if (geteuid() != 0 || access("/usr/bin/setpriv", X_OK) != 0) return "needs root and setpriv to act as nobody";
  const TempDir dir;
  const ProcessResult r = run({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/test",
                               "-x", workload_bin()},
                              dir.path());
  if (r.exit_code != 0)
    return "nobody may not run the test programs such as " + workload_bin() + " (a folder above is private)";
  return {};
}

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int counter = 0;

}  // namespace

Spawned spawn(const std::vector<std::string>& argv, const std::string& dir) {
  Spawned s;
  const std::string tag = dir + "/proc" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  s.out_path = tag + ".out";
  s.err_path = tag + ".err";
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  s.pid = fork();
  if (s.pid == 0) {
    int out = open(s.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(s.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int null = open("/dev/null", O_RDONLY);
    dup2(null, 0);
    dup2(out, 1);
    dup2(err, 2);
    if (chdir(dir.c_str()) != 0) _exit(126);
    setpgid(0, 0);  // own process group: signals sent to the test runner stay there
    execv(args[0], args.data());
    _exit(127);
  }
  return s;
}

ProcessResult wait_for(const Spawned& p, int timeout_s) {
  ProcessResult r;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  for (;;) {
    pid_t got = waitpid(p.pid, &status, WNOHANG);
    if (got == p.pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-p.pid, SIGKILL);
      waitpid(p.pid, &status, 0);
      r.err = "(timed out)";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(p.out_path);
  r.err += slurp(p.err_path);
  return r;
}

ProcessResult run(const std::vector<std::string>& argv, const std::string& dir, int timeout_s) {
  return wait_for(spawn(argv, dir), timeout_s);
}

bool wait_for_file(const std::string& path, int timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    struct stat st{};
    if (stat(path.c_str(), &st) == 0 && st.st_size > 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

ProcessResult run_record(const std::string& dir, const std::string& out, const std::vector<std::string>& options,
                         const std::vector<std::string>& command) {
  std::vector<std::string> argv = {swprof_bin(), "record"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"-o", out, "--"});
  argv.insert(argv.end(), command.begin(), command.end());
  return run(argv, dir);
}

RecordingSummary summarize(const std::string& path) {
  RecordingSummary s;
  RecordingReader reader(path);
  s.target_pid = reader.header().target_pid;
  while (auto rec = reader.next()) {
    if (auto* sample = std::get_if<SampleView>(&*rec)) {
      ++s.samples;
      ++s.samples_by_tid[sample->tid];
      ++s.samples_by_pid[sample->pid];
      s.kernel_mode_samples += sample->in_kernel;
      s.samples_with_kernel_chain += sample->kernel_depth() > 0;
      s.samples_with_user_stack += !sample->stack.empty();
      s.samples_without_regs += sample->nregs == 0;
    } else if (auto* m = std::get_if<MappingRecord>(&*rec)) {
      ++s.mappings;
      s.mappings_with_build_id += m->build_id_size > 0;
      s.mapped_paths.insert(m->path);
    } else if (auto* c = std::get_if<CommRecord>(&*rec)) {
      s.comm_by_tid[c->tid] = c->comm;
    } else if (auto* e = std::get_if<EndRecord>(&*rec)) {
      s.end_json = e->json;
    }
  }
  s.finalized = reader.status().finalized;
  s.complete = reader.status().ok();
  return s;
}

std::string second_recording_problems(const std::string& out, const std::string& first_bytes,
                                      const ProcessResult& second) {
  std::string problems;
  if (slurp(out + ".old") != first_bytes) problems += "out.old is not the first recording; ";
  if (second.err.find("the previous recording is kept as " + out + ".old") == std::string::npos)
    problems += "the summary does not name out.old; ";
  if (!summarize(out).finalized) problems += "the new recording is not finalized; ";
  struct stat st {};
  if (::stat(out.c_str(), &st) != 0 || (st.st_mode & 07777) != 0600) problems += "the new recording is not mode 0600; ";
  return problems;
}

size_t line_count(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += c == '\n';
  if (!text.empty() && text.back() != '\n') ++n;
  return n;
}

}  // namespace swprof::testing
