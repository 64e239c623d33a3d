#pragma once
// `swprof archive`: copies the binaries a recording mapped, and their
// separate debuginfo, into the recording's companion archive
// (recording/binary_archive.h), so that a report on another machine, or
// after a binary was deleted or rebuilt, still unwinds and names its frames.
//
// Which binaries: every file the recorded processes mapped executable (the
// code samples can be in), each build-id once. A file is copied only when
// it is a regular file whose build-id is the one the recording holds for
// the mapping; a file missing or changed since is listed, not copied. A
// mapping the recording gives no build-id (a perf.data holds build-ids only
// for the files samples landed in) is copied when the file is still the one
// mapped: the same device and inode as the mapping record; it is archived
// under its own build-id and found by its path. Files
// the recording embeds already (processes in other mount namespaces) and
// the vDSO are left out.

#include <cstdint>
#include <string>
#include <vector>

#include "symbolize/symbolizer.h"

namespace swprof {

struct ArchiveOptions {
  std::string output;         // empty: default_archive_path(recording)
  SymbolizerOptions symbols;  // where separate debuginfo is looked for
};

struct ArchivedFile {
  std::string path;
  std::string build_id;  // hex
  bool debuginfo = false;
  uint64_t bytes = 0;         // the file's
  uint64_t stored_bytes = 0;  // compressed, in the archive
};

struct ArchiveResult {
  std::string output;
  std::vector<ArchivedFile> stored;
  std::vector<std::string> missing;           // "PATH: why"
  std::vector<std::string> changed;           // paths whose build-id on disk is another
  std::vector<std::string> without_build_id;  // no build-id recorded, and no device and inode to check
  std::vector<std::string> not_the_mapped_file;  // no build-id recorded, and another device or inode
  uint64_t archive_bytes = 0;
};

// Reads `recording`'s mappings and writes the archive. Throws Error when
// the recording cannot be read or the archive cannot be written.
ArchiveResult write_archive(const std::string& recording, const ArchiveOptions& options);

}  // namespace swprof
