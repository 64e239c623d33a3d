#include "symbolize/demangle.h"

#include <cxxabi.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "support/peak_rss.h"

using swprof::demangle;
using namespace swprof::testing;

namespace {

// The back-reference to substitution `i` (Itanium ABI <seq-id>, base 36):
// S_, S0_, S1_, ..., SZ_, S10_, ...
std::string back_reference(size_t i) {
  if (i == 0) return "S_";
  std::string digits;
  for (size_t n = i - 1;; n /= 36) {
    digits.insert(digits.begin(), "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[n % 36]);
    if (n < 36) break;
  }
  return "S" + digits + "_";
}

// f(Pair<Pair<...<int, int>...>, ...>*) of `levels` levels, each a Pair of
// two of the level below (the second a back-reference to the first): the
// demangled name doubles at each level, the mangled one grows by 7 bytes.
std::string doubling_name(size_t levels) {
  std::string name = "_Z1fP4Pair";
  for (size_t l = 1; l < levels; ++l) name += "IS_";
  name += "IiiE";
  for (size_t l = 1; l < levels; ++l) name += back_reference(l) + "E";
  return name;
}

// What libstdc++'s demangler gives, or `name` when it rejects it.
std::string reference_demangle(const char* name) {
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status),
                                                        &std::free);
  return status == 0 && out ? out.get() : name;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("demangle: Itanium C++ names are demangled, others kept", "[symbolize]") {
  CHECK(demangle("_ZN8sym_test3BoxIiE5twiceEi") == "sym_test::Box<int>::twice(int)");
  CHECK(demangle("_ZNSt6vectorIiSaIiEE9push_backERKi") == "std::vector<int, std::allocator<int> >::push_back(int const&)");
  CHECK(demangle("_Z3fooi.cold") == "foo(int) [clone .cold]");
  CHECK(demangle("main") == "main");
  CHECK(demangle("_Z") == "_Z");
  CHECK(demangle("_Znot valid") == "_Znot valid");
  CHECK(demangle("") == "");
  CHECK(demangle(nullptr) == "");
}

TEST_CASE("demangle: names as libstdc++'s demangler gives them, pack expansions and clones included", "[symbolize]") {
  for (const char* name : {
           "_ZNSt6vectorIiSaIiEE12emplace_backIJiEEERiDpOT_",
           "_ZSt11make_sharedIN6swprof3FooEJRKiEESt10shared_ptrIT_EDpOT0_",
           "_ZNSt6thread11_State_implINS_8_InvokerISt5tupleIJZ4mainEUlvE_EEEEE6_M_runEv",
           "_ZZN6swprof14PerfDataReader11next_sparseEtENKUlvE_clEv.isra.0.cold",
           "_ZN5boost6detail17sp_counted_impl_pIN7display6ScreenEE7disposeEv",
           "_ZNSt8_Rb_treeIiSt4pairIKiSt5queueIS0_IN4absl7debian38StatusOrISt6vectorIS0_INSt7__cxx1112basic_stringIcSt11"
           "char_traitsIcESaIcEEESC_ESaISD_EEEEiESt5dequeISH_SaISH_EEEESt10_Select1stISM_ESt4lessIiESaISM_EE29_M_get_"
           "insert_hint_unique_posESt23_Rb_tree_const_iteratorISM_ERS1_",
       }) {
    INFO(name);
    const std::string got = demangle(name);
    CHECK(got != name);
    CHECK(got == reference_demangle(name));
  }
  CHECK(demangle(doubling_name(3).c_str()) ==
        "f(Pair<Pair<Pair<int, int>, Pair<int, int> >, Pair<Pair<int, int>, Pair<int, int> > >*)");
}

TEST_CASE("demangle: a name that doubles at every back-reference stays mangled, at once and in bounded memory",
          "[symbolize]") {
  // 161 bytes that demangle to 48 MB (each level more doubles that).
  const std::string name = doubling_name(22);
  reset_peak_rss();
  const size_t before = rss_kb();
  const auto start = std::chrono::steady_clock::now();
  const bool kept = demangle(name.c_str()) == name;  // not shown when not: it is long
  CHECK(kept);
  CHECK(seconds_since(start) < 1.0);
  CHECK(peak_rss_kb() < before + 16 * 1024);  // KB
}

TEST_CASE("demangle: a pack expansion over a doubling tree stays mangled at once", "[symbolize]") {
  // The demangler searches the pattern (Pair<...>*) for an argument pack,
  // following both halves of every level, before it writes anything.
  // 24 levels: 1.5 s of search with the output bounded (each level more
  // doubles that); libstdc++'s demangler took 6.9 s and 190 MB.
  const std::string name = "_Z1fDp" + doubling_name(24).substr(4);
  const auto start = std::chrono::steady_clock::now();
  const bool kept = demangle(name.c_str()) == name;  // not shown when not: it is long
  CHECK(kept);
  CHECK(seconds_since(start) < 1.0);
}

TEST_CASE("demangle: a mangled name over the length bound stays as it is", "[symbolize]") {
  // f(a...a, b...b): two names as long as make the mangled name `length` bytes.
  auto long_name = [](size_t length) {
    const size_t a = (length - 4) / 2 - 3, b = length - 4 - (a + 3) - 3;
    return std::pair{"_Z1f" + std::to_string(a) + std::string(a, 'a') + std::to_string(b) + std::string(b, 'b'),
                     "f(" + std::string(a, 'a') + ", " + std::string(b, 'b') + ")"};
  };
  const auto [within, demangled] = long_name(swprof::kMaxMangledLength);
  REQUIRE(within.size() == swprof::kMaxMangledLength);
  CHECK(demangle(within.c_str()) == demangled);
  const std::string over = long_name(swprof::kMaxMangledLength + 1).first;
  REQUIRE(over.size() == swprof::kMaxMangledLength + 1);
  CHECK(demangle(over.c_str()) == over);
}
