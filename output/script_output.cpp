#include "output/script_output.h"

#include <unordered_map>

#include "output/frame_format.h"
#include "common/error.h"
#include "sampler/recording_reader.h"

namespace swprof {

UnwindStats write_script(const std::string& recording, const ScriptOptions& options, FILE* out,
                         std::vector<std::string>* warnings) {
  RecordingReader reader(recording);
  const uint64_t start = reader.header().start_monotonic_ns;
  const std::string event = reader.header().event;
  std::unordered_map<uint32_t, std::string> comms;
  RecordingUnwinder unwinder(options.unwind);
  unwinder.run(
      reader,
      [&](const UnwoundSample& s) {
        const double t = s.time >= start ? static_cast<double>(s.time - start) / 1e9 : 0.0;
        auto comm = comms.find(s.tid);
        fprintf(out, "%s %u/%u [%03u] %.6f: %llu %s%s (%s)\n", comm != comms.end() ? comm->second.c_str() : "?", s.pid,
                s.tid, s.cpu, t, static_cast<unsigned long long>(s.period), event.c_str(),
                s.in_kernel ? " in-kernel" : "", walk_end_name(s.walk.end));
        for (uint64_t ip : s.kernel_ips) fprintf(out, "\t%16llx [kernel]\n", static_cast<unsigned long long>(ip));
        for (const Frame& f : s.walk.frames) {
          const std::string where = format_location(locate_frame(*s.maps, f));
          fprintf(out, "\t%16llx %s [%s%s]\n", static_cast<unsigned long long>(f.pc), where.c_str(),
                  stepper_name(f.stepper), (f.flags & kFrameGuess) ? ", guess" : "");
        }
        fputc('\n', out);
      },
      [&](const Record& r) {
        if (auto* c = std::get_if<CommRecord>(&r)) comms[c->tid] = c->comm;
      });
  if (warnings) *warnings = unwinder.warnings();
  if (!reader.status().ok() && reader.status().state != ReadStatus::State::kComplete)
    throw Error("recording '" + recording + "' is damaged: " + reader.status().problem +
                "; the samples before the damage were shown");
  return unwinder.stats();
}

}  // namespace swprof
