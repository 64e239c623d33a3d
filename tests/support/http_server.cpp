#include "support/http_server.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "support/read_file.h"

namespace swprof::testing {
namespace {

// Binds port 0, writes the port it got to argv[2] (atomically: a rename),
// then serves argv[1] without logging each request.
constexpr const char* kServer = R"(
import functools, http.server, os, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Quiet, directory=sys.argv[1]))
with open(sys.argv[2] + '.tmp', 'w') as f:
    f.write(str(server.server_address[1]))
os.rename(sys.argv[2] + '.tmp', sys.argv[2])
server.serve_forever()
)";

pid_t start_server(const std::string& root, const std::string& port_file, const std::string& log) {
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    execlp("python3", "python3", "-c", kServer, root.c_str(), port_file.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

}  // namespace

LocalHttpServer::LocalHttpServer(const std::string& root, const std::string& work_dir) {
  const std::string port_file = work_dir + "/http_server.port";
  const std::string log = work_dir + "/http_server.log";
  pid_ = start_server(root, port_file, log);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (port_ == 0) {
    if (access(port_file.c_str(), F_OK) == 0) {
      port_ = std::stoi(read_file(port_file));
      break;
    }
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("the HTTP server exited: " + read_file(log));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      stop();
      throw std::runtime_error("the HTTP server did not start within 20 s: " + read_file(log));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

LocalHttpServer::~LocalHttpServer() { stop(); }

void LocalHttpServer::stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

std::string LocalHttpServer::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/" + path;
}

}  // namespace swprof::testing
