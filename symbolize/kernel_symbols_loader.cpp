#include "symbolize/kernel_symbols_loader.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/regular_file.h"

namespace swprof {
namespace {

constexpr char kShownAsAddresses[] = "kernel frames are shown as addresses";
// /proc/kallsyms tells no size: room is made for a kernel's usual table.
constexpr uint64_t kTypicalKallsymsBytes = uint64_t{6} << 20;

std::string too_large() { return "larger than " + std::to_string(kMaxKallsymsBytes >> 20) + " MiB"; }

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

// Reads the lines of `file` a piece at a time into `parser`, at most
// kMaxKallsymsBytes; the reason it stopped short on failure.
std::optional<std::string> read_lines_into(RegularFile& file, KernelSymbolsParser& parser) {
  constexpr size_t kPiece = size_t{1} << 20;
  std::string piece;
  uint64_t total = 0;
  for (;;) {
    const size_t kept = piece.size();  // a line cut at the end of the last read
    piece.resize(kept + kPiece);
    const ssize_t n = ::read(file.fd.get(), piece.data() + kept, kPiece);
    if (n < 0 && errno == EINTR) {
      piece.resize(kept);
      continue;
    }
    if (n < 0) return std::string(std::strerror(errno));
    total += static_cast<uint64_t>(n);
    if (total > kMaxKallsymsBytes) return too_large();
    piece.resize(kept + static_cast<size_t>(n));
    if (n == 0) break;
    const size_t whole = piece.rfind('\n') + 1;  // 0 when no line ends in it yet
    parser.add(std::string_view(piece).substr(0, whole));
    piece.erase(0, whole);
  }
  parser.add(piece);
  return std::nullopt;
}

// The kernel symbols in kallsyms file `path`, watching for `watch` (the
// kernel's own symbol whose address tells the boot; empty: none).
FileResult<ReadSymbols> read_kallsyms(const std::string& path, const std::string& watch) {
  auto file = open_regular_file(path);
  if (!file) return std::move(file).failure_as<ReadSymbols>();
  if (file.value->size > kMaxKallsymsBytes) {
    FileResult<ReadSymbols> r;
    r.reason = too_large();
    return r;
  }
  KernelSymbolsParser parser(file.value->size ? file.value->size : kTypicalKallsymsBytes);
  parser.watch(watch);
  FileResult<ReadSymbols> r;
  if (auto failed = read_lines_into(*file.value, parser)) {
    r.reason = *failed;
    return r;
  }
  r.value = ReadSymbols{parser.finish(), parser.watched_address()};
  return r;
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
  auto read = read_kallsyms(path, kernel.text_symbol);
  KernelSymbolsLoad out;
  out.read_kallsyms = true;
  if (!read) {
    out.warning = unreadable_warning(path, read.reason);
    return out;
  }
  out.symbols = std::move(read.value->symbols);
  out.warning = empty_table_warning(path, out.symbols);
  if (!out.symbols.available() || kernel.text_symbol.empty() || kernel.text_address == 0) return out;
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
      return {std::move(*symbols), {}, false};
  }
  const std::optional<BuildId> running = running_kernel_build_id(places.notes_path);
  if (running && *running == kernel.build_id) return load_running_kallsyms(kernel, places.kallsyms_path);
  KernelSymbolsLoad out;
  out.warning = no_symbols_warning(kernel, running, why_not);
  return out;
}

}  // namespace swprof
