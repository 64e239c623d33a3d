#include "symbolize/frame_location.h"

#include <cstdio>

#include "binary/function_bounds.h"
#include "binary/startup_functions.h"

namespace swprof {

FrameLocation locate_frame(const ProcessMaps& maps, const Frame& frame) {
  FrameLocation loc;
  const uint64_t lookup = frame.lookup_pc();
  const Mapping* m = maps.find(lookup);
  if (!m) {
    loc.module = "[unknown]";
    loc.offset = frame.pc;
    return loc;
  }
  const auto slash = m->path.rfind('/');
  loc.module = slash == std::string::npos ? m->path : m->path.substr(slash + 1);
  if (loc.module.empty()) loc.module = "[anon]";
  loc.offset = frame.pc - m->start + m->file_offset;
  if (m->binary) {
    // Named or discovered (then the name stays empty).
    if (const std::optional<FunctionBounds> f = function_bounds(*m->binary, m->to_vaddr(lookup))) {
      loc.function = std::string(f->name);
      loc.function_offset = m->to_vaddr(frame.pc) - f->start;
    }
    // Start-up code named by its shape (binary/startup_functions.h).
    if (loc.function.empty())
      if (const std::optional<StartupFunction> f = startup_function_at(*m->binary, m->to_vaddr(lookup))) {
        loc.function = std::string(f->name);
        loc.function_offset = m->to_vaddr(frame.pc) - f->start;
      }
  }
  return loc;
}

std::string format_location(const FrameLocation& loc) {
  char buf[64];
  std::string out;
  if (loc.function.empty()) {
    out = "[unknown]";
  } else {
    snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(loc.function_offset));
    out = loc.function + buf;
  }
  snprintf(buf, sizeof buf, "+0x%llx)", static_cast<unsigned long long>(loc.offset));
  return out + " (" + loc.module + buf;
}

}  // namespace swprof
