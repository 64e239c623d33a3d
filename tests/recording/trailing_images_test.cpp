#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "recording/recording_writer.h"
#include "recording/trailing_images.h"
#include "support/record_fixtures.h"
#include "support/recording_layout.h"
#include "support/temp_dir.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

ImageRecord image(const std::string& name, const std::string& text) {
  return ImageRecord{name, Bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size())};
}

std::string text_of(const StoredImage& img) { return std::string(img.bytes.begin(), img.bytes.end()); }

// `samples` samples in chunks of about 4 KiB, an image in the middle, then
// (after a flush, as the recorder does) the images known at the end.
void write_recording(const std::string& path, int samples, bool flush_before_end) {
  RecordingWriter w(path, record_header(4096), 4096);
  for (int i = 0; i < samples; ++i) {
    if (i == samples / 2) w.write(image("perf-map:7", "1000 10 early\n"));
    w.write(make_sample(100, 1000 + i, 0x7ff000, std::vector<uint8_t>(512, uint8_t(i))).view);
  }
  if (flush_before_end) w.flush();
  w.write(image("perf-map:7", "2000 10 late\n"));
  w.write(image(kKallsymsImageName, "ffffffff81000000 T _stext\n"));
  w.finish(EndRecord{"{}"});
}

}  // namespace

TEST_CASE("trailing images: the images after the last sample, without reading the samples",
          "[recording][trailing_images]") {
  TempDir dir;
  const std::string path = dir.file("r.swprof");
  write_recording(path, 200, true);
  const auto images = read_trailing_images(path);
  REQUIRE(images.size() == 2);  // not the perf map lines written among the samples
  CHECK(images[0].name == "perf-map:7");
  CHECK(text_of(images[0]) == "2000 10 late\n");
  CHECK(images[1].name == kKallsymsImageName);
  CHECK(text_of(images[1]) == "ffffffff81000000 T _stext\n");
}

TEST_CASE("trailing images: images sharing the last chunk with samples are found too", "[recording][trailing_images]") {
  TempDir dir;
  const std::string path = dir.file("r.swprof");
  write_recording(path, 3, false);  // one chunk: samples, the middle image, the end images
  const auto images = read_trailing_images(path);
  REQUIRE(images.size() == 3);
  CHECK(text_of(images[0]) == "1000 10 early\n");
  CHECK(images[2].name == kKallsymsImageName);
}

TEST_CASE("trailing images: none in a recording without them, a cut one, or a file that is no recording",
          "[recording][trailing_images]") {
  TempDir dir;
  const std::string path = dir.file("r.swprof");
  {
    RecordingWriter w(path, record_header(4096), 4096);
    for (int i = 0; i < 50; ++i) w.write(make_sample(100, 1000 + i, 0x7ff000, std::vector<uint8_t>(512, 1)).view);
    w.finish(EndRecord{"{}"});
  }
  CHECK(read_trailing_images(path).empty());

  const std::string ends = dir.file("ends.swprof");
  write_recording(ends, 200, true);
  std::filesystem::resize_file(ends, chunks_end(ends) - 10);  // the last chunk is cut
  for (const StoredImage& img : read_trailing_images(ends)) CHECK(img.name == "perf-map:7");

  std::ofstream(dir.file("text")) << "not a recording\n";
  CHECK(read_trailing_images(dir.file("text")).empty());
  CHECK(read_trailing_images(dir.file("missing")).empty());
}
