#pragma once
// A scratch directory removed when the test ends: /tmp/swprof-test-XXXXXX,
// or /tmp/swprof-test-TAG-XXXXXX under ctest, which sets SWPROF_TEST_TAG so
// that the suite's last test can tell the folders it left (tests/system_state.py).

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace swprof::testing {

class TempDir {
 public:
  TempDir() {
    const char* tag = getenv("SWPROF_TEST_TAG");
    std::string tmpl = std::string("/tmp/swprof-test-") + (tag && *tag ? std::string(tag) + "-" : "") + "XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a folder in /tmp");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace swprof::testing
