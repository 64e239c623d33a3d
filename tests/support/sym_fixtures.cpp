#include "support/sym_fixtures.h"

#include <gelf.h>
#include <libelf.h>
#include <fcntl.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "binary/elf_binary.h"
#include "common/elf_handle.h"
#include "common/hex.h"
#include "common/unique_fd.h"

namespace swprof::testing {
namespace {

struct Segment {
  uint64_t vaddr, memsz, offset, filesz;
  bool exec;
};

std::vector<Segment> load_segments(const std::string& path) {
  elf_version(EV_CURRENT);
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  REQUIRE(fd.valid());
  ElfPtr elf(elf_begin(fd.get(), ELF_C_READ, nullptr));
  REQUIRE(elf);
  size_t n = 0;
  REQUIRE(elf_getphdrnum(elf.get(), &n) == 0);
  std::vector<Segment> out;
  for (size_t i = 0; i < n; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf.get(), static_cast<int>(i), &ph) && ph.p_type == PT_LOAD)
      out.push_back({ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz, (ph.p_flags & PF_X) != 0});
  }
  return out;
}

}  // namespace

std::string program_file(const std::string& name) { return std::string(SYM_PROGRAMS_DIR) + "/" + name; }

std::map<uint64_t, std::string> objdump_stub_labels(const std::string& listing_file) {
  std::ifstream in(listing_file);
  REQUIRE(in);
  static const std::regex label(R"(^([0-9a-f]+) <([^>+\-*]+)>:$)");
  std::map<uint64_t, std::string> out;
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_match(line, m, label)) out[std::stoull(m[1], nullptr, 16)] = m[2];
  return out;
}

uint32_t marker_line(const std::string& source, const std::string& marker) {
  std::ifstream in(std::string(SYM_SOURCE_DIR) + "/" + source);
  REQUIRE(in);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  FAIL("marker " << marker << " not in " << source);
  return 0;
}

std::string command_output(const std::string& command) {
  FILE* p = popen(command.c_str(), "r");
  REQUIRE(p);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  INFO(command);
  REQUIRE(status == 0);
  return out;
}

const std::map<std::string, uint64_t>& probe_addresses() {
  static const std::map<std::string, uint64_t> probes = [] {
    std::map<std::string, uint64_t> out;
    std::istringstream lines(command_output(program_file("sym_target")));
    std::string tag, hex;
    while (lines >> tag >> hex) out[tag] = std::stoull(hex, nullptr, 16);
    return out;
  }();
  REQUIRE(probes.size() == 3);
  return probes;
}

std::multimap<std::string, uint64_t> nm_symbols(const std::string& path, bool dynamic) {
  std::istringstream lines(
      command_output(std::string("nm ") + (dynamic ? "-D " : "") + "--defined-only --format=posix '" + path + "'"));
  std::multimap<std::string, uint64_t> out;
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string name, type, value;
    if (!(fields >> name >> type >> value)) continue;
    name = name.substr(0, name.find('@'));  // "clock_gettime@@LINUX_2.6"
    out.emplace(name, std::stoull(value, nullptr, 16));
  }
  return out;
}

ProcessMaps load_like_loader(BinaryCache& binaries, const std::string& path, uint64_t base) {
  ProcessMaps maps;
  for (const Segment& s : load_segments(path)) {
    const uint64_t start = base + (s.vaddr & ~uint64_t{0xfff});
    const uint64_t end = (base + s.vaddr + s.memsz + 0xfff) & ~uint64_t{0xfff};
    Mapping m = resolve_mapping(binaries, start, end, s.offset & ~uint64_t{0xfff}, path, s.exec, {});
    REQUIRE(m.binary);
    // (A data segment sharing its first file page with the one before it can
    // get another bias; no code is there.)
    if (s.exec) REQUIRE(m.bias == base);
    maps.add(std::move(m));
  }
  return maps;
}

uint64_t file_offset_of(const std::string& path, uint64_t vaddr) {
  for (const Segment& s : load_segments(path))
    if (vaddr >= s.vaddr && vaddr < s.vaddr + s.filesz) return vaddr - s.vaddr + s.offset;
  FAIL("no segment holds 0x" << std::hex << vaddr);
  return 0;
}

std::string basename_of(const std::string& path) { return std::filesystem::path(path).filename().string(); }

void copy_file(const std::string& from, const std::string& to) {
  std::filesystem::create_directories(std::filesystem::path(to).parent_path());
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
}

std::string build_id_path(const std::string& root, const std::string& binary) {
  auto b = ElfBinary::open(binary);
  REQUIRE(b);
  REQUIRE(b->build_id().size() > 2);
  const std::string hex = to_hex(Bytes(b->build_id().data(), b->build_id().size()));
  return root + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
}

void write_file(const std::string& path, const std::string& bytes) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  REQUIRE(out.good());
}

uint64_t after_execve_syscall(const ElfBinary& libc) {
  const FunctionSymbol* execve = libc.function_named("execve");
  REQUIRE(execve);
  std::vector<uint8_t> code(execve->size);
  REQUIRE(libc.read_code(execve->start, code.data(), code.size()));
  for (size_t i = 0; i + 1 < code.size(); ++i)
    if (code[i] == 0x0f && code[i + 1] == 0x05) return execve->start + i + 2;
  FAIL("no syscall instruction in execve");
  return 0;
}

}  // namespace swprof::testing
