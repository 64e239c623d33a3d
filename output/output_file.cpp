#include "output/output_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>

#include "common/error.h"

namespace swprof {

OutputFile::OutputFile(const std::string& path) : path_(path == "-" ? "" : path) {
  if (path_.empty()) return;
  struct stat st;
  if (stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw Error("cannot write '" + path_ + "': " + errno_text(EISDIR));
  temp_ = path_ + ".tmp." + std::to_string(getpid());
  file_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!file_) throw Error("cannot write '" + path_ + "': " + errno_text(errno));
}

OutputFile::~OutputFile() {
  if (!temp_.empty() && !committed_) {
    file_.close();
    unlink(temp_.c_str());
  }
}

std::ostream& OutputFile::stream() { return path_.empty() ? std::cout : static_cast<std::ostream&>(file_); }

void OutputFile::commit() {
  if (path_.empty()) {
    std::cout.flush();
    if (!std::cout) throw Error("cannot write to standard output");
    committed_ = true;
    return;
  }
  file_.flush();
  if (!file_) throw Error("cannot write '" + path_ + "': " + errno_text(errno));
  file_.close();
  if (rename(temp_.c_str(), path_.c_str()) != 0) throw Error("cannot write '" + path_ + "': " + errno_text(errno));
  committed_ = true;
}

}  // namespace swprof
