#include "symbolize/debug_info.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>

#include "common/hex.h"
#include "symbolize/demangle.h"

namespace swprof {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using DieArray = std::unique_ptr<Dwarf_Die, FreeDeleter>;

bool is_function_scope(int tag) {
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_entry_point;
}

std::string dirname_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, std::max<size_t>(slash, 1));
}

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The value of an unsigned attribute of `die` itself (not its origin).
std::optional<Dwarf_Word> udata_attr(Dwarf_Die* die, unsigned name) {
  Dwarf_Attribute attr;
  Dwarf_Word value = 0;
  if (dwarf_formudata(dwarf_attr(die, name, &attr), &value) != 0) return std::nullopt;
  return value;
}

}  // namespace

DebugInfo::DebugInfo(std::shared_ptr<const ElfBinary> binary, const SymbolizerOptions& options)
    : binary_(std::move(binary)), options_(options) {
  const std::string& path = binary_->path();
  if (path.empty() || path[0] != '/') return;  // an in-memory image: ElfBinary's symbols only

  // "+": check the CRC of .gnu_debuglink matches. "" is the binary's own
  // folder, ".debug" its .debug/ folder; absolute roots serve both the
  // .build-id/ lookup and <root>/<binary's folder>/<debuglink>.
  debuginfo_path_ = "+:.debug";
  for (const std::string& root : options_.debug_roots) {
    if (root.empty() || root.find(':') != std::string::npos) continue;
    debuginfo_path_ += ":" + std::filesystem::absolute(root).lexically_normal().string();
  }
  debuginfo_path_ptr_ = debuginfo_path_.data();
  callbacks_.find_elf = dwfl_build_id_find_elf;
  callbacks_.find_debuginfo = &DebugInfo::find_debuginfo;
  callbacks_.section_address = dwfl_offline_section_address;
  callbacks_.debuginfo_path = &debuginfo_path_ptr_;

  dwfl_.reset(dwfl_begin(&callbacks_));
  if (!dwfl_) {
    warn("cannot start libdwfl for " + path + ": " + dwfl_errmsg(-1));
    return;
  }
  dwfl_report_begin(dwfl_.get());
  // An ET_DYN file at base 0 relative to its p_vaddr keeps its link
  // addresses; ET_EXEC files always do.
  Dwfl_Module* mod = dwfl_report_elf(dwfl_.get(), basename_of(path).c_str(), path.c_str(), -1, 0, true);
  dwfl_report_end(dwfl_.get(), nullptr, nullptr);
  if (!mod) {
    warn("cannot read the symbols of " + path + ": " + dwfl_errmsg(-1));
    return;
  }
  GElf_Addr bias = 0;
  if (!dwfl_module_getelf(mod, &bias)) {
    warn("cannot read the symbols of " + path + ": " + dwfl_errmsg(-1));
    return;
  }
  // The file was opened again by name: it must still be the one unwound.
  const unsigned char* id = nullptr;
  GElf_Addr id_vaddr = 0;
  const int id_size = dwfl_module_build_id(mod, &id, &id_vaddr);
  const auto& expected = binary_->build_id();
  if (!expected.empty() && (id_size <= 0 || !std::equal(expected.begin(), expected.end(), id, id + id_size))) {
    warn(path + " changed on disk while it was being read: it is named from its symbol table only");
    return;
  }
  void** userdata = nullptr;
  dwfl_module_info(mod, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  if (userdata) *userdata = this;  // for find_debuginfo
  module_ = mod;
  module_bias_ = bias;
}

int DebugInfo::find_debuginfo(Dwfl_Module* mod, void** userdata, const char* modname, Dwarf_Addr base,
                              const char* file_name, const char* debuglink_file, GElf_Word debuglink_crc,
                              char** debuginfo_file_name) {
  const int fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                              debuglink_crc, debuginfo_file_name);
  auto* self = userdata ? static_cast<DebugInfo*>(*userdata) : nullptr;
  if (self) {
    if (fd >= 0) self->found_separate_debuginfo_ = true;
    else self->note_rejected_debuginfo(debuglink_file);
  }
  return fd;
}

// libdwfl found no debuginfo it could use. A file sitting where it looked is
// then damaged or belongs to another build: say so, once.
void DebugInfo::note_rejected_debuginfo(const char* debuglink_file) {
  namespace fs = std::filesystem;
  const std::string& path = binary_->path();
  std::vector<std::string> candidates;
  const auto& id = binary_->build_id();
  std::vector<std::string> roots;
  for (const std::string& root : options_.debug_roots)
    if (!root.empty()) roots.push_back(fs::absolute(root).lexically_normal().string());
  if (id.size() >= 2) {
    const std::string hex = to_hex(Bytes(id.data(), id.size()));
    for (const std::string& root : roots)
      candidates.push_back(root + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug");
  }
  const std::string link = debuglink_file && *debuglink_file ? debuglink_file : basename_of(path) + ".debug";
  const std::string dir = dirname_of(path);
  candidates.push_back(dir + "/" + link);
  candidates.push_back(dir + "/.debug/" + link);
  for (const std::string& root : roots) candidates.push_back(root + dir + "/" + link);

  std::error_code ec;
  for (const std::string& candidate : candidates) {
    if (!fs::is_regular_file(candidate, ec) || fs::equivalent(candidate, path, ec)) continue;
    auto debug = ElfBinary::open(candidate);
    std::string reason;
    if (!debug) reason = "not a 64-bit ELF file";
    else if (!id.empty() && !debug->build_id().empty() && debug->build_id() != id) reason = "its build-id differs";
    else reason = "its CRC or contents do not match";
    warn("ignored " + candidate + " as debuginfo of " + path + " (" + reason +
         "): no source lines or inline frames for it");
    return;
  }
}

// Whether libdw can read this binary's DWARF. Having none is normal (a
// stripped binary without installed debuginfo); having some that libdw
// cannot walk is worth one warning.
void DebugInfo::check_dwarf() {
  dwarf_checked_ = true;
  Dwarf_Addr bias = 0;
  Dwarf* dwarf = dwfl_module_getdwarf(module_, &bias);
  if (!dwarf) {
    if (found_separate_debuginfo_ || binary_->section(".debug_info"))
      warn("cannot read the DWARF of " + binary_->path() + " (" + dwfl_errmsg(-1) +
           "): no source lines or inline frames for it");
    return;
  }
  // Walk the unit headers once: a damaged .debug_info shows up here rather
  // than as silently missing lines.
  Dwarf_Off offset = 0, next = 0;
  size_t header_size = 0;
  int rc = 0;
  while ((rc = dwarf_next_unit(dwarf, offset, &next, &header_size, nullptr, nullptr, nullptr, nullptr, nullptr,
                               nullptr)) == 0)
    offset = next;
  if (rc < 0)
    warn("the DWARF of " + binary_->path() + " is damaged (" + dwarf_errmsg(-1) +
         "): some source lines or inline frames may be missing");
  dwarf_usable_ = true;
}

std::vector<SourceFrame> DebugInfo::frames_at(uint64_t vaddr) {
  std::vector<SourceFrame> frames;
  SourceFrame outer;
  if (module_) {
    const Dwarf_Addr addr = vaddr + module_bias_;
    GElf_Off offset = 0;
    GElf_Sym sym;
    if (const char* name = dwfl_module_addrinfo(module_, addr, &offset, &sym, nullptr, nullptr, nullptr)) {
      // Versioned names ("memcpy@@GLIBC_2.14") name the function without it.
      const char* at = std::strchr(name, '@');
      outer.function = symbol_name(at && at != name ? std::string(name, at).c_str() : name);
      outer.function_offset = offset;
    }
    if (options_.lines) {
      if (!dwarf_checked_) check_dwarf();
      if (dwarf_usable_) add_dwarf_frames(addr, outer, frames);
    }
  } else if (const FunctionSymbol* f = binary_->function_at(vaddr)) {
    outer.function = symbol_name(f->name.c_str());
    outer.function_offset = vaddr - f->start;
  }
  frames.push_back(std::move(outer));
  return frames;
}

// The leaf line comes from the line table. The scopes holding the address,
// innermost first, are the inlined instances and then the real function; an
// inlined instance's DW_AT_call_file/DW_AT_call_line is where the next outer
// function was when it called it (DWARF 5 §3.3.8.2).
void DebugInfo::add_dwarf_frames(Dwarf_Addr addr, SourceFrame& outer, std::vector<SourceFrame>& frames) {
  std::string file;
  uint32_t line = 0;
  if (Dwfl_Line* src = dwfl_module_getsrc(module_, addr)) {
    Dwarf_Addr line_addr = 0;
    int lineno = 0, column = 0;
    Dwarf_Word mtime = 0, length = 0;
    if (const char* name = dwfl_lineinfo(src, &line_addr, &lineno, &column, &mtime, &length)) {
      file = name;
      line = lineno > 0 ? static_cast<uint32_t>(lineno) : 0;
    }
  }
  outer.file = file;
  outer.line = line;

  Dwarf_Addr cu_bias = 0;
  Dwarf_Die* cu = dwfl_module_addrdie(module_, addr, &cu_bias);
  if (!cu) return;  // code without DWARF (startup files, assembly)
  Dwarf_Die* raw = nullptr;
  const int n = dwarf_getscopes(cu, addr - cu_bias, &raw);
  DieArray scopes(raw);
  if (n < 0) {
    if (!damaged_warned_) {
      damaged_warned_ = true;
      warn("the DWARF of " + binary_->path() + " is damaged (" + dwarf_errmsg(-1) +
           "): some source lines or inline frames may be missing");
    }
    return;
  }
  if (n == 0) return;
  // dwarf_getscopes may continue into an inlined function's abstract
  // definition; the plain parent chain of the innermost scope is the
  // concrete nesting.
  Dwarf_Die innermost = scopes.get()[0];
  raw = nullptr;
  const int depth = dwarf_getscopes_die(&innermost, &raw);
  DieArray chain(raw);
  if (depth <= 0) return;

  Dwarf_Files* files = nullptr;
  size_t nfiles = 0;
  if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0) files = nullptr;
  for (int i = 0; i < depth; ++i) {
    Dwarf_Die* die = &chain.get()[i];
    const int tag = dwarf_tag(die);
    if (!is_function_scope(tag)) continue;
    int decl = 0;
    const uint32_t decl_line = dwarf_decl_line(die, &decl) == 0 && decl > 0 ? static_cast<uint32_t>(decl) : 0;
    if (tag != DW_TAG_inlined_subroutine) {
      outer.file = file;
      outer.line = line;
      outer.decl_line = decl_line;
      if (outer.function.empty()) outer.function = die_name(die);
      return;
    }
    // Without inline frames the real function shows the leaf line, as
    // addr2line without -i does.
    if (!options_.inline_frames) continue;
    SourceFrame f;
    f.function = die_name(die);
    f.file = file;
    f.line = line;
    f.decl_line = decl_line;
    f.inlined = true;
    frames.push_back(std::move(f));
    // Where the enclosing function called this inlined one.
    file.clear();
    if (auto index = udata_attr(die, DW_AT_call_file); index && files && *index < nfiles) {
      if (const char* name = dwarf_filesrc(files, *index, nullptr, nullptr)) file = name;
    }
    line = static_cast<uint32_t>(udata_attr(die, DW_AT_call_line).value_or(0));
  }
}

std::string DebugInfo::die_name(Dwarf_Die* die) const {
  Dwarf_Attribute attr;
  const char* linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
  if (!linkage) linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
  if (linkage) return symbol_name(linkage);
  const char* name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
  return name ? name : "";
}

std::string DebugInfo::symbol_name(const char* name) const {
  return options_.demangle ? demangle(name) : std::string(name);
}

void DebugInfo::warn(const std::string& message) {
  if (std::find(warnings_.begin(), warnings_.end(), message) == warnings_.end()) warnings_.push_back(message);
}

}  // namespace swprof
