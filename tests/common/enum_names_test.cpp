#include "common/enum_names.h"

#include <catch2/catch.hpp>

using namespace swprof;

namespace {

enum class Shade { kLight, kDark, kNone };

const char* shade_name(Shade s) {
  switch (s) {
    case Shade::kLight: return "light";
    case Shade::kDark: return "dark";
    case Shade::kNone: return "none";
  }
  return "none";
}

constexpr Shade kShades[] = {Shade::kLight, Shade::kDark, Shade::kNone};

}  // namespace

TEST_CASE("enum names: listed in order, parsed back, a wrong word names every choice", "[common]") {
  CHECK(enum_names<Shade>(kShades, shade_name) == std::vector<std::string>{"light", "dark", "none"});
  for (Shade s : kShades) CHECK(parse_enum_name<Shade>(shade_name(s), kShades, shade_name, "--shade") == s);
  CHECK_THROWS_WITH(parse_enum_name<Shade>("grey", kShades, shade_name, "--shade"),
                    "unknown --shade 'grey': choose light, dark or none");
  constexpr Shade kTwo[] = {Shade::kLight, Shade::kDark};
  CHECK_THROWS_WITH(parse_enum_name<Shade>("", kTwo, shade_name, "shade"), "unknown shade '': choose light or dark");
  constexpr Shade kOne[] = {Shade::kNone};
  CHECK_THROWS_WITH(parse_enum_name<Shade>("x", kOne, shade_name, "shade"), "unknown shade 'x': choose none");
}
