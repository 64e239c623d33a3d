#pragma once
// Where a command writes its output: stdout, or a file that appears only when
// it is complete (written beside it under a temporary name, then renamed), so
// a failure never leaves a half-written or clobbered output behind.

#include <fstream>
#include <ostream>
#include <string>

namespace swprof {

class OutputFile {
 public:
  // "" or "-": stdout. Throws Error when the file cannot be created.
  explicit OutputFile(const std::string& path);
  ~OutputFile();  // removes the temporary file unless commit() ran
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream();
  // Flushes and moves the file into place; throws Error on a write failure.
  void commit();

 private:
  std::string path_;
  std::string temp_;
  std::ofstream file_;
  bool committed_ = false;
};

}  // namespace swprof
