#pragma once
// What `record` and `attach` share: the sampling options, and how a session's
// progress and summary are shown on stderr.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "binary/build_id_cache.h"
#include "sampler/event_spec.h"
#include "sampler/session_summary.h"

namespace swprof::cli {

struct SamplingArgs {
  std::string event = "cpu-clock";
  std::string frequency;
  std::string period;
  std::string stack_size = std::to_string(kDefaultStackSize);
  std::string stack_beyond;  // empty: not given
  std::string buffer_size;
  std::string embed_max;
  std::string perf_map_max;
  bool no_inherit = false;
  bool kernel = false;
  bool no_kernel = false;
  std::string output = "swprof.data";
  bool off_cpu = false;
  bool wall = false;
  std::string offcpu_stack_size;  // empty: not given
  std::string offcpu_every;
  std::string offcpu_min;
  bool no_cache = false;
};

// A whole number given to `option`; nullopt for an empty text. Throws Error
// ("invalid -F 'x': expected a whole number").
std::optional<uint64_t> parse_count(const std::string& text, const char* option);

void add_sampling_options(CLI::App* sub, SamplingArgs& args);
// --off-cpu / --wall and their knobs into `options` (checked; throws Error).
void add_offcpu_args(const SamplingArgs& args, SamplingOptions& options);
SamplingOptions to_sampling_options(const SamplingArgs& args, bool inherit);

// The live progress line on stderr when it is a terminal; empty otherwise.
SessionProgressFn stderr_progress();
void print_summary(const SessionSummary& summary);
// The build-id cache the session fills at its end: null with --no-cache.
// Called before sampling starts, so that a bad SWPROF_CACHE_MAX_SIZE fails
// before anything is recorded.
std::shared_ptr<BuildIdCache> session_build_id_cache(const SamplingArgs& args);
// The summary, then the files the samples hit kept in `cache`, when there
// is one (keep_sampled_files).
void finish_session(const SessionSummary& summary, const std::shared_ptr<BuildIdCache>& cache);

}  // namespace swprof::cli
