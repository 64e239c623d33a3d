// Fuzz target: the folded-stack reader (output/folded_reader.cpp) behind
// `swprof flamegraph`: the input is the folded text. Stacks it accepts must
// survive the folded writer and a second read with the same total.

#include <sstream>
#include <string>

#include "common/error.h"
#include "fuzz/fuzz_target.h"
#include "output/folded_reader.h"
#include "output/folded_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  swprof::CallTree tree;
  try {
    tree = swprof::read_folded(in, "fuzz.folded");
  } catch (const swprof::Error&) {
    return 0;  // rejected with a message, as it should be
  }
  std::ostringstream out;
  swprof::write_folded(tree, swprof::FoldedOptions{}, out);
  std::istringstream written(out.str());
  const swprof::CallTree again = swprof::read_folded(written, "written.folded");
  SWPROF_FUZZ_CHECK(again.total() == tree.total());
  return 0;
}
