#pragma once
// The flame graph page's files (flamegraph_templates/), embedded into the
// binary at build time by cmake/EmbedFiles.cmake.

#include <string_view>

namespace swprof::flamegraph_assets {

extern const std::string_view kPageHtml;  // flamegraph.html, with {{NAME}} placeholders
extern const std::string_view kScript;    // flamegraph.js
extern const std::string_view kStyle;     // flamegraph.css

}  // namespace swprof::flamegraph_assets
