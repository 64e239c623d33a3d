// Unwinding hand-written SIMD assembly without CFI: the known-stack program
// tests/programs/known_asm (x86inc-style nasm, one function per prologue
// shape, called from C with CFI directly and through a pointer table filled
// with `lea`), with and without symbols; and Debian's x264 encoding and
// ffmpeg decoding H.264, whose asm has neither symbols nor CFI.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <memory>

#include "binary/elf_binary.h"
#include "support/cli_harness.h"
#include "support/known_stack_check.h"
#include "support/real_walks.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

const std::string kKnownAsm = std::string(KNOWN_STACK_DIR) + "/known_asm";

// For a frame in known_asm.stripped, the name known_asm has at the same
// address; other frames as frame_name().
std::string asm_twin_name(const UnwoundSample& s, const Frame& f) {
  static const std::shared_ptr<ElfBinary> twin = ElfBinary::open(kKnownAsm);
  const uint64_t lookup = (f.flags & kFrameExactPc) ? f.pc : f.pc - 1;
  const Mapping* m = s.maps->find(lookup);
  if (!m || !m->binary || !m->path.ends_with(".stripped")) return frame_name(s, f);
  const FunctionSymbol* fn = twin ? twin->function_at(m->to_vaddr(lookup)) : nullptr;
  return fn ? fn->name : "?";
}

// Records `command` with `options` added to swprof record's.
std::string record(const TempDir& dir, const std::vector<std::string>& options, const std::vector<std::string>& command) {
  const std::string out = dir.file("r.swprof");
  const ProcessResult r = run_record(dir.path(), out, options, command);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return out;
}

// Where a program is, "" when it is not installed.
std::string installed(const std::string& name) {
  for (const char* dir : {"/usr/bin", "/usr/local/bin"})
    if (std::filesystem::exists(std::string(dir) + "/" + name)) return std::string(dir) + "/" + name;
  return "";
}

// A raw 4:2:0 video (YUV4MPEG2) of moving gradients with some noise.
void write_y4m(const std::string& path, int width, int height, int frames) {
  std::ofstream out(path, std::ios::binary);
  out << "YUV4MPEG2 W" << width << " H" << height << " F25:1 Ip A1:1 C420jpeg\n";
  uint32_t seed = 1;
  std::vector<char> plane(static_cast<size_t>(width) * height);
  for (int t = 0; t < frames; ++t) {
    out << "FRAME\n";
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        seed = seed * 1664525u + 1013904223u;
        plane[static_cast<size_t>(y) * width + x] = static_cast<char>(((x + 4 * t) ^ (2 * y + 3 * t)) + ((seed >> 24) & 15));
      }
    out.write(plane.data(), static_cast<std::streamsize>(plane.size()));
    const std::vector<char> chroma(plane.size() / 4, static_cast<char>(128 + t));
    out.write(chroma.data(), static_cast<std::streamsize>(chroma.size()));
    out.write(chroma.data(), static_cast<std::streamsize>(chroma.size()));
  }
}

}  // namespace

TEST_CASE("unwind: hand-written assembly without CFI, every prologue shape", "[integration][unwind]") {
  if (!std::filesystem::exists(kKnownAsm)) {
    WARN("known_asm was not built (nasm is not installed); skipped");
    return;
  }
  const std::vector<std::pair<std::string, std::vector<std::string>>> leaves = {
      {"asm_leaf", {"asm_leaf", "b", "a", "main"}},
      {"asm_helper", {"asm_helper", "asm_push_sub", "b", "a", "main"}},
      {"asm_push_sub", {"asm_push_sub", "b", "a", "main"}},
      {"asm_align_reg", {"asm_align_reg", "b", "a", "main"}},
      {"asm_deep_helper", {"asm_deep_helper", "asm_align_stack", "b", "a", "main"}},
      {"asm_align_stack", {"asm_align_stack", "b", "a", "main"}},
      {"asm_tail_target", {"asm_tail_target", "b", "a", "main"}},
  };
  for (const char* variant : {"", ".stripped"}) {
    SECTION(std::string("known_asm") + variant) {
      TempDir dir;
      const std::string recording = record(dir, {"-F", "999"}, {kKnownAsm + variant, "1.5"});
      for (const auto& [leaf, path] : leaves) {
        INFO("leaf " << leaf);
        const UnwindCheck c = check_recording(recording, leaf, path, UnwinderChoice::kChain, asm_twin_name);
        require_exact(c);
        CHECK(c.guessed == 0);
      }
    }
  }
}

TEST_CASE("unwind: x264 encoding, its asm without symbols or CFI", "[integration][unwind]") {
  const std::string x264 = installed("x264");
  if (x264.empty()) {
    WARN("x264 is not installed (scripts/setup.sh installs it); skipped");
    return;
  }
  TempDir dir;
  write_y4m(dir.file("in.y4m"), 320, 240, 24);
  // At 64 KiB the copy holds x264's stacks (its slice encoder has a 31 KB
  // frame) but where the kernel met a page not present in them: those few
  // are read past, as are cut copies.
  const std::string recording =
      record(dir, {"-F", "1999", "--stack-size", "65528"},
             {x264, "--preset", "medium", "--threads", "1", "--quiet", "-o", dir.file("out.264"), dir.file("in.y4m")});
  require_real_targets(real_walks(recording), 10);
}

TEST_CASE("unwind: ffmpeg decoding H.264, libavcodec's asm without symbols or CFI", "[integration][unwind]") {
  const std::string ffmpeg = installed("ffmpeg");
  if (ffmpeg.empty()) {
    WARN("ffmpeg is not installed (scripts/setup.sh installs it); skipped");
    return;
  }
  TempDir dir;
  auto e = run({ffmpeg, "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25", "-t", "6",
                "-c:v", "libx264", "-preset", "ultrafast", "-threads", "1", dir.file("clip.mp4")},
               dir.path());
  if (e.exit_code != 0) {
    WARN("ffmpeg cannot encode H.264 here (" << e.err << "); skipped");
    return;
  }
  const std::string recording = record(dir, {"-F", "2999", "--stack-size", "65528"},
                                       {ffmpeg, "-nostdin", "-loglevel", "error", "-threads", "1", "-stream_loop", "3",
                                        "-i", dir.file("clip.mp4"), "-f", "null", "-"});
  require_real_targets(real_walks(recording), 10);
}
