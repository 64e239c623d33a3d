// Name filters (--include, --exclude, diff --only): RE2, which the filters
// use, against std::regex (ECMAScript, as the filters used before), in one
// run on the same names.
//
//   build/bench/swprof_filter_bench [--benchmark_* flags]
//
// The names are realistic demangled C++ (standard library templates,
// lambdas, namespaces, operators) plus C and Rust-style symbols, 2,000 of
// them, 30 to ~600 characters; items are names matched. Each pattern is one
// a user would type. BM_*_Long runs on 4,000-character names: std::regex
// recurses per character and, on ~30,000 characters, overflows the stack,
// so it is measured where it still survives.

#include <benchmark/benchmark.h>

#include <regex>
#include <string>
#include <vector>

#include "profile/name_filter.h"

using namespace swprof;

namespace {

const char* const kPatterns[] = {
    "parse",                      // a word anywhere
    "^(std::|__gnu_cxx::)",       // a namespace prefix
    "Widget::(draw|layout)\\(",   // methods of one class
    "(?i)json",                   // any case (RE2 syntax; std::regex gets icase)
    ".*_impl\\(",                 // a name ending, written the long way
};

std::vector<std::string> make_names(size_t count) {
  static const char* const kNamespaces[] = {"std",       "app",  "app::detail", "boost::asio", "absl::lts_2023",
                                            "__gnu_cxx", "json", "net::http",   "ui::Widget"};
  static const char* const kFunctions[] = {"parse_input",    "draw",       "layout",  "operator()",
                                           "_M_realloc_insert", "serialize_impl", "handle_request",
                                           "operator<<",     "reserve",    "JsonReader::next"};
  static const char* const kArgs[] = {"int", "char const*", "std::__cxx11::basic_string<char, std::char_traits<char>, "
                                      "std::allocator<char> > const&",
                                      "std::vector<std::pair<unsigned long, double>, std::allocator<std::pair<unsigned "
                                      "long, double> > >&",
                                      "std::unique_ptr<app::Node, std::default_delete<app::Node> >",
                                      "std::function<void (app::Event const&)>"};
  std::vector<std::string> names;
  names.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    std::string n = std::string(kNamespaces[i % 9]) + "::" + kFunctions[(i / 9) % 10];
    if (i % 7 == 0)
      n = std::string(kNamespaces[i % 9]) + "::{lambda(auto:1&&)#" + std::to_string(i % 5 + 1) + "}::" + n;
    n += "(";
    for (size_t a = 0; a < i % 4; ++a) n += std::string(a ? ", " : "") + kArgs[(i + a) % 6];
    n += ")";
    if (i % 5 == 0) n += " const";
    if (i % 11 == 0) n = "_ZN3app" + std::to_string(i) + "EPKc";  // unmangled leftovers
    if (i % 13 == 0) n = "core::ptr::drop_in_place<alloc::vec::Vec<u8>>::h" + std::to_string(i * 2654435761u);
    names.push_back(std::move(n));
  }
  return names;
}

std::vector<std::string> long_names(size_t count, size_t length) {
  std::vector<std::string> names = make_names(count);
  for (auto& n : names)
    while (n.size() < length) n += "<" + n.substr(0, std::min<size_t>(n.size(), length - n.size())) + ">";
  return names;
}

std::regex std_pattern(const std::string& p) {
  // The old filters compiled ECMAScript | optimize; "(?i)" is RE2's flag.
  if (p.rfind("(?i)", 0) == 0)
    return std::regex(p.substr(4), std::regex::ECMAScript | std::regex::optimize | std::regex::icase);
  return std::regex(p, std::regex::ECMAScript | std::regex::optimize);
}

template <typename Match>
void run(benchmark::State& state, const std::vector<std::string>& names, Match match) {
  size_t matched = 0;
  for (auto _ : state)
    for (const auto& n : names) matched += match(n);
  benchmark::DoNotOptimize(matched);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * names.size()));
  state.counters["matched"] = static_cast<double>(matched) / static_cast<double>(state.iterations());
}

void BM_StdRegex(benchmark::State& state) {
  static const auto names = make_names(2000);
  const std::regex re = std_pattern(kPatterns[state.range(0)]);
  state.SetLabel(kPatterns[state.range(0)]);
  run(state, names, [&](const std::string& n) { return std::regex_search(n, re); });
}

void BM_Re2(benchmark::State& state) {
  static const auto names = make_names(2000);
  const NameFilter filter(kPatterns[state.range(0)], "--include");
  state.SetLabel(kPatterns[state.range(0)]);
  run(state, names, [&](const std::string& n) { return filter.matches(n); });
}

void BM_StdRegex_Long(benchmark::State& state) {
  static const auto names = long_names(100, 4000);
  const std::regex re = std_pattern(kPatterns[state.range(0)]);
  state.SetLabel(kPatterns[state.range(0)]);
  run(state, names, [&](const std::string& n) { return std::regex_search(n, re); });
}

void BM_Re2_Long(benchmark::State& state) {
  static const auto names = long_names(100, 4000);
  const NameFilter filter(kPatterns[state.range(0)], "--include");
  state.SetLabel(kPatterns[state.range(0)]);
  run(state, names, [&](const std::string& n) { return filter.matches(n); });
}

}  // namespace

BENCHMARK(BM_StdRegex)->DenseRange(0, 4);
BENCHMARK(BM_Re2)->DenseRange(0, 4);
BENCHMARK(BM_StdRegex_Long)->DenseRange(0, 4);
BENCHMARK(BM_Re2_Long)->DenseRange(0, 4);

BENCHMARK_MAIN();
