#pragma once
// Turns unwound frames into what people read: function names (demangled),
// modules, source file:line and inline frames, with elfutils (libdwfl/libdw).
// Debug information is looked up per binary: the binary itself, then separate
// debuginfo by build-id, by .gnu_debuglink, and minidebuginfo (.gnu_debugdata).
// JIT code is named from /tmp/perf-PID.map, kernel code from the recording's
// kernel symbols, perf's build-id cache or /proc/kallsyms.
// Every distinct address is symbolized once; results are cached per
// (binary, address), per (pid, address) for JIT code, per kernel address.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binary/build_id_cache.h"
#include "recording/binary_archive.h"
#include "recording/recorded_kernel.h"
#include "unwind/address_space.h"
#include "unwind/frame.h"

namespace swprof {

// One frame as shown in reports. An address inside inlined code gives several
// of these: the inlined functions, innermost first, then the real function.
struct SourceFrame {
  std::string function;        // demangled name (unless demangling is off); empty when unknown
  std::string module;          // basename of the mapped file, "[vdso]", "[jit]", "[anon]", "[unknown]",
                               // "[kernel]" or a kernel module as "[ext4]"
  std::string file;            // source file of the address (full path as DWARF has it); empty without lines
  uint32_t line = 0;           // source line of the address (for an outer frame of an inline chain: the call site)
  uint32_t decl_line = 0;      // line where the function is declared, 0 when unknown
  uint64_t module_offset = 0;  // file offset of the address in its module (how unknown frames are named);
                               // the address itself for JIT, anonymous and kernel code
  uint64_t function_offset = 0;  // address - start of the function (real frame only, 0 when unknown)
  // An unnamed function whose start is known (discovered in stripped code):
  // the file offset of that start, which names it; function_offset is from it.
  std::optional<uint64_t> start_offset;
  bool inlined = false;        // this function was inlined into the next frame's function
};

struct SymbolizedAddress {
  std::vector<SourceFrame> frames;  // innermost first; never empty; only the last has inlined == false
};

struct SymbolizerOptions {
  bool demangle = true;
  bool inline_frames = true;
  // Source file:line and inline frames, from DWARF. False: names come from
  // the symbol tables only and no binary's DWARF is ever opened (what an
  // output that shows neither, e.g. a text report with --no-inline, needs).
  bool lines = true;
  // Ask debuginfod servers (DEBUGINFOD_URLS) for debuginfo missing on disk.
  // Off: libdw never loads its debuginfod client.
  bool debuginfod = false;
  // Roots searched for separate debuginfo: <root>/.build-id/xx/yyyy.debug,
  // and for .gnu_debuglink names: beside the binary, in its .debug/ folder and
  // under <root>/<binary's folder>/.
  std::vector<std::string> debug_roots = {"/usr/lib/debug"};
  // Folder holding JIT maps (perf-PID.map). As perf does, a map is read only
  // when it is a regular file owned by this user or root (/tmp is writable by
  // anyone); otherwise it is skipped with a warning saying why.
  std::string perf_map_dir = "/tmp";
  // Kernel symbols ("ADDRESS TYPE NAME [MODULE]" lines), read on first use
  // when the recording kept none (use_recorded_kernel_symbols); for a
  // perf.data recording, only when the running kernel is the recorded one
  // and perf's build-id cache has no copy of its symbols (use_recorded_kernel).
  std::string kallsyms_path = "/proc/kallsyms";
  // perf's build-id cache, where `perf record` copies the kernel's kallsyms;
  // empty: $PERF_BUILDID_DIR, else $HOME/.debug, as perf has it.
  std::string perf_buildid_dir;
  // The running kernel's notes, which hold its build-id.
  std::string kernel_notes_path = "/sys/kernel/notes";
  // The archive to use (`--archive`); empty: REC.archive when it exists.
  std::string archive_path;
  // The archive opened for the recording at hand (find_archive): separate
  // debuginfo by build-id, also for binaries found on disk. May be null.
  std::shared_ptr<const BinaryArchive> archive;
  // The build-id cache on disk (binary/build_id_cache.h): separate
  // debuginfo by build-id when none is on disk, before the archive; its
  // binaries come through the unwinder's BinaryCache. May be null.
  std::shared_ptr<BuildIdCache> build_id_cache;
  // Called on a prefetch thread before it reads a binary (prefetch): lets
  // a test hold it there, to see that the pass goes on meanwhile.
  std::function<void()> before_prefetch;
};

class Symbolizer {
 public:
  explicit Symbolizer(SymbolizerOptions options = {});
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // Symbolizes one frame of a sample of process `pid` whose address space was
  // `maps` (a pc in none of them, in the maps execve replaced, when it
  // holds it: a sample inside execve). The reference stays valid for the
  // Symbolizer's lifetime. Never fails: unknown addresses give one frame with
  // an empty function.
  const SymbolizedAddress& symbolize(const ProcessMaps& maps, uint32_t pid, const Frame& frame);

  // A frame a later symbolize() will ask for (a look ahead): when no
  // lookup has reached its binary yet, starts reading the binary's symbols
  // and DWARF (DebugInfo::prepare) on a thread of its own, so that several
  // binaries' debuginfo is read at once and alongside the caller's work;
  // lookups in that binary wait for it. At most kMaxPrefetching at a time;
  // none with debuginfod. Results and warnings are the same either way.
  void prefetch(const ProcessMaps& maps, const Frame& frame);
  static constexpr size_t kMaxPrefetching = 4;
  // Whether symbolize() would wait for `frame`'s binary, still being read
  // on its prefetch thread: the caller may go on and ask later. The binary
  // counts as met now (its warnings keep their place in the order lookups
  // meet binaries).
  bool would_wait(const ProcessMaps& maps, const Frame& frame);
  // Whether any binary is still being read on a prefetch thread.
  bool prefetching() const;

  // Symbolizes a kernel return address (from a sample's kernel call chain)
  // with kallsyms. Unknown or hidden (non-root) addresses give one frame with
  // an empty function in module "[kernel]".
  const SymbolizedAddress& symbolize_kernel(uint64_t addr);

  // Lines of process `pid`'s perf map kept in the recording (what the map
  // held at record time; the file may be gone, or be another process's by
  // now): used instead of <perf_map_dir>/perf-PID.map, the lines appended
  // in order.
  void add_recorded_perf_map(uint32_t pid, std::string_view lines);
  // The same for the lines the recording kept when it ended (known before
  // the samples are read): they apply after every line added otherwise,
  // since the map's later lines replace the earlier ones they overlap.
  void add_final_perf_map(uint32_t pid, std::string_view lines);
  // The kernel symbols the recording kept (kallsyms lines for the
  // addresses its samples hit): used instead of kallsyms_path.
  void use_recorded_kernel_symbols(std::string_view lines);
  // The kernel a perf.data recording was made on (its build-id, text and
  // module mappings): its symbols come from perf's build-id cache, else
  // from kallsyms_path when the running kernel is that one, else nowhere,
  // with a warning (symbolize/kernel_symbols_loader.h). Takes effect when
  // called before the first kernel frame or prepare_kernel_symbols.
  void use_recorded_kernel(const RecordedKernel& kernel);

  // A sample has kernel addresses: when they are to be named from
  // kallsyms_path (the recording kept no kernel symbols), starts reading it
  // on a thread of its own, so that the caller goes on (with the sample's
  // user frames) meanwhile; symbolize_kernel waits for it. Without this
  // call, symbolize_kernel reads it itself.
  void prepare_kernel_symbols();
  // Whether symbolize_kernel answers without waiting: the kernel symbols
  // are not being read on their thread, or that read is done.
  bool kernel_symbols_ready() const;
  // How many times the symbols of kallsyms_path were loaded (0 or 1), by
  // reading it or, for the running kernel's, by asking the kernel
  // (LiveKernelSymbols): reports whose kernel
  // frames the recording names, or that have none, never read it. (For a
  // recorded kernel, counted once its symbols are used: whether it is read
  // depends on perf's build-id cache.)
  size_t kallsyms_reads() const;

  // Unreadable or corrupt debuginfo and similar, once per binary.
  std::vector<std::string> warnings() const;

  // Cache sizes: distinct addresses symbolized so far.
  size_t cached_addresses() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// "name"; for an unnamed function whose start is known, "[unknown] module+0xSTART"
// (the file offset of its start, so every address in it has one name);
// else "[unknown] module+0xOFFSET" (the address's own file offset).
std::string display_name(const SourceFrame& frame);

}  // namespace swprof
