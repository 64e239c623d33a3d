#include "support/portable_recording.h"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "recording/recording_reader.h"
#include "recording/recording_writer.h"
#include "support/read_file.h"

namespace swprof::testing {
namespace {

// The header without what names the machine, the folder or the time.
RecordingHeader portable_header(RecordingHeader h, const std::string& image_name) {
  h.command = {image_name};
  h.host = "golden-host";
  h.kernel_release = "golden-kernel";
  h.start_unix_ns = 0;
  h.kernel_samples = false;
  h.kernel_note = "kernel samples left out of this stored recording";
  return h;
}

// The end record's totals, recounted for the samples kept.
EndRecord portable_end(const EndRecord& end, size_t samples) {
  nlohmann::json j = nlohmann::json::parse(end.json);
  j["samples"] = samples;
  j["kernel_mode_samples"] = 0;
  return EndRecord{j.dump()};
}

class Copier {
 public:
  Copier(const PortableRequest& request, RecordingWriter& out) : request_(request), out_(out) {}

  void operator()(const SampleView& s) {
    if (s.in_kernel || s.stack.empty() || result_.samples >= request_.max_samples) {
      ++result_.dropped;
      return;
    }
    SampleView user = s;
    user.kernel_chain = Bytes();
    out_.write(user);
    ++result_.samples;
  }
  void operator()(const MappingRecord& m) {
    if (m.path == request_.program_path) {
      MappingRecord renamed = m;
      renamed.path = request_.image_name;
      out_.write(renamed);
    } else if (m.path.starts_with("[")) {
      out_.write(m);
    }
  }
  void operator()(const ImageRecord&) {}  // [vdso]: no frame of the program is there
  void operator()(const EndRecord& e) { end_ = e; }
  template <typename Other>
  void operator()(const Other& r) {
    out_.write(r);
  }

  PortableResult result() const { return result_; }
  const EndRecord& end() const { return end_; }

 private:
  const PortableRequest& request_;
  RecordingWriter& out_;
  PortableResult result_;
  EndRecord end_{"{}"};
};

}  // namespace

PortableResult make_portable_recording(const PortableRequest& request) {
  if (request.image_name.empty() || request.image_name.find('/') != std::string::npos)
    throw std::runtime_error("the image name must be a name without '/'");
  const std::string program = read_file(request.program_path);
  if (program.empty()) throw std::runtime_error("cannot read " + request.program_path);
  RecordingReader in(request.input);
  RecordingWriter out(request.output, portable_header(in.header(), request.image_name));
  // Images are used as soon as they are read: the program's comes first.
  out.write(ImageRecord{request.image_name, Bytes(reinterpret_cast<const uint8_t*>(program.data()), program.size())});
  Copier copy(request, out);
  while (auto rec = in.next()) std::visit(copy, *rec);
  if (!in.status().ok()) throw std::runtime_error(request.input + ": " + in.status().problem);
  out.finish(portable_end(copy.end(), copy.result().samples));
  return copy.result();
}

}  // namespace swprof::testing
