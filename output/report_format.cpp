#include "output/report_format.h"

#include <cinttypes>
#include <cstdio>

#include "common/error.h"

namespace swprof {
namespace {

struct NamedFormat {
  const char* name;
  ReportFormat format;
};
constexpr NamedFormat kFormats[] = {{"text", ReportFormat::kText},
                                    {"folded", ReportFormat::kFolded},
                                    {"json", ReportFormat::kJson},
                                    {"speedscope", ReportFormat::kSpeedscope},
                                    {"pprof", ReportFormat::kPprof}};

}  // namespace

ReportFormat parse_report_format(const std::string& name) {
  for (const NamedFormat& f : kFormats)
    if (name == f.name) return f.format;
  throw Error("unknown format '" + name + "': use text, folded, json, speedscope or pprof");
}

std::vector<std::string> report_format_names() {
  std::vector<std::string> names;
  for (const NamedFormat& f : kFormats) names.push_back(f.name);
  return names;
}

bool shows_source_lines(ReportFormat format) {
  return format != ReportFormat::kText && format != ReportFormat::kFolded;
}

std::string format_context_id(uint64_t id) {
  char buf[20];
  snprintf(buf, sizeof buf, "%016" PRIx64, id);
  return buf;
}

uint64_t parse_context_id(const std::string& text) {
  std::string digits = text;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) digits = digits.substr(2);
  if (digits.empty() || digits.size() > 16 || digits.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    throw Error("invalid context id '" + text + "': expected up to 16 hex digits, as reports show them");
  return std::stoull(digits, nullptr, 16);
}

}  // namespace swprof
