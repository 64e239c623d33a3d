#pragma once
// The project's one error type. File parsers and command set-up throw it; the
// command boundary (cli/) catches it and prints its message as one line.

#include <stdexcept>
#include <string>

namespace swprof {

// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 2;  // bad input, unusable file, failed set-up

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, int exit_code = kExitUsage)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// strerror() text for an errno value, thread-safe.
std::string errno_text(int err);

}  // namespace swprof
