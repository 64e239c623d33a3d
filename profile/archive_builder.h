#pragma once
// `swprof archive`: copies the binaries a recording mapped, and their
// separate debuginfo, into the recording's companion archive
// (recording/binary_archive.h), so that a report on another machine, or
// after a binary was deleted or rebuilt, still unwinds and names its frames.
//
// Which binaries: every file the recorded processes mapped executable (the
// code samples can be in), each build-id once. A file is copied only when
// it is a regular file whose build-id is the one the recording holds for
// the mapping; a file missing or changed since is taken from the build-id
// cache when it keeps that build-id (this user's recordings only), else
// listed, not copied. A
// mapping the recording gives no build-id (a perf.data holds build-ids only
// for the files samples landed in) is copied when the recording is this
// user's own and the file is still the one mapped: the same device and
// inode as the mapping record (which anyone can learn with stat, so another
// user's recording could name any file by them); it is archived under its
// own build-id and found by its path. Files the recording embeds already
// (processes in other mount namespaces) and the vDSO are left out.
//
// A recording owned by another user is that user's request: nothing is
// copied that its owner could not have read (common/readable_by.h), so
// that root's `swprof archive` of it copies no file of root's into an
// archive beside it.
//
// The archive replaced, when there is one, is not lost: each of its entries
// this run does not store again (its file gone, or rebuilt since) is kept,
// after the new ones. A file over the archive's limits is left out, named.

#include <cstdint>
#include <string>
#include <vector>

#include "symbolize/symbolizer.h"

namespace swprof {

struct ArchiveOptions {
  std::string output;         // empty: default_archive_path(recording)
  // Where separate debuginfo is looked for; with a build-id cache, a binary
  // missing or changed on disk is archived from there.
  SymbolizerOptions symbols;
};

struct ArchivedFile {
  std::string path;
  std::string build_id;  // hex
  bool debuginfo = false;
  uint64_t bytes = 0;         // the file's
  uint64_t stored_bytes = 0;  // compressed, in the archive
  bool from_cache = false;    // read from the build-id cache: its file is missing or changed
};

struct ArchiveResult {
  std::string output;
  std::vector<ArchivedFile> stored;
  std::vector<ArchivedFile> kept;             // from the archive replaced: not stored again by this run
  std::vector<std::string> missing;           // "PATH: why"
  std::vector<std::string> changed;           // paths whose build-id on disk is another
  std::vector<std::string> without_build_id;  // no build-id recorded, and no device and inode to check
  std::vector<std::string> not_the_mapped_file;  // no build-id recorded, and another device or inode
  std::vector<std::string> refused;           // "PATH: why": another user's recording may not have it copied
  std::vector<std::string> skipped;           // "PATH: why": over the archive's limits
  std::string previous_problem;               // why the archive replaced could not be read (nothing kept)
  uint64_t archive_bytes = 0;
};

// Reads `recording`'s mappings and writes the archive. Throws Error when
// the recording cannot be read or the archive cannot be written (an
// archive already at the output is then left as it was).
ArchiveResult write_archive(const std::string& recording, const ArchiveOptions& options);

}  // namespace swprof
