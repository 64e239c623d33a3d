#pragma once
// Numbers, times and command lines as swprof shows them to people.

#include <cstdint>
#include <string>
#include <vector>

namespace swprof {

// "2026-11-21 05:23:01 UTC"
std::string format_time(uint64_t unix_ns);
// The command line as a shell (bash) would read it back; an argument with
// control characters is written $'...' with \xNN escapes, so the line is
// also terminal_safe.
std::string quote_command(const std::vector<std::string>& argv);
// 100 * part / whole, 0 when whole is 0.
inline double percent(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}
// A number such as an option's value as a person writes it: fixed notation,
// at most six decimals, no trailing zeros ("100", "0.5", "0.00001"), never
// the exponent of %g ("1e+02").
std::string plain_number(double v);
// "812 bytes", "3.4 KB", "12.0 MB" (powers of 1024).
std::string human_bytes(uint64_t n);
// "812 ns", "12.345 us", "4.012 ms", "1.250 s".
std::string format_duration(uint64_t ns);

}  // namespace swprof
