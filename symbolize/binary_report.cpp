#include "symbolize/binary_report.h"

#include <gelf.h>

#include <algorithm>

#include "binary/fde_reader.h"
#include "binary/function_starts.h"
#include "binary/go_pclntab.h"
#include "binary/x86_decoder.h"
#include "symbolize/debug_info.h"
#include "unwind/frame_state.h"

namespace swprof {
namespace {

// The dynamic section has DT_SONAME: a shared library (libc.so.6 has an
// interpreter too, to run as a program).
bool has_soname(const ElfBinary& binary) {
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(binary.elf(), scn)) != nullptr;) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Dyn dyn;
      if (gelf_getdyn(data, static_cast<int>(i), &dyn) && dyn.d_tag == DT_SONAME) return true;
    }
  }
  return false;
}

// ELF type, whether it names an interpreter (PT_INTERP), and its soname.
std::string binary_kind(const ElfBinary& binary) {
  GElf_Ehdr eh;
  if (!gelf_getehdr(binary.elf(), &eh)) return "unknown";
  size_t phnum = 0;
  bool interp = false;
  if (elf_getphdrnum(binary.elf(), &phnum) == 0)
    for (size_t i = 0; i < phnum; ++i) {
      GElf_Phdr ph;
      interp |= gelf_getphdr(binary.elf(), static_cast<int>(i), &ph) && ph.p_type == PT_INTERP;
    }
  if (eh.e_type == ET_EXEC) return interp ? "executable" : "static executable";
  return interp && !has_soname(binary) ? "PIE executable" : "shared library";
}

// Function symbols of one table (SHT_SYMTAB or SHT_DYNSYM), as ElfBinary counts them.
size_t count_functions(const ElfBinary& binary, uint32_t table_type) {
  size_t n = 0;
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(binary.elf(), scn)) != nullptr;) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != table_type || sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
      const int type = GELF_ST_TYPE(sym.st_info);
      n += (type == STT_FUNC || type == STT_GNU_IFUNC) && sym.st_shndx != SHN_UNDEF && sym.st_value != 0;
    }
  }
  return n;
}

// [start, end) of every executable section holding bytes.
std::vector<std::pair<uint64_t, uint64_t>> code_ranges(const ElfBinary& binary) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(binary.elf(), scn)) != nullptr;) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size)
      out.emplace_back(sh.sh_addr, sh.sh_addr + sh.sh_size);
  }
  return out;
}

// Bytes of `code` that some range of `covered` holds.
uint64_t covered_bytes(const std::vector<std::pair<uint64_t, uint64_t>>& code,
                       std::vector<std::pair<uint64_t, uint64_t>> covered) {
  std::sort(covered.begin(), covered.end());  // a copy: the caller keeps them in section order
  uint64_t total = 0, reach = 0;
  for (auto [lo, hi] : covered) {
    lo = std::max(lo, reach);
    if (hi <= lo) continue;
    for (const auto& [c_lo, c_hi] : code)
      if (std::min(hi, c_hi) > std::max(lo, c_lo)) total += std::min(hi, c_hi) - std::max(lo, c_lo);
    reach = std::max(reach, hi);
  }
  return total;
}

// Adds the CFI facts; returns the FDEs' ranges (each starts a function).
std::vector<std::pair<uint64_t, uint64_t>> add_cfi(const ElfBinary& binary, BinaryReport& r) {
  std::vector<std::pair<uint64_t, uint64_t>> covered;
  FdeReader reader(binary.elf());
  if (!reader.ok()) return covered;
  auto add = [&](const char* name, bool eh_frame, size_t& count) {
    const auto section = find_section(binary.elf(), name);
    if (!section) return;
    for (const FdeRange& f : reader.walk_fdes(*section, eh_frame)) covered.emplace_back(f.lo, f.hi);
    count = covered.size() - (eh_frame ? 0 : r.eh_frame_fdes);
  };
  add(".eh_frame", true, r.eh_frame_fdes);
  add(".debug_frame", false, r.debug_frame_fdes);
  r.eh_frame_hdr = find_section(binary.elf(), ".eh_frame_hdr").has_value();
  const auto code = code_ranges(binary);
  for (const auto& [lo, hi] : code) r.code_bytes += hi - lo;
  r.cfi_bytes = covered_bytes(code, covered);
  return covered;
}

// The known function starts: symbols and FDE initial locations, sorted, once each.
std::vector<uint64_t> known_starts(const ElfBinary& binary, const std::vector<std::pair<uint64_t, uint64_t>>& fdes) {
  std::vector<uint64_t> starts;
  for (const FunctionSymbol& f : binary.functions()) starts.push_back(f.start);
  for (const auto& fde : fdes) starts.push_back(fde.first);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  return starts;
}

// Frame-pointer prologues among at most kMaxPrologues known function starts,
// spread evenly over them.
void add_frame_pointers(const ElfBinary& binary, const std::vector<uint64_t>& starts, BinaryReport& r) {
  X86Decoder decoder;
  if (starts.empty() || !decoder.ok()) return;
  const size_t step = std::max<size_t>(1, starts.size() / kMaxPrologues);
  for (size_t i = 0; i < starts.size() && r.prologues_checked < kMaxPrologues; i += step) {
    const uint64_t start = starts[i];
    const Bytes code = binary.code_at(start, FrameStateHelper::kPrologueBytes, true);
    if (code.empty()) continue;
    ++r.prologues_checked;
    r.frame_pointer_prologues += analyze_frame_layout(decoder, code, start).kind == FrameKind::kStandard;
  }
}

void add_names(const std::shared_ptr<const ElfBinary>& binary, const SymbolizerOptions& options, BinaryReport& r) {
  r.symtab_functions = count_functions(*binary, SHT_SYMTAB);
  r.dynsym_functions = count_functions(*binary, SHT_DYNSYM);
  r.minidebuginfo = binary->section(".gnu_debugdata").has_value();
  r.plt_entries = binary->plt_entries().entries().size();
  r.dwarf_file = DebugInfo(binary, options).dwarf_file();
}

// Go code is named and unwound from its pclntab; other code without names
// (no .symtab, minidebuginfo or DWARF) by the functions discovery finds, the
// unnamed ones shown by their start.
void add_go_or_discovery(const ElfBinary& binary, BinaryReport& r) {
  if (const GoPclntab* go = binary.go_pclntab()) {
    r.go_functions = go->size();
    r.go_version = go->version();
    return;
  }
  if (r.has_full_names()) return;
  const FunctionStarts& starts = binary.function_starts();
  constexpr uint16_t kKnown = kFromSymbol | kFromDynsym | kFromFde | kFromPlt;
  r.discovery_run = true;
  r.discovery_budget_hit = starts.stats().budget_hit;
  for (uint64_t start : starts.starts())
    if (auto f = starts.at(start); f && !(f->sources & kKnown)) ++r.discovered_functions;
}

}  // namespace

BinaryReport inspect_binary(const std::string& path, const std::vector<uint8_t>& build_id, BinaryCache& binaries,
                            const SymbolizerOptions& options) {
  BinaryReport r;
  const BinaryCache::Lookup found = binaries.get(path, build_id);
  if (!found.binary) {
    r.status = found.build_id_mismatch ? BinaryStatus::kChanged : BinaryStatus::kMissing;
    if (!found.build_id_mismatch) r.problem = ElfBinary::open_file(path).reason;
    return r;
  }
  const ElfBinary& binary = *found.binary;
  r.kind = binary_kind(binary);
  const auto fdes = add_cfi(binary, r);
  add_frame_pointers(binary, known_starts(binary, fdes), r);
  add_names(found.binary, options, r);
  add_go_or_discovery(binary, r);
  return r;
}

std::vector<std::string> binary_advice(const BinaryReport& r, const std::string& package) {
  if (r.status == BinaryStatus::kMissing)
    return {"not on this machine: 'swprof archive RECORDING' where it was recorded keeps the binaries for reports "
            "elsewhere; or report there, or copy the file to this path"};
  if (r.status == BinaryStatus::kChanged)
    return {"rebuilt or updated since the recording: 'swprof archive RECORDING' where it was recorded, before its "
            "binaries change, keeps them for reports elsewhere; or report there, or restore that build"};
  std::vector<std::string> out;
  if (r.go_functions) return {};  // names, lines and stack heights from the pclntab: nothing to install
  if (r.dwarf_file.empty()) {
    if (package == "libc6") out.push_back("names and lines: apt install libc6-dbg");
    else if (!package.empty())
      out.push_back("names and lines: apt install " + package +
                    "-dbgsym (from the debian-debug archive), or a debuginfod server (--debuginfod)");
    else if (!r.has_full_names())
      out.push_back("names: build with -g, or keep .symtab (do not strip; or objcopy --only-keep-debug and "
                    "--add-gnu-debuglink)");
    else out.push_back("source lines and inline frames: build with -g");
  }
  if (r.lacks_cfi() && r.frame_pointer_share() < 0.5)
    out.push_back(package.empty() ? "code without CFI or frame pointers is unwound by analysis: build with "
                                    "-fasynchronous-unwind-tables or -fno-omit-frame-pointer"
                                  : "code without CFI or frame pointers is unwound by analysis");
  return out;
}

}  // namespace swprof
