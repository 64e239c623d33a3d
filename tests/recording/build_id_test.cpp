// Build-ids: the running kernel's, from its note list (/sys/kernel/notes).

#include "recording/build_id.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "support/kernel_notes.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

Bytes bytes_of(const std::string& s, size_t n) { return Bytes(reinterpret_cast<const uint8_t*>(s.data()), n); }

}  // namespace

TEST_CASE("recording: build-id: the GNU build-id note of a note list", "[recording][build_id]") {
  const BuildId id(20, 0xab);
  const std::string notes = kernel_notes_with_build_id(id);
  CHECK(build_id_of_notes(bytes_of(notes, notes.size())) == id);
  CHECK_FALSE(build_id_of_notes(bytes_of(notes, notes.size() - 4)));  // cut inside the build-id
  CHECK_FALSE(build_id_of_notes(bytes_of(notes, 24)));                 // the "Linux" note only
  CHECK_FALSE(build_id_of_notes(bytes_of(notes, 0)));
  std::string huge = notes;
  huge[0] = '\xff';  // a name size past the end
  CHECK_FALSE(build_id_of_notes(bytes_of(huge, huge.size())));
}

TEST_CASE("recording: build-id: the running kernel's, from a notes file", "[recording][build_id]") {
  TempDir dir;
  CHECK_FALSE(running_kernel_build_id(dir.file("missing")));
  const BuildId id(20, 0x5c);
  std::ofstream(dir.file("notes"), std::ios::binary) << kernel_notes_with_build_id(id);
  CHECK(running_kernel_build_id(dir.file("notes")) == id);
}
