#pragma once
// A JIT's symbol map, /tmp/perf-PID.map: one "START SIZE NAME" line per
// generated function, START and SIZE in hex (an "0x" prefix is allowed),
// NAME the rest of the line. This is the format perf documents in
// tools/perf/Documentation/jit-interface.txt. A JIT reuses memory, so a
// later line replaces whatever earlier lines said about the addresses it
// covers.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace swprof {

struct PerfMapEntry {
  uint64_t start = 0;
  uint64_t size = 0;
  std::string name;
};

// One line, strictly: two hex numbers and a non-empty name separated by
// blanks; nullopt for anything else (and for a size of 0 or a range past 2^64).
std::optional<PerfMapEntry> parse_perf_map_line(std::string_view line);

class PerfMap {
 public:
  // The map in `text`; malformed lines are skipped and counted.
  static PerfMap parse(std::string_view text);

  struct Hit {
    const std::string* name;
    uint64_t start;  // of the function the address is in
  };
  std::optional<Hit> find(uint64_t addr) const;

  size_t size() const { return ranges_.size(); }
  size_t malformed_lines() const { return malformed_; }

 private:
  void add(uint64_t start, uint64_t end, const std::string* name, uint64_t function_start);

  struct Range {
    uint64_t end;
    uint64_t function_start;
    const std::string* name;
  };
  std::deque<std::string> names_;           // stable addresses for Range::name
  std::map<uint64_t, Range> ranges_;        // by start, non-overlapping
  size_t malformed_ = 0;
};

}  // namespace swprof
