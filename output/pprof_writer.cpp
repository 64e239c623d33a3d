// `swprof report --format pprof`: output/proto/profile.proto, gzipped.

#include "output/pprof_writer.h"

#include <zlib.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/text_escape.h"
#include "output/proto/profile.pb.h"

namespace swprof {
namespace {

namespace pb = perftools::profiles;

// The pprof name of the kernel's own mapping (perf's name for it).
constexpr const char* kKernelMapping = "[kernel.kallsyms]";

struct ValueName {
  std::string type, unit;
};

// What the tree's weights hold, as pprof names a sample type: cpu, off-cpu
// or wall nanoseconds, or the count of a non-time event.
ValueName weight_value(const Profile& p) {
  switch (p.weight_kind) {
    case WeightKind::kOffCpu: return {"off-cpu", "nanoseconds"};
    case WeightKind::kWall: return {"wall", "nanoseconds"};
    case WeightKind::kCpu: break;
  }
  if (p.weight_unit == "nanoseconds") return {p.header.event == "ptrace-wall" ? "wall" : "cpu", "nanoseconds"};
  return {p.header.event.empty() ? "events" : p.header.event, "count"};
}

// Events (or nanoseconds) between two on-CPU samples; 0 when they vary
// (frequency-driven counting events) or for off-CPU samples.
int64_t sampling_period(const Profile& p) {
  if (p.weight_kind == WeightKind::kOffCpu) return 0;
  if (p.header.period) return static_cast<int64_t>(p.header.period);
  if (p.weight_unit == "nanoseconds" && p.header.frequency) return 1000000000 / p.header.frequency;
  return 0;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string basename_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A thread root frame's thread: its name, and its tid when the roots are per
// thread ("name [tid]", for a thread the profile has; a thread renamed by
// exec has a root per name, all with its tid).
struct ThreadLabel {
  std::string name;
  std::optional<uint32_t> tid;
};

ThreadLabel thread_label(const Profile& p, const std::string& root_name) {
  if (auto parsed = parse_thread_root_name(root_name))
    if (p.threads.empty() || p.threads.count(parsed->second)) return {parsed->first, parsed->second};
  return {root_name, std::nullopt};
}

// Builds the message: string table, mappings, functions and locations made
// on first use, one sample per tree node with self samples.
class PprofBuilder {
 public:
  explicit PprofBuilder(const Profile& profile) : p_(profile) {
    str("");  // string_table[0]
    for (const ExecutableMapping& f : p_.mapped_files) files_by_module_.try_emplace(basename_of(f.path), &f);
  }

  pb::Profile build() {
    describe_run();
    main_mapping();
    if (p_.addresses.detail() == AddressDetail::kStacks) add_address_samples();
    else add_samples();
    return std::move(msg_);
  }

 private:
  // Every string the profile holds, escaped as for a terminal: pprof's
  // viewers print names as they are, and profile.proto's strings must be
  // valid UTF-8 (a hostile name's control and invalid bytes become \xNN).
  int64_t str(const std::string& s) {
    auto [it, inserted] = strings_.try_emplace(s, msg_.string_table_size());
    if (inserted) msg_.add_string_table(terminal_safe(s));
    return it->second;
  }

  void set_value_type(pb::ValueType* v, const ValueName& name) {
    v->set_type(str(name.type));
    v->set_unit(str(name.unit));
  }

  void describe_run() {
    const ValueName weight = weight_value(p_);
    set_value_type(msg_.add_sample_type(), {"samples", "count"});
    set_value_type(msg_.add_sample_type(), weight);
    msg_.set_default_sample_type(str(weight.type));
    set_value_type(msg_.mutable_period_type(), weight);
    msg_.set_period(sampling_period(p_));
    const RecordingHeader& h = p_.header;
    const uint64_t since_start = p_.first_time > h.start_monotonic_ns ? p_.first_time - h.start_monotonic_ns : 0;
    msg_.set_time_nanos(static_cast<int64_t>(h.start_unix_ns ? h.start_unix_ns + since_start : 0));
    msg_.set_duration_nanos(static_cast<int64_t>(p_.last_time > p_.first_time ? p_.last_time - p_.first_time : 0));
    add_comments();
  }

  void add_comments() {
    const RecordingHeader& h = p_.header;
    std::string event = h.event;
    if (h.frequency) event += ", " + std::to_string(h.frequency) + " Hz";
    else if (h.period) event += ", every " + std::to_string(h.period);
    const std::pair<const char*, std::string> comments[] = {
        {"command", joined(h.command)}, {"host", h.host},       {"kernel", h.kernel_release},
        {"event", h.event.empty() ? "" : event}, {"weight", weight_kind_name(p_.weight_kind)},
        {"swprof", SWPROF_VERSION}};
    for (const auto& [key, text] : comments)
      if (!text.empty()) msg_.add_comment(str(std::string(key) + ": " + text));
  }

  // pprof takes mapping[0] for the main program: the first file mapped,
  // or (a profile read from JSON) the module named as the command.
  void main_mapping() {
    const std::vector<CodeMapping>& code = p_.addresses.mappings();
    for (uint32_t i = 0; i < code.size() && !p_.mapped_files.empty(); ++i)
      if (code[i].path == p_.mapped_files.front().path) {
        code_mapping(i);
        return;
      }
    if (!p_.mapped_files.empty()) {
      mapping_for(basename_of(p_.mapped_files.front().path), false);
      return;
    }
    if (p_.header.command.empty()) return;
    const std::string program = basename_of(p_.header.command.front());
    const auto& frames = p_.tree.frames();
    if (std::any_of(frames.begin(), frames.end(), [&](const CctFrame& f) { return f.module == program; }))
      mapping_for(program, false);
  }

  // The mapping of `module`, made on first use; 0 (none) for unknown code.
  uint64_t mapping_for(const std::string& module, bool kernel) {
    if (module.empty() || module == "[unknown]") return 0;
    auto [it, inserted] = mappings_.try_emplace(module, msg_.mapping_size() + 1);
    if (!inserted) return it->second;
    pb::Mapping* m = msg_.add_mapping();
    m->set_id(it->second);
    m->set_has_functions(true);
    auto file = files_by_module_.find(module);
    if (kernel || file == files_by_module_.end()) {
      m->set_filename(str(module == "[kernel]" ? kKernelMapping : module));
      return it->second;
    }
    const ExecutableMapping& f = *file->second;
    m->set_memory_start(f.start);
    m->set_memory_limit(f.limit);
    m->set_file_offset(f.file_offset);
    m->set_filename(str(f.path));
    if (!f.build_id.empty()) m->set_build_id(str(f.build_id));
    return it->second;
  }

  // The mapping of a binary's code as the addresses place it (at its ELF
  // addresses: profile/address_counts.h), made on first use.
  uint64_t code_mapping(uint32_t index) {
    if (code_mappings_.empty()) code_mappings_.resize(p_.addresses.mappings().size());
    uint64_t& id = code_mappings_[index];
    if (id) return id;
    const CodeMapping& c = p_.addresses.mappings()[index];
    pb::Mapping* m = msg_.add_mapping();
    id = static_cast<uint64_t>(msg_.mapping_size());
    m->set_id(id);
    m->set_has_functions(true);
    m->set_memory_start(c.start);
    m->set_memory_limit(c.limit);
    m->set_file_offset(c.file_offset);
    m->set_filename(str(c.path));
    if (!c.build_id.empty()) m->set_build_id(str(c.build_id));
    return id;
  }

  // A frame with a source file: its mapping has file names, lines and
  // (when the symbolizer gave them) inline frames.
  void note_lines(uint64_t mapping_id) {
    if (!mapping_id) return;
    pb::Mapping* m = msg_.mutable_mapping(static_cast<int>(mapping_id - 1));
    m->set_has_filenames(true);
    m->set_has_line_numbers(true);
    m->set_has_inline_frames(true);
  }

  uint64_t function_for(const CctFrame& f) {
    const std::string name = f.function + ((f.flags & kCctGuess) ? " (guessed)" : "");
    auto [it, inserted] = functions_.try_emplace(name + '\0' + f.file, msg_.function_size() + 1);
    if (!inserted) return it->second;
    pb::Function* fn = msg_.add_function();
    fn->set_id(it->second);
    fn->set_name(str(name));
    fn->set_system_name(str(name));  // the tree keeps demangled names only
    if (!f.file.empty()) fn->set_filename(str(f.file));
    return it->second;
  }

  // The location of a chain of frames given outermost first: a real
  // function, then the functions inlined into it. Lines are innermost first.
  uint64_t location_for(const std::vector<uint32_t>& chain) {
    auto [it, inserted] = locations_.try_emplace(chain, msg_.location_size() + 1);
    if (!inserted) return it->second;
    const CctFrame& outer = p_.tree.frame(chain.front());
    pb::Location* loc = msg_.add_location();
    loc->set_id(it->second);
    const uint64_t mapping = mapping_for(outer.module, outer.flags & kCctKernel);
    loc->set_mapping_id(mapping);
    for (auto f = chain.rbegin(); f != chain.rend(); ++f) {
      const CctFrame& frame = p_.tree.frame(*f);
      pb::Line* line = loc->add_line();
      line->set_function_id(function_for(frame));
      line->set_line(frame.line);
      if (!frame.file.empty()) note_lines(mapping);
    }
    return it->second;
  }

  // The stack of `node`, root first, without a thread root (returned apart).
  std::vector<uint32_t> stack_of(uint32_t node, std::optional<uint32_t>& thread_root) const {
    std::vector<uint32_t> path = p_.tree.path(node);
    if (!path.empty() && (p_.tree.frame(path.front()).flags & kCctThread)) {
      thread_root = path.front();
      path.erase(path.begin());
    }
    if (p_.reversed) std::reverse(path.begin(), path.end());
    return path;
  }

  // Location ids of a root-first stack, leaf first: each frame inlined into
  // its caller joins the caller's location.
  std::vector<uint64_t> locations_of(const std::vector<uint32_t>& root_first) {
    std::vector<std::vector<uint32_t>> chains;
    for (uint32_t f : root_first) {
      if (chains.empty() || !(p_.tree.frame(f).flags & kCctInline)) chains.emplace_back();
      chains.back().push_back(f);
    }
    std::vector<uint64_t> ids;
    for (auto c = chains.rbegin(); c != chains.rend(); ++c) ids.push_back(location_for(*c));
    return ids;
  }

  void add_thread_labels(pb::Sample* s, uint32_t root_frame) {
    const ThreadLabel t = thread_label(p_, p_.tree.frame(root_frame).function);
    pb::Label* name = s->add_label();
    name->set_key(str("thread"));
    name->set_str(str(t.name));
    if (!t.tid) return;
    pb::Label* id = s->add_label();
    id->set_key(str("thread_id"));
    id->set_num(*t.tid);
  }

  void add_sample(uint32_t node) {
    const CctNode& n = p_.tree.node(node);
    std::optional<uint32_t> thread_root;
    const std::vector<uint32_t> stack = stack_of(node, thread_root);
    if (stack.empty()) return;  // samples of a thread root alone: none are made
    pb::Sample* s = msg_.add_sample();
    for (uint64_t id : locations_of(stack)) s->add_location_id(id);
    s->add_value(static_cast<int64_t>(n.self));
    s->add_value(static_cast<int64_t>(n.self_weight));
    if (thread_root) add_thread_labels(s, *thread_root);
  }

  // The location of one sampled address (AddressCounts), made on first
  // use: its address, and its functions innermost first, each at its line.
  uint64_t address_location(uint32_t index) {
    if (address_locations_.empty()) address_locations_.resize(p_.addresses.locations().size());
    uint64_t& id = address_locations_[index];
    if (id) return id;
    const CodeLocation& c = p_.addresses.locations()[index];
    const CctFrame& real = p_.tree.frame(c.function());
    const uint64_t mapping = c.mapping != CodeLocation::kNoMapping ? code_mapping(c.mapping)
                                                                  : mapping_for(real.module, real.flags & kCctKernel);
    pb::Location* loc = msg_.add_location();
    id = static_cast<uint64_t>(msg_.location_size());
    loc->set_id(id);
    loc->set_mapping_id(mapping);
    loc->set_address(c.address);
    for (const CodeLine& l : c.lines) {
      const CctFrame& frame = p_.tree.frame(l.frame);
      pb::Line* line = loc->add_line();
      line->set_function_id(function_for(frame));
      line->set_line(l.line);
      if (!frame.file.empty()) note_lines(mapping);
    }
    return id;
  }

  // The thread root atop `node`'s stack, if any.
  std::optional<uint32_t> thread_root_of(uint32_t node) const {
    while (node != CallTree::kRoot && p_.tree.node(node).parent != CallTree::kRoot) node = p_.tree.node(node).parent;
    if (node == CallTree::kRoot) return std::nullopt;
    const uint32_t frame = p_.tree.node(node).frame;
    return (p_.tree.frame(frame).flags & kCctThread) ? std::optional<uint32_t>(frame) : std::nullopt;
  }

  // One sample per distinct stack of addresses under a node of the tree,
  // in the order the recording first had them.
  void add_address_samples() {
    const AddressCounts& counts = p_.addresses;
    for (const AddressStack& stack : counts.stacks()) {
      pb::Sample* s = msg_.add_sample();
      for (uint32_t location : counts.stack_locations(stack)) s->add_location_id(address_location(location));
      s->add_value(static_cast<int64_t>(stack.samples));
      s->add_value(static_cast<int64_t>(stack.weight));
      if (const std::optional<uint32_t> root = thread_root_of(stack.node)) add_thread_labels(s, *root);
    }
  }

  // Depth first in the tree's (sorted) child order, so the output is
  // deterministic.
  void add_samples() {
    std::vector<uint32_t> pending{CallTree::kRoot};
    while (!pending.empty()) {
      const uint32_t node = pending.back();
      pending.pop_back();
      const CctNode& n = p_.tree.node(node);
      if (n.self && node != CallTree::kRoot) add_sample(node);
      for (auto c = n.children.rbegin(); c != n.children.rend(); ++c) pending.push_back(*c);
    }
  }

  const Profile& p_;
  pb::Profile msg_;
  std::unordered_map<std::string, int64_t> strings_;
  std::unordered_map<std::string, const ExecutableMapping*> files_by_module_;  // first file of each basename
  std::unordered_map<std::string, uint64_t> mappings_;                 // by module
  std::unordered_map<std::string, uint64_t> functions_;                // by name NUL file
  std::map<std::vector<uint32_t>, uint64_t> locations_;                // by frame chain
  std::vector<uint64_t> code_mappings_;      // by AddressCounts mapping; 0 until made
  std::vector<uint64_t> address_locations_;  // by AddressCounts location; 0 until made
};

// zlib's deflate with a gzip wrapper (RFC 1952), as pprof files are stored.
class GzipDeflater {
 public:
  GzipDeflater() {
    constexpr int kGzipWindow = 15 + 16;  // 32 KiB window, gzip header and trailer
    if (deflateInit2(&z_, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindow, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw Error("cannot write the pprof profile: zlib could not start");
  }
  ~GzipDeflater() { deflateEnd(&z_); }
  GzipDeflater(const GzipDeflater&) = delete;
  GzipDeflater& operator=(const GzipDeflater&) = delete;

  // Compresses all of `bytes` (under 4 GiB: a protobuf message is under 2)
  // onto `out`, and ends the stream.
  void finish(const std::string& bytes, std::ostream& out) {
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z_.avail_in = static_cast<uInt>(bytes.size());
    char buffer[1 << 16];
    int status = Z_OK;
    while (status != Z_STREAM_END) {
      z_.next_out = reinterpret_cast<Bytef*>(buffer);
      z_.avail_out = sizeof buffer;
      status = deflate(&z_, Z_FINISH);
      if (status != Z_OK && status != Z_STREAM_END)
        throw Error("cannot write the pprof profile: zlib failed");
      out.write(buffer, static_cast<std::streamsize>(sizeof buffer - z_.avail_out));
    }
  }

 private:
  z_stream z_{};
};

}  // namespace

void write_pprof(const Profile& profile, std::ostream& out) {
  std::string bytes;
  if (!PprofBuilder(profile).build().SerializeToString(&bytes))
    throw Error("cannot write the pprof profile: it exceeds protobuf's 2 GiB limit");
  GzipDeflater().finish(bytes, out);
}

}  // namespace swprof
