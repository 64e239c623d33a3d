#pragma once
// The formats of `swprof report`, and calling-context ids as every report
// shows them and `report --context-id` reads them.

#include <cstdint>
#include <string>
#include <vector>

namespace swprof {

enum class ReportFormat { kText, kFolded, kJson, kSpeedscope, kPprof };
// Throws Error naming the formats for an unknown one.
ReportFormat parse_report_format(const std::string& name);
// The names parse_report_format takes, in the order help lists them.
std::vector<std::string> report_format_names();
// Whether the format shows source file:line (JSON, speedscope, pprof); text
// and folded show function names only.
bool shows_source_lines(ReportFormat format);

// Context ids are shown as 16 hex digits.
std::string format_context_id(uint64_t id);
// 1 to 16 hex digits, with or without a leading 0x; throws Error otherwise.
uint64_t parse_context_id(const std::string& text);

}  // namespace swprof
