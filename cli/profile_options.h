#pragma once
// Options shared by the commands that build a profile from a recording
// (report, flamegraph, diff, merge): unwinding, symbols, filters, weight.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_outline.h"
#include "cli/number_options.h"
#include "cli/symbolize_options.h"
#include "cli/unwind_options.h"
#include "output/profile_input.h"
#include "profile/profile.h"

namespace swprof::cli {

struct ProfileArgs {
  std::string weight;  // empty: the recording's default
  UnwindArgs unwind;
  std::vector<uint32_t> tids;
  std::vector<std::string> comms;
  std::string include, exclude;
  double from = -1, to = -1;
  bool reverse = false;
  bool no_kernel = false;
  bool per_thread = false;
  bool thread_names = false;
  bool timeline = false;  // set by outputs that show time order (speedscope), not an option
  // Cleared by outputs that show no file:line (text, folded), not an option:
  // DWARF is then opened only for inline frames, and not at all with --no-inline.
  bool source_lines = true;
  // Set by the outputs that show addresses (annotate, pprof), not an option.
  AddressDetail addresses = AddressDetail::kNone;
  // Set by annotate, not an option: each sample's leaf is all it reads, so
  // nothing is unwound past the sampled registers.
  bool leaf_only = false;
  // Set by browse, not an option: "loading FILE…" on a terminal from the
  // start, until the progress line replaces it.
  bool announce_loading = false;
  SymbolizeArgs symbols;
  bool symbols_applied = false;  // apply_symbols() ran for this command

  void add_to(CLI::App* sub) {
    sub->add_option("--weight", weight,
                     "what to weigh: cpu (on-CPU time), off-cpu (time blocked or waiting) or wall (both); "
                     "default: as recorded (--off-cpu: off-cpu, --wall: wall, else cpu)")
        ->check(choices(weight_kind_names()));
    unwind.add_to(sub);
    sub->add_option("--tid", tids, "keep only these threads (repeat or comma-separate)")->delimiter(',');
    sub->add_option("--comm", comms, "keep only threads with these names (repeat or comma-separate)")->delimiter(',');
    sub->add_option("--include", include, "keep only stacks with a function matching this regex");
    sub->add_option("--exclude", exclude, "drop stacks with a function matching this regex");
    add_number(sub, "--from", from, {0}, "keep samples from this many seconds after the recording started");
    add_number(sub, "--to", to, {0}, "keep samples up to this many seconds after the recording started");
    sub->add_flag("--reverse", reverse, "leaf first: show the callers of the hottest functions");
    sub->add_flag("--no-kernel", no_kernel, "leave out kernel frames");
    sub->add_flag("--per-thread", per_thread, "one subtree per thread, rooted at 'name [tid]'");
    sub->add_flag("--thread-names", thread_names, "root each stack at its thread's name (threads of one name merge)");
    symbols.add_to(sub);
  }

  bool filters_given() const {
    return !tids.empty() || !comms.empty() || !include.empty() || !exclude.empty() || from >= 0 || to >= 0 ||
           reverse || no_kernel || per_thread || thread_names;
  }

  std::optional<WeightKind> weight_kind() const {
    if (weight.empty()) return std::nullopt;
    return parse_weight_kind(weight);
  }

  ProfileOptions to_options() const {
    ProfileOptions o;
    o.weight = weight_kind();
    o.unwind = unwind.to_options();
    o.filter.tids = tids;
    o.filter.comms = comms;
    o.filter.include = include;
    o.filter.exclude = exclude;
    if (from >= 0 && to >= 0 && to <= from) throw Error("--to must be later than --from");
    o.filter.from_seconds = from;
    o.filter.to_seconds = to;
    o.filter.reverse = reverse;
    o.filter.kernel_frames = !no_kernel;
    if (per_thread && thread_names) throw Error("--per-thread and --thread-names exclude each other");
    o.thread_roots = per_thread ? ThreadRoots::kThread : thread_names ? ThreadRoots::kComm : ThreadRoots::kNone;
    o.symbols = symbols.to_options();
    o.symbols.lines = source_lines || o.symbols.inline_frames;  // inline frames come with DWARF's lines
    o.timeline = timeline;
    o.addresses = addresses;
    if (leaf_only) o.unwind.max_depth = 1;
    return o;
  }

  // The symbol options that are the process's (the debuginfod environment),
  // once per command however many inputs it loads.
  void apply_symbols() {
    if (symbols_applied) return;
    symbols.apply_debuginfod();
    symbols_applied = true;
  }
};

// The profile of `input` (load_profile_input): for a recording, with a
// progress line on a terminal and a one-line summary on stderr, then the
// warnings. `folded`: folded stacks are an input (flame graphs).
Profile load_profile(const ProfileInputFile& input, ProfileArgs& args, const char* command, bool folded = false);
inline Profile load_profile(const std::string& path, ProfileArgs& args, const char* command) {
  return load_profile(open_profile_input(path), args, command);
}

}  // namespace swprof::cli
