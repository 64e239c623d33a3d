#include "support/offline_snapshot.h"

#include <array>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "recording/recording_reader.h"
#include "support/read_file.h"

namespace swprof::testing {
namespace {

// DWARF register names, indexed by number (binary/dwarf_regs.h).
constexpr std::array<const char*, kRegCount> kRegNames = {
    "rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8",
    "r9",  "r10", "r11", "r12", "r13", "r14", "r15", "rip"};

[[noreturn]] void fail(const std::string& file, const std::string& what) {
  throw std::runtime_error(file + ": " + what);
}

std::string read_case_file(const std::string& dir, const std::string& name) {
  const std::string path = dir + "/" + name;
  if (!std::filesystem::is_regular_file(path)) fail(path, "missing");
  return read_file(path);
}

uint64_t parse_hex(const std::string& text, const std::string& file) {
  size_t used = 0;
  uint64_t v = 0;
  try {
    v = std::stoull(text, &used, 16);
  } catch (const std::exception&) {
    fail(file, "not a hex number: '" + text + "'");
  }
  if (used != text.size()) fail(file, "not a hex number: '" + text + "'");
  return v;
}

bool is_bracketed(const std::string& path) { return !path.empty() && path[0] == '['; }

// "start-end offset perms path"; a path not in brackets is a file in `dir`.
Mapping parse_mapping(BinaryCache& binaries, const std::string& dir, const std::string& line) {
  std::istringstream in(line);
  std::string range, offset, perms, path;
  const size_t dash = line.find('-');
  if (!(in >> range >> offset >> perms >> path) || dash == std::string::npos || perms.size() != 4)
    fail(dir + "/maps.txt", "bad line '" + line + "'");
  const uint64_t start = parse_hex(range.substr(0, range.find('-')), dir + "/maps.txt");
  const uint64_t end = parse_hex(range.substr(range.find('-') + 1), dir + "/maps.txt");
  const std::string full = is_bracketed(path) ? path : dir + "/" + path;
  return resolve_mapping(binaries, start, end, parse_hex(offset, dir + "/maps.txt"), full, perms[2] == 'x', {});
}

ProcessMaps load_maps(const std::string& dir) {
  BinaryCache binaries;
  ProcessMaps maps;
  std::istringstream lines(read_case_file(dir, "maps.txt"));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) maps.add(parse_mapping(binaries, dir, line));
  for (const std::string& w : binaries.warnings()) fail(dir + "/maps.txt", w);
  return maps;
}

int register_number(const std::string& name) {
  for (size_t i = 0; i < kRegNames.size(); ++i)
    if (name == kRegNames[i]) return static_cast<int>(i);
  return -1;
}

Registers load_regs(const std::string& dir) {
  Registers regs;
  std::istringstream lines(read_case_file(dir, "regs.txt"));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const size_t colon = line.find(": ");
    const int reg = colon == std::string::npos ? -1 : register_number(line.substr(0, colon));
    if (reg < 0) fail(dir + "/regs.txt", "bad line '" + line + "'");
    regs.set(reg, parse_hex(line.substr(colon + 2), dir + "/regs.txt"));
  }
  return regs;
}

std::string hex(uint64_t v, int width = 0) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*" PRIx64, width, v);
  return buf;
}

std::string basename_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "module+0xoffset function+0xoffset" for a frame's pc.
std::string describe_pc(const Frame& frame, const ProcessMaps& maps) {
  const uint64_t lookup = (frame.flags & kFrameExactPc) ? frame.pc : frame.pc - 1;
  const Mapping* m = maps.find(lookup);
  if (!m) return "[unknown] ?";
  std::string out = basename_of(m->path) + "+" + hex(frame.pc - m->start + m->file_offset) + " ";
  const FunctionSymbol* f = m->binary ? m->binary->function_at(m->to_vaddr(lookup)) : nullptr;
  return out + (f ? f->name + "+" + hex(m->to_vaddr(frame.pc) - f->start) : "?");
}

std::string frame_flags(const Frame& frame) {
  std::string out;
  if (frame.flags & kFrameSignal) out += " [signal]";
  if (frame.flags & kFrameGuess) out += " [guess]";
  return out;
}

}  // namespace

OfflineCase load_offline_case(const std::string& dir) {
  OfflineCase c;
  c.maps = load_maps(dir);
  c.regs = load_regs(dir);
  std::string start = read_case_file(dir, "stack_start.txt");
  while (!start.empty() && (start.back() == '\n' || start.back() == ' ')) start.pop_back();
  c.stack_start = parse_hex(start, dir + "/stack_start.txt");
  const std::string stack = read_case_file(dir, "stack.bin");
  c.stack.assign(stack.begin(), stack.end());
  return c;
}

std::string dump_walk(const WalkResult& walk, const ProcessMaps& maps) {
  std::string out;
  for (size_t i = 0; i < walk.frames.size(); ++i) {
    const Frame& f = walk.frames[i];
    out += (i < 10 ? "#0" : "#") + std::to_string(i) + " pc " + hex(f.pc, 16) + " " + stepper_name(f.stepper) + " " +
           describe_pc(f, maps) + frame_flags(f) + "\n";
  }
  return out + "end: " + walk_end_name(walk.end) + "\n";
}

namespace {

struct Captured {
  std::vector<MappingRecord> mappings;  // of the sample's process, in recording order
  std::string program;                  // the recorded path of the sample's binary
  Registers regs;
  std::vector<uint8_t> stack;
};

bool in_function(const ProcessMaps& maps, uint64_t pc, const std::string& name, std::string& path) {
  const Mapping* m = maps.find(pc);
  if (!m || !m->binary) return false;
  const FunctionSymbol* f = m->binary->function_at(m->to_vaddr(pc));
  if (!f || f->name != name) return false;
  path = m->path;
  return true;
}

Captured find_sample(const CaptureRequest& request) {
  RecordingReader reader(request.recording);
  AddressSpaces spaces(std::make_shared<BinaryCache>());
  std::vector<MappingRecord> mappings;
  Captured out;
  while (auto rec = reader.next()) {
    spaces.apply(*rec);
    if (auto* m = std::get_if<MappingRecord>(&*rec)) mappings.push_back(*m);
    auto* s = std::get_if<SampleView>(&*rec);
    if (!s || s->in_kernel || s->stack.empty()) continue;
    out.regs = Registers::from_sample(*s);
    if (!in_function(*spaces.snapshot(s->pid), out.regs.pc(), request.leaf, out.program)) continue;
    out.stack.assign(s->stack.begin(), s->stack.end());
    for (const MappingRecord& m : mappings)
      if (m.pid == s->pid) out.mappings.push_back(m);
    return out;
  }
  throw std::runtime_error(request.recording + ": no user sample in " + request.leaf);
}

std::string perms(uint32_t prot) {
  return std::string(prot & 1 ? "r" : "-") + (prot & 2 ? "w" : "-") + (prot & 4 ? "x" : "-") + "p";
}

std::string maps_text(const Captured& c, const std::string& binary) {
  std::string out;
  for (const MappingRecord& m : c.mappings) {
    std::string path = m.path == c.program ? binary : m.path;
    if (!is_bracketed(path) && path != binary) continue;
    out += hex(m.start).substr(2) + "-" + hex(m.start + m.length).substr(2) + " " + hex(m.file_offset, 8).substr(2) +
           " " + perms(m.prot) + " " + path + "\n";
  }
  return out;
}

std::string regs_text(const Registers& regs) {
  std::string out;
  for (size_t i = 0; i < kRegNames.size(); ++i)
    if (regs.has(static_cast<int>(i))) out += std::string(kRegNames[i]) + ": " + hex(regs.get(static_cast<int>(i))) + "\n";
  return out;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace

void capture_offline_case(const CaptureRequest& request) {
  Captured c = find_sample(request);
  if (c.stack.size() > request.stack_bytes) c.stack.resize(request.stack_bytes);
  std::filesystem::create_directories(request.case_dir);
  write_text(request.case_dir + "/maps.txt", maps_text(c, request.binary));
  write_text(request.case_dir + "/regs.txt", regs_text(c.regs));
  write_text(request.case_dir + "/stack_start.txt", hex(c.regs.sp()) + "\n");
  write_text(request.case_dir + "/stack.bin", std::string(c.stack.begin(), c.stack.end()));
}

}  // namespace swprof::testing
