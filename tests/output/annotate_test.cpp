#include "output/annotate.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "common/error.h"
#include "recording/binary_archive.h"
#include "support/temp_dir.h"

using namespace swprof;

namespace {

// The stored golden recording (tests/golden/recording/): a program without
// libc whose image the recording carries, so nothing of this machine is read.
std::string recording() { return std::string(GOLDEN_DIR) + "/recording/known_tiny.swprof"; }

// With kLeaves, unwound no further than the leaf, as `swprof annotate` does;
// with kStacks, whole stacks, as a view over a report's profile has them.
Profile with_addresses(AddressDetail detail = AddressDetail::kLeaves) {
  ProfileOptions o;
  o.addresses = detail;
  if (detail == AddressDetail::kLeaves) o.unwind.max_depth = 1;
  return build_profile(recording(), o);
}

uint32_t frame_named(const Profile& p, const std::string& name) {
  for (uint32_t i = 0; i < p.tree.frames().size(); ++i)
    if (p.tree.frame(i).function == name) return i;
  FAIL("no frame " << name);
  return 0;
}

}  // namespace

TEST_CASE("annotate: a function's instructions from its binary, each with the samples of its address",
          "[annotate]") {
  const Profile p = with_addresses();
  AnnotateOptions o;
  o.function = "^spin$";
  const Annotation a = annotate(p, o);
  CHECK(a.samples == p.samples_kept);
  CHECK(a.matched == 1);
  REQUIRE(a.functions.size() == 1);
  const AnnotatedFunction& f = a.functions[0];
  CHECK(f.function == "spin");
  CHECK(f.module == "known_tiny");
  CHECK(f.samples == a.samples);  // every sample's leaf is spin
  REQUIRE(f.ranges.size() == 1);
  REQUIRE_FALSE(f.instructions.empty());
  CHECK(f.instructions.front().address == f.ranges[0].first);
  CHECK(f.instructions.back().address + f.instructions.back().size == f.ranges[0].second);
  const uint64_t placed = std::accumulate(f.instructions.begin(), f.instructions.end(), uint64_t{0},
                                          [](uint64_t n, const AnnotatedInstruction& i) { return n + i.samples; });
  CHECK(placed == f.samples);
  // The recorded image has no DWARF: no lines, and a note that says so.
  CHECK(f.lines.empty());
  REQUIRE(f.notes.size() == 1);
  CHECK(f.notes[0].find("no line information") != std::string::npos);
  // A direct jump names its target.
  bool named = false;
  for (const AnnotatedInstruction& i : f.instructions) named |= i.text.find(" <spin+0x") != std::string::npos;
  CHECK(named);
}

TEST_CASE("annotate: a frame a view selected, the hottest first, at most top", "[annotate]") {
  const Profile p = with_addresses(AddressDetail::kStacks);
  AnnotateOptions by_frame;
  by_frame.frame = frame_named(p, "spin");
  by_frame.function = "no such";  // not used with a frame
  const Annotation a = annotate(p, by_frame);
  REQUIRE(a.functions.size() == 1);
  CHECK(a.functions[0].function == "spin");
  // Callers have no self samples: nothing to annotate there.
  AnnotateOptions caller;
  caller.frame = frame_named(p, "hot");
  CHECK(annotate(p, caller).functions.empty());
  AnnotateOptions none;
  none.top = 0;
  const Annotation hottest = annotate(p, none);
  CHECK(hottest.matched == 1);
  CHECK(hottest.functions.empty());
}

TEST_CASE("annotate: a profile without addresses, or a pattern without samples, is an error", "[annotate]") {
  ProfileOptions plain;
  const Profile without = build_profile(recording(), plain);
  CHECK_THROWS_WITH(annotate(without, {}), Catch::Contains("has no samples by address"));
  const Profile p = with_addresses();
  AnnotateOptions o;
  o.function = "^hot$";  // on every stack, the leaf of none
  CHECK_THROWS_WITH(annotate(p, o), Catch::Contains("no function matching '^hot$' has samples"));
  o.function = "(";
  CHECK_THROWS_AS(annotate(p, o), Error);
}

TEST_CASE("annotate: the archive the profile was built with, not the file at its path since", "[annotate]") {
  testing::TempDir dir;
  const std::string copy = dir.file("known_tiny.swprof");
  std::filesystem::copy_file(recording(), copy);
  {
    ArchiveWriter w(default_archive_path(copy));
    const std::string lib = "libz";
    w.add(ArchiveKind::kBinary, {0x9a}, "/lib/libz.so.1", Bytes(reinterpret_cast<const uint8_t*>(lib.data()), lib.size()));
    w.finish();
  }
  ProfileOptions o;
  o.addresses = AddressDetail::kLeaves;
  o.unwind.max_depth = 1;
  const Profile p = build_profile(copy, o);
  REQUIRE(p.archive);
  CHECK(p.archive->path() == default_archive_path(copy));
  std::ofstream(default_archive_path(copy), std::ios::trunc) << "not an archive any more";
  AnnotateOptions a;
  a.function = "^spin$";
  CHECK(annotate(p, a).functions.size() == 1);  // the damaged file is never opened
}
