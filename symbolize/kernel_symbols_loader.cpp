#include "symbolize/kernel_symbols_loader.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "common/regular_file.h"

namespace swprof {
namespace {

constexpr char kShownAsAddresses[] = "kernel frames are shown as addresses";
std::string hex_address(uint64_t addr) {
  char text[24];
  std::snprintf(text, sizeof text, "%#llx", static_cast<unsigned long long>(addr));
  return text;
}

// Kernel symbols read from a kallsyms file, and the address of the symbol
// watched (KernelSymbolsParser::watch) among them.
struct ReadSymbols {
  KernelSymbols symbols;
  std::optional<uint64_t> watched;
};

// The kernel symbols in kallsyms file `path`, watching for `watch` (the
// kernel's own symbol whose address tells the boot; empty: none).
FileResult<ReadSymbols> read_kallsyms(const std::string& path, const std::string& watch) {
  auto text = read_regular_file_text(path, kMaxKallsymsBytes);
  if (!text) return std::move(text).failure_as<ReadSymbols>();
  FileResult<ReadSymbols> r;
  r.value.emplace();
  r.value->symbols = KernelSymbols::index(std::move(text.value->owner), text.value->text, watch, r.value->watched);
  return r;
}

// The address the kallsyms at `path` gives the kernel's own symbol `name`,
// read from its first lines only: the kernel lists _text among its first
// few, and formatting the whole file costs it tens of ms. nullopt when
// `name` is not within the first kHeadBytes.
std::optional<uint64_t> head_address(const std::string& path, const std::string& name) {
  constexpr size_t kHeadBytes = size_t{1} << 20, kChunk = 16384;
  auto file = open_regular_file(path);
  if (!file) return std::nullopt;
  KernelSymbolsParser parser(kHeadBytes);
  parser.watch(name);
  std::string pending;  // read, not yet a whole line
  for (size_t total = 0; total < kHeadBytes && !parser.watched_address();) {
    const size_t at = pending.size();
    pending.resize(at + kChunk);
    const ssize_t got = ::read(file.value->fd.get(), pending.data() + at, kChunk);
    if (got < 0 && errno == EINTR) {
      pending.resize(at);
      continue;
    }
    if (got <= 0) break;
    pending.resize(at + static_cast<size_t>(got));
    total += static_cast<size_t>(got);
    const size_t lines = pending.rfind('\n') + 1;  // 0 when there is no whole line yet
    parser.add(std::string_view(pending).substr(0, lines));
    pending.erase(0, lines);
  }
  return parser.watched_address();
}

// The running kernel asked per address, when `path` is its kallsyms.
std::optional<LiveKernelSymbols> live_symbols(const std::string& path) {
  if (path != kRunningKallsyms) return std::nullopt;
  return LiveKernelSymbols::open();
}

std::string unreadable_warning(const std::string& path, const std::string& reason) {
  return "cannot read " + path + " (" + reason + "): " + kShownAsAddresses;
}

// The warning to give when `symbols`, read from `path`, name nothing.
std::optional<std::string> empty_table_warning(const std::string& path, const KernelSymbols& symbols) {
  if (symbols.hidden())
    return path + " hides kernel addresses from this user (kernel.kptr_restrict): " + kShownAsAddresses +
           "; run as root to name them";
  if (!symbols.available()) return path + " has no kernel symbols: " + kShownAsAddresses;
  return std::nullopt;
}

// Why kallsyms whose `symbol` is at `at` is not of the recorded boot;
// nullopt when it is.
std::optional<std::string> disagreement(const std::optional<uint64_t>& at, const RecordedKernel& kernel) {
  if (kernel.text_symbol.empty()) return "the recording has no kernel mapping to check it against";
  if (!at) return "it has no " + kernel.text_symbol;
  if (*at == kernel.text_address) return std::nullopt;
  return "it is of another boot: its " + kernel.text_symbol + " is at " + hex_address(*at) + ", the recording's at " +
         hex_address(kernel.text_address);
}

std::vector<KernelSymbols::ModuleRange> module_ranges(const RecordedKernel& kernel) {
  std::vector<KernelSymbols::ModuleRange> out;
  for (const RecordedKernelModule& m : kernel.modules) out.push_back({m.name, m.start, m.end});
  return out;
}

// perf's cached copy of the recorded kernel's kallsyms at `path`, when it
// agrees with the recording; else nullopt and why not.
std::optional<KernelSymbols> load_cached(const RecordedKernel& kernel, const std::string& path, std::string& why_not) {
  auto read = read_kallsyms(path, kernel.text_symbol);
  if (!read) {
    why_not = read.missing() ? "has no copy of its kallsyms (" + path + ")"
                             : "copy " + path + " cannot be read (" + read.reason + ")";
    return std::nullopt;
  }
  if (auto why = disagreement(read.value->watched, kernel)) {
    why_not = "copy " + path + " is not used (" + *why + ")";
    return std::nullopt;
  }
  if (!read.value->symbols.available()) {
    why_not = "copy " + path + " has no kernel symbols";
    return std::nullopt;
  }
  read.value->symbols.keep_modules_within(module_ranges(kernel));  // a module elsewhere then is another layout's
  return std::move(read.value->symbols);
}

// The running kernel is the recorded one: its kallsyms, unless it is of
// another boot than the recording (a reboot moves a KASLR kernel).
KernelSymbolsLoad load_running_kallsyms(const RecordedKernel& kernel, const std::string& path) {
  const bool checkable = !kernel.text_symbol.empty() && kernel.text_address != 0;
  if (std::optional<LiveKernelSymbols> live = live_symbols(path)) {
    // Asked only when the boot is the recording's; otherwise the whole file
    // is read below, which says why not.
    if (!checkable || !disagreement(head_address(path, kernel.text_symbol), kernel)) {
      KernelSymbolsLoad out;
      out.live = std::move(live);
      out.read_kallsyms = true;
      return out;
    }
  }
  auto read = read_kallsyms(path, kernel.text_symbol);
  KernelSymbolsLoad out;
  out.read_kallsyms = true;
  if (!read) {
    out.warning = unreadable_warning(path, read.reason);
    return out;
  }
  out.symbols = std::move(read.value->symbols);
  out.warning = empty_table_warning(path, out.symbols);
  if (!out.symbols.available() || !checkable) return out;
  if (auto why = disagreement(read.value->watched, kernel)) {
    out.symbols = KernelSymbols();
    out.warning = path + " is not the recorded kernel's (" + *why + "): " + kShownAsAddresses;
  }
  return out;
}

std::string no_symbols_warning(const RecordedKernel& kernel, const std::optional<BuildId>& running,
                               const std::string& why_not_cached) {
  const std::string id = to_hex(kernel.build_id);
  return "the recording's kernel (build-id " + id + ") is " +
         (running ? "not the running one" : "not known to be the running one (its build-id is unreadable here)") +
         ", and perf's build-id cache " + why_not_cached + ": " + kShownAsAddresses +
         "; report on the machine that recorded it, or copy that machine's ~/.debug/[kernel.kallsyms]/" + id +
         "/ into ~/.debug/[kernel.kallsyms]/ here";
}

}  // namespace

KernelSymbolsLoad load_kallsyms(const std::string& path) {
  KernelSymbolsLoad out;
  out.read_kallsyms = true;
  out.live = live_symbols(path);
  if (out.live) return out;
  auto read = read_kallsyms(path, {});
  if (!read) {
    out.warning = unreadable_warning(path, read.reason);
    return out;
  }
  out.symbols = std::move(read.value->symbols);
  out.warning = empty_table_warning(path, out.symbols);
  return out;
}

KernelSymbolsLoad load_recorded_kernel_symbols(const RecordedKernel& kernel, const KernelSymbolsPlaces& places) {
  if (kernel.build_id.empty()) return load_kallsyms(places.kallsyms_path);
  std::string why_not = "is nowhere ($HOME and $PERF_BUILDID_DIR are unset)";
  if (!places.perf_buildid_dir.empty()) {
    const std::string cached = perf_kallsyms_cache_path(places.perf_buildid_dir, kernel.build_id);
    if (std::optional<KernelSymbols> symbols = load_cached(kernel, cached, why_not))
      return {std::move(*symbols), std::nullopt, std::nullopt, false};
  }
  const std::optional<BuildId> running = running_kernel_build_id(places.notes_path);
  if (running && *running == kernel.build_id) return load_running_kallsyms(kernel, places.kallsyms_path);
  KernelSymbolsLoad out;
  out.warning = no_symbols_warning(kernel, running, why_not);
  return out;
}

}  // namespace swprof
