#pragma once
// A scratch directory removed when the test ends.

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace swprof::testing {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/swprof-test-XXXXXX";
    path_ = mkdtemp(tmpl);
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
