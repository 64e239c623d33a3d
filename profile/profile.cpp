#include "profile/profile.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "common/error.h"
#include "profile/name_filter.h"
#include "recording/recording_reader.h"

namespace swprof {

namespace {

bool time_based(const std::string& event) { return event == "cpu-clock" || event == "task-clock"; }

// Turns unwound samples into root-first stacks of CallTree frame ids, each
// distinct address symbolized and interned once.
class StackBuilder {
 public:
  StackBuilder(CallTree& tree, const SymbolizerOptions& options) : tree_(tree), symbols_(options) {}

  void add_user(const ProcessMaps& maps, uint32_t pid, const Frame& frame, std::vector<uint32_t>& out) {
    const bool guess = frame.flags & kFrameGuess;
    const SymbolizedAddress& sym = symbols_.symbolize(maps, pid, frame);
    const auto key = reinterpret_cast<uintptr_t>(&sym) | (guess ? 1u : 0u);
    auto [it, inserted] = by_address_.try_emplace(key);
    if (inserted) it->second = intern(sym, guess ? kCctGuess : 0);
    out.insert(out.end(), it->second.begin(), it->second.end());
  }

  void add_kernel(uint64_t ip, std::vector<uint32_t>& out) {
    const SymbolizedAddress& sym = symbols_.symbolize_kernel(ip);
    auto [it, inserted] = by_address_.try_emplace(reinterpret_cast<uintptr_t>(&sym));
    if (inserted) it->second = intern(sym, kCctKernel);
    out.insert(out.end(), it->second.begin(), it->second.end());
  }

  uint32_t named(const std::string& function, const std::string& module, uint8_t flags) {
    CctFrame f;
    f.function = function;
    f.module = module;
    f.flags = flags;
    return tree_.intern(f);
  }

  std::vector<std::string> warnings() const { return symbols_.warnings(); }

 private:
  // The address's frames root first (outermost function, then what was inlined into it).
  std::vector<uint32_t> intern(const SymbolizedAddress& sym, uint8_t flags) {
    std::vector<uint32_t> ids;
    for (auto it = sym.frames.rbegin(); it != sym.frames.rend(); ++it) {
      CctFrame f;
      f.function = display_name(*it);
      f.module = it->module;
      f.file = it->file;
      f.line = it->decl_line ? it->decl_line : it->line;
      f.flags = static_cast<uint8_t>(flags | (it->inlined ? kCctInline : 0));
      ids.push_back(tree_.intern(f));
    }
    return ids;
  }

  CallTree& tree_;
  Symbolizer symbols_;
  std::unordered_map<uintptr_t, std::vector<uint32_t>> by_address_;
};

}  // namespace

std::string thread_root_name(ThreadRoots mode, const std::string& comm, uint32_t tid) {
  const std::string name = comm.empty() ? "[unknown]" : comm;
  if (mode == ThreadRoots::kThread) return name + " [" + std::to_string(tid) + "]";
  return name;
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
  const auto started = std::chrono::steady_clock::now();
  Profile p;
  p.source = recording;
  const ProfileFilter& filter = options.filter;
  StackFilter frame_filter(p.tree, filter.include, filter.exclude);  // compiles the regexes before any work

  RecordingReader reader(recording);
  p.header = reader.header();
  p.weight_unit = time_based(p.header.event) ? "nanoseconds" : "events";
  p.unwinder = options.unwind.unwinder;
  const uint64_t start = p.header.start_monotonic_ns;
  auto in_window = [&](uint64_t time) {
    const double t = time >= start ? static_cast<double>(time - start) / 1e9 : 0.0;
    if (filter.from_seconds >= 0 && t < filter.from_seconds) return false;
    if (filter.to_seconds >= 0 && t >= filter.to_seconds) return false;
    return true;
  };

  StackBuilder stacks(p.tree, options.symbols);
  std::unordered_map<uint32_t, std::string> comms;  // by tid, as of now in the replay
  std::unordered_map<uint32_t, uint32_t> thread_root;  // tid -> frame id
  std::vector<uint32_t> stack;
  stack.reserve(512);

  RecordingUnwinder unwinder(options.unwind);
  unwinder.run(
      reader,
      [&](const UnwoundSample& s) {
        ++p.samples_read;
        if (!p.first_time || s.time < p.first_time) p.first_time = s.time;
        p.last_time = std::max(p.last_time, s.time);
        if (options.progress && (p.samples_read & 4095) == 0) {
          ProfileProgress pr;
          pr.samples = p.samples_read;
          pr.bytes = reader.status().good_bytes;
          pr.file_bytes = reader.status().file_bytes;
          pr.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
          options.progress(pr);
        }
        if (!in_window(s.time)) return;
        if (!filter.tids.empty() && std::find(filter.tids.begin(), filter.tids.end(), s.tid) == filter.tids.end())
          return;
        const auto comm_it = comms.find(s.tid);
        static const std::string kNoComm;
        // Both branches lvalues: the name is not copied for every sample.
        const std::string& comm = comm_it != comms.end() ? comm_it->second : kNoComm;
        if (!filter.comms.empty() && std::find(filter.comms.begin(), filter.comms.end(), comm) == filter.comms.end())
          return;

        stack.clear();
        for (auto f = s.walk.frames.rbegin(); f != s.walk.frames.rend(); ++f) stacks.add_user(*s.maps, s.pid, *f, stack);
        if (filter.kernel_frames)
          for (auto ip = s.kernel_ips.rbegin(); ip != s.kernel_ips.rend(); ++ip) stacks.add_kernel(*ip, stack);
        if (stack.empty()) stack.push_back(stacks.named("[unknown]", "[unknown]", 0));
        if (!frame_filter.keep(stack)) return;
        if (filter.reverse) std::reverse(stack.begin(), stack.end());
        if (options.thread_roots != ThreadRoots::kNone) {
          auto [root, inserted] = thread_root.try_emplace(s.tid);
          if (inserted) root->second = stacks.named(thread_root_name(options.thread_roots, comm, s.tid), "[thread]", kCctThread);
          stack.insert(stack.begin(), root->second);
        }
        p.tree.add(stack, 1, s.period);
        ++p.samples_kept;
        ProfileThread& t = p.threads[s.tid];
        t.pid = s.pid;
        t.comm = comm;
        ++t.samples;
      },
      [&](const Record& r) {
        if (auto* c = std::get_if<CommRecord>(&r)) {
          comms[c->tid] = c->comm;
          // A new name (exec, prctl) gets its own thread root.
          thread_root.erase(c->tid);
        } else if (auto* t = std::get_if<TaskRecord>(&r)) {
          if (!t->exit && !comms.count(t->tid)) {
            auto parent = comms.find(t->ptid);
            if (parent != comms.end()) comms[t->tid] = parent->second;
          }
        } else if (auto* l = std::get_if<LostRecord>(&r)) {
          p.lost += l->count;
        }
      });
  p.unwind = unwinder.stats();
  p.warnings = unwinder.warnings();
  for (auto& w : stacks.warnings()) p.warnings.push_back(std::move(w));
  const ReadStatus& st = reader.status();
  if (!st.ok())
    p.warnings.push_back("recording '" + recording + "' is " +
                         (st.state == ReadStatus::State::kTruncated ? "cut short" : "damaged") + ": " + st.problem +
                         "; the profile covers the " + std::to_string(p.samples_read) + " samples before it");
  p.reversed = filter.reverse;
  p.tree.sort_children();
  p.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return p;
}

}  // namespace swprof
