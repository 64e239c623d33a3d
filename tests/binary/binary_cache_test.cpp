#include "binary/binary_cache.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "recording/build_id.h"
#include "support/read_file.h"
#include "support/temp_dir.h"

using namespace swprof;

TEST_CASE("binary cache: an embedded copy of a file comes before the file system", "[binary_cache]") {
  testing::TempDir dir;
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string bytes = testing::read_file(exe);
  const BuildId id = read_build_id(exe).value_or(BuildId{});
  REQUIRE_FALSE(id.empty());
  const std::string gone = dir.file("container/app");  // the namespace that had it is gone

  BinaryCache cache;
  cache.add_image(embedded_file_image_name(gone), std::vector<uint8_t>(bytes.begin(), bytes.end()));
  auto found = cache.get(gone, id);
  REQUIRE(found.binary);
  CHECK(found.binary->build_id() == id);
  CHECK_FALSE(found.build_id_mismatch);
  CHECK(cache.get(gone, {}).binary == found.binary);  // no build-id recorded: the copy still names it
  CHECK(cache.warnings().empty());

  // Another binary mapped at that path (another container): not this copy.
  auto other = cache.get(gone, BuildId{1, 2, 3});
  CHECK_FALSE(other.binary);
  REQUIRE(cache.warnings().size() == 1);
  CHECK(cache.warnings()[0].find("cannot open " + gone) != std::string::npos);
}
