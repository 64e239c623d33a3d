// DebugInfo's sources of DWARF beyond the binary itself: separate debuginfo
// kept in the recording's archive (`swprof archive`), by build-id.

#include "symbolize/debug_info.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "recording/binary_archive.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

// The source line of `function`'s first address in `binary`, as `debug` tells it.
std::string file_of(DebugInfo& debug, const ElfBinary& binary, const std::string& function) {
  for (const FunctionSymbol& f : binary.functions())
    if (f.name == function) return debug.frames_at(f.start).back().file;
  return "(no such function)";
}

}  // namespace

TEST_CASE("debug info: the archive's separate debuginfo of the build-id gives lines to a stripped binary",
          "[symbolize][debug_info]") {
  TempDir dir;
  const std::string app = dir.file("app");
  const std::string debug_file = dir.file("app.debug");
  std::filesystem::copy_file(KNOWN_NAMESPACE_BIN, app);
  REQUIRE(std::system(("objcopy --only-keep-debug " + app + " " + debug_file + " && strip -g " + app).c_str()) == 0);
  auto binary = ElfBinary::open(app);
  REQUIRE(binary);
  REQUIRE_FALSE(binary->build_id().empty());
  const std::string bytes = read_file(debug_file);
  std::filesystem::remove(debug_file);  // found nowhere on disk
  {
    ArchiveWriter w(dir.file("r.archive"));
    w.add(ArchiveKind::kDebuginfo, binary->build_id(), "/usr/lib/debug/app.debug",
          Bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    w.finish();
  }
  SymbolizerOptions options;
  options.debug_roots = {dir.file("no-debug")};
  DebugInfo without(binary, options);
  CHECK(file_of(without, *binary, "outer_call").empty());

  options.archive = BinaryArchive::open(dir.file("r.archive"));
  DebugInfo with(binary, options);
  CHECK(file_of(with, *binary, "outer_call").ends_with("known_namespace.c"));
  CHECK(with.dwarf_file() == "archive:/usr/lib/debug/app.debug");
  CHECK(with.warnings().empty());
}

TEST_CASE("debug info: an archived copy of a binary is read from memory, DWARF included", "[symbolize][debug_info]") {
  const std::string bytes = read_file(KNOWN_NAMESPACE_BIN);
  auto binary = ElfBinary::from_image(archived_image_name("/gone/app"), std::vector<uint8_t>(bytes.begin(), bytes.end()));
  REQUIRE(binary);
  SymbolizerOptions options;
  options.debug_roots = {};
  DebugInfo debug(binary, options);
  CHECK(file_of(debug, *binary, "outer_call").ends_with("known_namespace.c"));
  CHECK(debug.warnings().empty());
}
