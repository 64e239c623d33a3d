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

std::string plain_number(double v) {
  char buf[400];  // DBL_MAX in %f is 309 digits
  snprintf(buf, sizeof buf, "%.6f", v);
  std::string s = buf;
  if (s.find('.') == std::string::npos) return s;  // inf, nan
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string human_bytes(uint64_t n) {
  char buf[64];
  if (n >= (1u << 20)) snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(n) / (1 << 20));
  else if (n >= 1024) snprintf(buf, sizeof buf, "%.1f KB", static_cast<double>(n) / 1024);
  else snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(n));
  return buf;
}

std::string format_duration(uint64_t ns) {
  char buf[64];
  const double v = static_cast<double>(ns);
  if (ns >= 1'000'000'000) snprintf(buf, sizeof buf, "%.3f s", v / 1e9);
  else if (ns >= 1'000'000) snprintf(buf, sizeof buf, "%.3f ms", v / 1e6);
  else if (ns >= 1'000) snprintf(buf, sizeof buf, "%.3f us", v / 1e3);
  else snprintf(buf, sizeof buf, "%llu ns", static_cast<unsigned long long>(ns));
  return buf;
}

}  // namespace swprof
