#include "support/flamegraph_page.h"

#include <catch2/catch.hpp>
#include <sstream>

namespace swprof::testing {

std::string page_of(const CallTree& tree, const FlamegraphOptions& options) {
  std::ostringstream out;
  write_flamegraph(tree, options, out);
  return out.str();
}

std::string data_text(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"swprof-data\">";
  const size_t start = page.find(open);
  REQUIRE(start != std::string::npos);
  const size_t end = page.find("</script>", start);
  REQUIRE(end != std::string::npos);
  return page.substr(start + open.size(), end - start - open.size());
}

}  // namespace swprof::testing
