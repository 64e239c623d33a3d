#pragma once
// `swprof info`: what a recording holds, read in one streaming pass.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/format.h"
#include "recording/record_source.h"
#include "recording/recording_bytes.h"
#include "symbolize/binary_report.h"
#include "symbolize/debian_packages.h"
#include "unwind/recording_unwinder.h"

namespace swprof {

struct ThreadInfo {
  uint32_t pid = 0;
  std::string comm;
  uint64_t samples = 0;
};

struct BinaryInfo {
  std::string build_id;  // hex, empty when unknown
  uint64_t mappings = 0;
  std::vector<uint8_t> build_id_bytes;
  bool executable = false;  // mapped executable at least once: code that samples can be in
  // A binary of a process in another mount namespace (a container): where
  // the recorder found it ("" when it could not), in which namespace, and
  // the bytes of the copy embedded in the recording (0: none).
  bool in_other_namespace = false;
  std::string found_at;
  std::string mount_ns;
  uint64_t embedded_bytes = 0;
  // When InfoOptions::inspect_binaries and executable: what it offers the
  // unwinder and the symbolizer, the Debian package that installed it ("":
  // none), and what to do about what it lacks.
  std::optional<BinaryReport> report;
  std::string package;
  std::vector<std::string> advice;
};

struct RecordingInfo {
  RecordingHeader header;
  ReadStatus status;
  SourceFormat format = SourceFormat::kRecording;
  std::vector<std::string> events;  // the file's events, the reported one first
  std::map<std::string, uint64_t> record_counts;  // by record type name
  uint64_t samples = 0;
  uint64_t kernel_mode_samples = 0;
  uint64_t off_cpu_samples = 0;   // taken at a switch-out (--off-cpu, --wall)
  uint64_t on_cpu_samples() const { return samples - off_cpu_samples; }
  uint64_t switch_outs = 0;       // switch records of threads going off the CPU
  uint64_t off_cpu_repeats = 0;   // switch-outs whose stack repeats a written off-CPU sample
  uint64_t truncated = 0;          // on-CPU samples whose stack copy hit --stack-size
  uint64_t off_cpu_truncated = 0;  // off-CPU samples whose copy hit --off-cpu-stack-size
  uint64_t lost = 0;
  uint64_t throttles = 0;
  uint64_t first_time = 0;
  uint64_t last_time = 0;
  std::map<uint32_t, ThreadInfo> threads;           // by tid
  std::map<std::string, BinaryInfo> binaries;       // by path
  std::vector<uint32_t> stack_sizes;                // dyn_size of every sample
  std::string end_json;                             // the end record, if finalized
  // Kept for reports elsewhere: the kernel symbols the samples hit (bytes,
  // symbols) and the JIT perf maps (bytes, by pid).
  uint64_t kernel_symbols_bytes = 0;
  uint64_t kernel_symbols = 0;
  std::map<uint32_t, uint64_t> perf_map_bytes;
  // The copies of binaries embedded in the recording (found only inside a
  // process's mount namespace), which inspect_binaries reads before the file system.
  std::shared_ptr<BinaryCache> embedded = std::make_shared<BinaryCache>();

  uint32_t stack_percentile(double p) const;        // p in [0, 100]
  // More than 1 % of the samples had their stack copy cut at --stack-size.
  bool stacks_cut_short() const;
  // Cut short: a larger size (the current one at kMaxStackSize); else the
  // p99 of what was copied, with headroom.
  uint32_t suggested_stack_size() const;
};

RecordingInfo collect_info(RecordSource& reader);

// How well the recording's samples unwind, and the unwinder's warnings
// (missing or changed binaries).
struct UnwindQuality {
  UnwindStats stats;
  UnwinderChoice unwinder = UnwinderChoice::kChain;
  std::vector<std::string> warnings;
  size_t archive_supplied = 0;  // binaries the archive supplied (UnwindOptions::archive)
  size_t build_id_cache_supplied = 0;  // ... and the build-id cache (UnwindOptions::build_id_cache)
};
UnwindQuality measure_unwinding(const std::string& recording, const UnwindOptions& options);

struct InfoOptions {
  UnwindOptions unwind;
  bool unwind_quality = true;  // also unwind every sample (in the same pass)
  bool inspect_binaries = false;  // a BinaryReport for every executable binary
  SymbolizerOptions symbols;      // where the reports look for debuginfo
  std::string dpkg_info_dir = kDpkgInfoDir;
};

// Fills report, package and advice of every executable binary of `info`.
void inspect_binaries(RecordingInfo& info, const InfoOptions& options);

struct InfoResult {
  RecordingInfo recording;
  std::optional<UnwindQuality> unwinding;  // when asked for and there are samples
  // The archive found for the recording (find_archive), and how many
  // binaries it holds; how many it supplied is unwinding->archive_supplied.
  std::string archive_path;
  size_t archive_binaries = 0;
  size_t archive_debuginfo = 0;
};
// `swprof info`: collect_info, and measure_unwinding when asked, in one pass over the file.
InfoResult run_info(const std::string& recording, const InfoOptions& options);
// The same over a file opened already (RecordingBytes::open).
InfoResult run_info(std::shared_ptr<const RecordingBytes> file, const InfoOptions& options);

}  // namespace swprof
