#pragma once
// A static file server on 127.0.0.1 for browser tests: Python's http.server
// serving one folder on a port the kernel picks, stopped (and reaped) when
// the object goes.

#include <sys/types.h>

#include <string>

namespace swprof::testing {

class LocalHttpServer {
 public:
  // Serves `root`; `work_dir` holds the server's port file and log. Throws
  // std::runtime_error when the server does not start within 20 s.
  LocalHttpServer(const std::string& root, const std::string& work_dir);
  ~LocalHttpServer();
  LocalHttpServer(const LocalHttpServer&) = delete;
  LocalHttpServer& operator=(const LocalHttpServer&) = delete;

  int port() const { return port_; }
  // "http://127.0.0.1:PORT/" + path
  std::string url(const std::string& path) const;

 private:
  void stop();

  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace swprof::testing
