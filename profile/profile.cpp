#include "profile/profile.h"

#include <chrono>

#include "common/enum_names.h"
#include "common/error.h"
#include "profile/leaf_cache.h"
#include "profile/name_filter.h"

namespace swprof {

namespace {

// ptrace-wall: `swprof dump --samples`, every thread's snapshot weighing the interval.
bool time_based(const std::string& event) {
  return event == "cpu-clock" || event == "task-clock" || event == "ptrace-wall";
}

// The pipeline's sink for a profile: each kept sample's stack, filtered by
// function name, into the calling-context tree.
class CallTreeSink : public SampleSink {
 public:
  CallTreeSink(Profile& profile, const ProfileOptions& options)
      : profile_(profile),
        asked_(options.weight),
        timeline_(options.timeline),
        functions_(profile.tree, options.filter.include, options.filter.exclude),
        stacks_(profile.tree, options.thread_roots, options.filter.reverse),
        leaves_(profile.tree) {
    if (options.addresses != AddressDetail::kNone) addresses_.emplace(profile.tree, profile.addresses, options.addresses);
  }

  void begin(const RecordingHeader& header) override {
    profile_.weight_kind = resolve_weight_kind(header, asked_);
  }

  SampleKinds kinds() const override {
    return SampleKinds{profile_.weight_kind != WeightKind::kOffCpu, profile_.weight_kind != WeightKind::kCpu};
  }

  void add(const PipelineSample& s) override {
    const bool off_cpu = s.kind == SampleKind::kOffCpu;
    if (off_cpu && s.weight == 0) return;  // no switch-out found for it: no interval to weigh
    std::vector<uint32_t>& stack = stacks_.frames(s);
    if (!functions_.keep(stack)) return;
    stacks_.arrange(stack, s.unwound.tid, s.comm);
    const uint32_t leaf = leaves_.node_at(stack);
    profile_.tree.add_self(leaf, 1, s.weight, off_cpu ? s.weight : 0);
    if (timeline_) profile_.timeline.push_back({s.unwound.time, s.weight, s.unwound.tid, leaf});
    if (addresses_) addresses_->add(s, leaf, s.weight);
    count_kept(s);
  }

 private:
  void count_kept(const PipelineSample& s) {
    ++profile_.samples_kept;
    ProfileThread& t = profile_.threads[s.unwound.tid];
    t.pid = s.unwound.pid;
    if (t.comm != s.comm) t.comm = s.comm;
    ++t.samples;
  }

  Profile& profile_;
  const std::optional<WeightKind> asked_;
  const bool timeline_;
  StackFilter functions_;  // include/exclude; compiles the patterns before any work
  StackBuilder stacks_;
  LeafCache leaves_;
  std::optional<AddressCounter> addresses_;  // only when asked for
};

PipelineOptions pipeline_options(const ProfileOptions& options) {
  PipelineOptions o;
  o.unwind = options.unwind;
  o.symbols = options.symbols;
  o.filter = options.filter;
  o.symbolize_order = FrameOrder::kRootFirst;  // the order of the tree's stacks
  o.progress = options.progress;
  return o;
}

// What the pass saw about the whole recording.
void take_pass(Profile& p, PipelineResult&& pass) {
  p.header = std::move(pass.header);
  p.weight_unit = time_based(p.header.event) || p.weight_kind != WeightKind::kCpu ? "nanoseconds" : "events";
  p.unwind = pass.unwind;
  p.samples_read = pass.samples_read;
  p.lost = pass.lost;
  p.first_time = pass.first_time;
  p.last_time = pass.last_time;
  p.warnings = std::move(pass.warnings);
  p.mapped_files = std::move(pass.mapped_files);
  if (pass.archive) p.archive = std::move(pass.archive->archive);
  const ReadStatus& st = pass.status;
  if (!st.ok())
    p.warnings.push_back("recording '" + p.source + "' is " +
                         (st.state == ReadStatus::State::kTruncated ? "cut short" : "damaged") + ": " + st.problem +
                         "; the profile covers the " + std::to_string(p.samples_read) + " samples before it");
}

}  // namespace

const char* weight_kind_name(WeightKind kind) {
  switch (kind) {
    case WeightKind::kCpu: return "cpu";
    case WeightKind::kOffCpu: return "off-cpu";
    case WeightKind::kWall: return "wall";
  }
  return "cpu";
}

namespace {
constexpr WeightKind kWeightKinds[] = {WeightKind::kCpu, WeightKind::kOffCpu, WeightKind::kWall};
}  // namespace

WeightKind parse_weight_kind(const std::string& name) {
  return parse_enum_name<WeightKind>(name, kWeightKinds, weight_kind_name, "weight");
}

std::vector<std::string> weight_kind_names() { return enum_names<WeightKind>(kWeightKinds, weight_kind_name); }

WeightKind resolve_weight_kind(const RecordingHeader& header, std::optional<WeightKind> asked) {
  const WeightKind kind = asked ? *asked : header.default_weight.empty() ? WeightKind::kCpu
                                                                         : parse_weight_kind(header.default_weight);
  if (kind == WeightKind::kCpu) return kind;
  if (!header.off_cpu) throw Error("this recording has no off-CPU data: record with --off-cpu or --wall");
  if (kind == WeightKind::kWall && !time_based(header.event))
    throw Error("--weight wall adds on-CPU time, but this recording sampled " + header.event +
                ", which is not time-based: use --weight off-cpu, or record with -e cpu-clock");
  return kind;
}

std::vector<CallTree::FrameTotals> function_totals(const Profile& profile) {
  const CallTree& tree = profile.tree;
  auto totals = tree.frame_totals();
  if (!profile.reversed) return totals;
  // Leaf first: a sample's leaf is the first frame below the root (or below
  // its thread root), so self counts are the totals of those nodes.
  for (auto& t : totals) t.self = t.self_weight = 0;
  auto add_leaves = [&](uint32_t parent) {
    for (uint32_t c : tree.node(parent).children) {
      const CctNode& n = tree.node(c);
      totals[n.frame].self += n.total;
      totals[n.frame].self_weight += n.total_weight;
    }
  };
  bool thread_roots = false;
  for (uint32_t c : tree.node(CallTree::kRoot).children)
    if (tree.frame(tree.node(c).frame).flags & kCctThread) {
      thread_roots = true;
      add_leaves(c);
    }
  if (!thread_roots) add_leaves(CallTree::kRoot);
  return totals;
}

Profile build_profile(const std::string& recording, const ProfileOptions& options) {
  return build_profile(RecordingBytes::open(recording, "recording"), options);
}

Profile build_profile(std::shared_ptr<const RecordingBytes> file, const ProfileOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  Profile p;
  p.source = file->path();
  CallTreeSink sink(p, options);
  p.unwinder = options.unwind.unwinder;
  take_pass(p, run_pipeline(std::move(file), pipeline_options(options), sink));
  p.reversed = options.filter.reverse;
  p.tree.sort_children();
  order_timeline(p.timeline);
  p.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return p;
}

}  // namespace swprof
