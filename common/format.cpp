#include "common/format.h"

#include <cstdio>
#include <ctime>

#include "common/text_escape.h"

namespace swprof {

std::string format_time(uint64_t unix_ns) {
  time_t secs = static_cast<time_t>(unix_ns / 1000000000ull);
  tm t;
  gmtime_r(&secs, &t);
  char buf[64];
  strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &t);
  return buf;
}

namespace {

// Bash's $'...' quoting, for an argument with control characters or a single
// quote: controls are written as \xNN (terminal_safe), which $'...' reads
// back as the same bytes.
std::string ansi_c_quoted(const std::string& arg) {
  std::string escaped;
  for (char c : arg) {
    if (c == '\\' || c == '\'') escaped += '\\';
    escaped += c;
  }
  return "$'" + terminal_safe(escaped) + "'";
}

std::string quote_argument(const std::string& arg) {
  // '...' cannot hold a single quote.
  if (!is_terminal_safe(arg) || arg.find('\'') != std::string::npos) return ansi_c_quoted(arg);
  const bool plain = !arg.empty() && arg.find_first_of(" '\"\\$") == std::string::npos;
  return plain ? arg : "'" + arg + "'";
}

}  // namespace

std::string quote_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += quote_argument(a);
  }
  return out;
}

std::string human_bytes(uint64_t n) {
  char buf[64];
  if (n >= (1u << 20)) snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(n) / (1 << 20));
  else if (n >= 1024) snprintf(buf, sizeof buf, "%.1f KB", static_cast<double>(n) / 1024);
  else snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(n));
  return buf;
}

}  // namespace swprof
