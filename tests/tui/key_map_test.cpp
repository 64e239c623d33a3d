#include "tui/key_map.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <sstream>

using namespace swprof::tui;

TEST_CASE("tui: key map: no key has two commands, every command but none has a key") {
  std::set<Key> seen;
  std::set<Command> commands;
  for (const KeyBinding& b : key_bindings()) {
    for (Key k : b.keys) {
      INFO(b.label);
      CHECK(seen.insert(k).second);
      CHECK(command_for(k) == b.command);
    }
    commands.insert(b.command);
  }
  CHECK(commands.size() == static_cast<size_t>(Command::kQuit));  // kNone has no key
  CHECK(command_for('x') == Command::kNone);
  CHECK(command_for(keys::kResize) == Command::kNone);
}

TEST_CASE("tui: key map: docs/browse.md lists every key as the help page does") {
  std::ifstream in(std::string(GOLDEN_DIR) + "/../../docs/browse.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  for (const KeyBinding& b : key_bindings()) {
    INFO(b.label);
    CHECK(text.str().find(std::string("| ") + b.label + " | " + b.help + " |") != std::string::npos);
  }
}
