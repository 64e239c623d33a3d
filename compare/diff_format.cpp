#include "compare/diff_format.h"

#include "common/error.h"
#include "compare/diff_json.h"
#include "compare/diff_markdown.h"
#include "compare/diff_text.h"

namespace swprof {

DiffFormat parse_diff_format(const std::string& name) {
  if (name == "text") return DiffFormat::kText;
  if (name == "markdown" || name == "md") return DiffFormat::kMarkdown;
  if (name == "json") return DiffFormat::kJson;
  throw Error("unknown format '" + name + "' (use text, markdown or json)");
}

std::vector<std::string> diff_format_names() { return {"text", "markdown", "json"}; }

void write_diff_report(const ProfileDiff& diff, DiffFormat format, const DiffReportOptions& options, std::ostream& out) {
  switch (format) {
    case DiffFormat::kText: write_diff_text(diff, options, out); break;
    case DiffFormat::kMarkdown: write_diff_markdown(diff, options, out); break;
    case DiffFormat::kJson: write_diff_json(diff, out); break;
  }
}

}  // namespace swprof
