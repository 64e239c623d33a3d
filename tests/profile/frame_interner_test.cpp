#include "profile/frame_interner.h"

#include <catch2/catch.hpp>

#include "support/source_frames.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

std::vector<uint32_t> ids(std::span<const uint32_t> span) { return {span.begin(), span.end()}; }

}  // namespace

TEST_CASE("frame interner: the same address twice gives the same ids, made once", "[frame_interner]") {
  const SymbolizedAddress where{{source("compute", "app")}};
  CallTree tree;
  FrameInterner interner(tree);
  const std::vector<uint32_t> first = ids(interner.frames(where, 0));
  CHECK(ids(interner.frames(where, 0)) == first);
  CHECK(interner.size() == 1);
  CHECK(tree.frames().size() == 1);
  REQUIRE(first.size() == 1);
  CHECK(tree.frame(first[0]).function == "compute");
}

TEST_CASE("frame interner: addresses of different binaries are different frames, same names are one",
          "[frame_interner]") {
  // What the Symbolizer gives for one address in two binaries: two addresses.
  const SymbolizedAddress in_app{{source("f", "app")}};
  const SymbolizedAddress in_lib{{source("f", "lib.so")}};
  const SymbolizedAddress elsewhere_in_app{{source("f", "app")}};
  CallTree tree;
  FrameInterner interner(tree);
  const std::vector<uint32_t> app = ids(interner.frames(in_app, 0));
  const std::vector<uint32_t> lib = ids(interner.frames(in_lib, 0));
  CHECK(app != lib);
  // Another address of the same function is the same tree frame.
  CHECK(ids(interner.frames(elsewhere_in_app, 0)) == app);
  CHECK(interner.size() == 3);
  CHECK(tree.frames().size() == 2);
}

TEST_CASE("frame interner: the inline expansion is kept, outermost first, inlined frames marked",
          "[frame_interner]") {
  const SymbolizedAddress where{{source("inner", "app", true), source("middle", "app", true), source("outer", "app")}};
  CallTree tree;
  FrameInterner interner(tree);
  const std::vector<uint32_t> frames = ids(interner.frames(where, kCctKernel));
  REQUIRE(frames.size() == 3);
  CHECK(tree.frame(frames[0]).function == "outer");
  CHECK(tree.frame(frames[0]).flags == kCctKernel);
  CHECK(tree.frame(frames[1]).function == "middle");
  CHECK(tree.frame(frames[1]).flags == (kCctKernel | kCctInline));
  CHECK(tree.frame(frames[2]).function == "inner");
  CHECK(tree.frame(frames[2]).flags == (kCctKernel | kCctInline));
}

TEST_CASE("frame interner: flags make frames of their own, spans stay right as ids grow", "[frame_interner]") {
  std::vector<SymbolizedAddress> addresses;
  for (int i = 0; i < 300; ++i) addresses.push_back(SymbolizedAddress{{source("f" + std::to_string(i), "app")}});
  CallTree tree;
  FrameInterner interner(tree);
  const std::vector<uint32_t> exact = ids(interner.frames(addresses[0], 0));
  const std::vector<uint32_t> guessed = ids(interner.frames(addresses[0], kCctGuess));
  CHECK(exact != guessed);
  CHECK(tree.frame(guessed[0]).flags == kCctGuess);
  for (const SymbolizedAddress& a : addresses) interner.frames(a, 0);
  for (size_t i = 0; i < addresses.size(); ++i)
    CHECK(tree.frame(interner.frames(addresses[i], 0)[0]).function == "f" + std::to_string(i));
  CHECK(ids(interner.frames(addresses[0], kCctGuess)) == guessed);
  CHECK(interner.named("[unknown]", "[unknown]", 0) == interner.named("[unknown]", "[unknown]", 0));
}
