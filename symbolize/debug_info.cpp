#include "symbolize/debug_info.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <lzma.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <tuple>
#include <utility>

#include "binary/go_pclntab.h"
#include "binary/startup_functions.h"
#include "common/byte_reader.h"
#include "common/elf_handle.h"
#include "common/error.h"
#include "common/hex.h"
#include "common/regular_file.h"
#include "recording/binary_archive.h"
#include "symbolize/demangle.h"
#include "symbolize/dwarf_image.h"

namespace swprof {
namespace {

// A root no file can be created under (see the constructor).
constexpr char kNoDebuginfoRoot[] = "/proc/swprof-no-debuginfo";
// A minidebuginfo (.gnu_debugdata: symbols only) is a few hundred KB.
constexpr uint64_t kMaxMinidebuginfoBytes = uint64_t{64} << 20;

bool is_function_scope(int tag) {
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_entry_point;
}

std::string dirname_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, std::max<size_t>(slash, 1));
}

// Appends `bytes` to the file `fd`; false when they cannot all be written.
bool write_all(int fd, Bytes bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// A descriptor of an anonymous in-memory file holding what `fill` writes
// into it, for libdwfl, which reads ELF files from descriptors; invalid
// when it cannot be made or `fill` fails.
UniqueFd memory_file(const char* name, const std::function<bool(int fd)>& fill) {
  UniqueFd fd(memfd_create(name, MFD_CLOEXEC));
  if (!fd.valid() || !fill(fd.get()) || lseek(fd.get(), 0, SEEK_SET) != 0) return UniqueFd();
  return fd;
}

UniqueFd memory_file(const char* name, Bytes bytes) {
  return memory_file(name, [bytes](int fd) { return write_all(fd, bytes); });
}

// A whole file mapped for reading; empty bytes when it is empty or cannot
// be mapped.
struct MappedFile {
  std::unique_ptr<void, MappingDeleter> mapping;
  Bytes bytes;
};
MappedFile map_whole_file(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0 || st.st_size <= 0) return {};
  const auto size = static_cast<size_t>(st.st_size);
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return {};
  return {std::unique_ptr<void, MappingDeleter>(p, MappingDeleter{size}), Bytes(static_cast<const uint8_t*>(p), size)};
}

// The size `xz` inflates to, when it is at most `limit` bytes and inflates
// at all (with a decoder of at most kMaxXzDecoderBytes); nullopt otherwise.
// Inflated into `into` when it is given (of that size, measured before),
// else into a small buffer used again and again: nothing is kept.
constexpr uint64_t kMaxXzDecoderBytes = uint64_t{64} << 20;
std::optional<uint64_t> xz_inflate(Bytes xz, uint64_t limit, std::span<uint8_t> into = {}) {
  lzma_stream stream = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&stream, kMaxXzDecoderBytes, LZMA_CONCATENATED) != LZMA_OK) return std::nullopt;
  const std::unique_ptr<lzma_stream, decltype(&lzma_end)> owner(&stream, &lzma_end);
  std::vector<uint8_t> scratch(into.empty() ? 64 << 10 : 0);
  stream.next_in = xz.data();
  stream.avail_in = xz.size();
  if (!into.empty()) {
    stream.next_out = into.data();
    stream.avail_out = into.size();
  }
  for (;;) {
    if (into.empty()) {
      stream.next_out = scratch.data();
      stream.avail_out = scratch.size();
    }
    const lzma_ret ret = lzma_code(&stream, LZMA_FINISH);
    if (stream.total_out > limit) return std::nullopt;
    if (ret == LZMA_STREAM_END) return stream.total_out;
    if (ret != LZMA_OK) return std::nullopt;  // damaged, or more than `into` holds (LZMA_BUF_ERROR)
  }
}

// Why a minidebuginfo (.gnu_debugdata: an xz stream of an ELF file) is
// not to be read by libdwfl, which inflates it whole and then, through
// libelf, its compressed symbol tables: empty when it may be.
std::string minidebuginfo_problem(Bytes xz) {
  const std::optional<uint64_t> size = xz_inflate(xz, kMaxMinidebuginfoBytes);
  std::vector<uint8_t> inner(size.value_or(0));
  if (!size || xz_inflate(xz, *size, inner) != size)
    return "it inflates to more than " + std::to_string(kMaxMinidebuginfoBytes >> 20) + " MiB, or is damaged";
  const ElfPtr elf(elf_memory(reinterpret_cast<char*>(inner.data()), inner.size()));
  const std::vector<OversizedSection> oversized = oversized_compressed_sections(elf.get());
  if (oversized.empty()) return "";
  const OversizedSection& first = oversized.front();
  return "its compressed " + (first.name.empty() ? "section " + std::to_string(first.index) : first.name) + " " +
         first.problem;
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

constexpr int kMaxDieDepth = 64;  // deeper nesting is damage, not code

bool has_ranges(Dwarf_Die* die) { return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges); }

// Adds the address ranges of the functions under `parent`, looking inside
// namespaces, classes and functions (a lambda's operator() or a local
// class's methods are nested in the function that defines them).
void index_functions(Dwarf_Die* parent, std::vector<DwarfFunctionRange>& out, int depth) {
  Dwarf_Die child;
  if (depth > kMaxDieDepth || dwarf_child(parent, &child) != 0) return;
  do {
    const int tag = dwarf_tag(&child);
    if (tag == DW_TAG_subprogram) {
      Dwarf_Addr base = 0, low = 0, high = 0;
      for (ptrdiff_t at = 0; (at = dwarf_ranges(&child, at, &base, &low, &high)) > 0;)
        if (low < high) out.push_back({low, high, child});
    }
    if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block || tag == DW_TAG_namespace ||
        tag == DW_TAG_class_type || tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
        tag == DW_TAG_module)
      index_functions(&child, out, depth + 1);
  } while (dwarf_siblingof(&child, &child) == 0);
}

// Appends to `chain` the scopes under `parent` that hold pc, outermost
// first (inlined instances, lexical blocks). A block without addresses of
// its own is looked into, as GCC may wrap inlined code in one.
bool find_scopes(Dwarf_Die* parent, Dwarf_Addr pc, std::vector<Dwarf_Die>& chain, int depth) {
  Dwarf_Die child;
  if (depth > kMaxDieDepth || dwarf_child(parent, &child) != 0) return false;
  do {
    const int tag = dwarf_tag(&child);
    if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block && tag != DW_TAG_try_block &&
        tag != DW_TAG_catch_block)
      continue;
    if (has_ranges(&child)) {
      if (dwarf_haspc(&child, pc) != 1) continue;
      chain.push_back(child);
      find_scopes(&chain.back(), pc, chain, depth + 1);
      return true;
    }
    if (find_scopes(&child, pc, chain, depth + 1)) return true;
  } while (dwarf_siblingof(&child, &child) == 0);
  return false;
}

}  // namespace

DebugInfo::DebugInfo(std::shared_ptr<const ElfBinary> binary, const SymbolizerOptions& options)
    : binary_(std::move(binary)), options_(options) {
  const std::string& path = binary_->path();
  // An in-memory image (the vDSO, a file embedded in the recording) is named
  // from ElfBinary's symbols only; an archived copy is read like its file.
  const bool archived = is_archived_image_name(path);
  if (!archived && (path.empty() || path[0] != '/')) return;

  // The places on disk are searched here (debuginfo_on_disk,
  // supplementary_on_disk), never by libdwfl, which opens what it finds
  // without a look (a FIFO would block it) and decompresses gzip, xz or zstd
  // files it finds there without a bound. Its own search (before it asks
  // debuginfod, with --debuginfod) is given one root, where nothing can be
  // created.
  debuginfo_path_ = kNoDebuginfoRoot;
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
  // libdwfl would open the path itself, and block on a FIFO put there since:
  // it gets a descriptor of a regular file instead (and owns it on success).
  std::string problem;
  UniqueFd fd = binary_descriptor(problem);
  if (!fd.valid()) {
    warn("cannot read the symbols of " + path + ": " + problem);
    return;
  }
  dwfl_report_begin(dwfl_.get());
  // An ET_DYN file at base 0 relative to its p_vaddr keeps its link
  // addresses; ET_EXEC files always do.
  Dwfl_Module* mod = dwfl_report_elf(dwfl_.get(), basename_of(path).c_str(), path.c_str(), fd.get(), 0, true);
  if (mod) fd.release();
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

// A descriptor of the binary's file for libdwfl, which would open the path
// itself, and block on a FIFO put there since: a regular file, or an
// in-memory copy of an archived image. Invalid, with `problem`, when there
// is none.
UniqueFd DebugInfo::binary_descriptor(std::string& problem) {
  // libdwfl inflates a binary's minidebuginfo (an xz stream) whole, without
  // a bound on the memory it takes, and libelf a compressed section (also
  // one in the minidebuginfo) to the size it claims. Those over the bounds
  // (a minidebuginfo that inflates to more than kMaxMinidebuginfoBytes, or
  // not at all, or holds such a section; a compressed section over
  // kMaxInflation) are set aside in an in-memory copy of the file, which
  // libdwfl then reads without them.
  std::vector<size_t> set_aside;
  if (const auto mini = binary_->section(".gnu_debugdata"); mini && !mini->data.empty())
    if (const std::string why = minidebuginfo_problem(mini->data); !why.empty()) {
      warn("ignored the minidebuginfo (.gnu_debugdata) of " + binary_->path() + " (" + why +
           "): its names come from its other symbols");
      set_aside.push_back(mini->index);
    }
  for (const OversizedSection& s : oversized_sections_read(binary_->elf())) {
    warn_oversized(s, binary_->path());
    set_aside.push_back(s.index);
  }
  if (!set_aside.empty()) {
    std::vector<uint8_t> copy(binary_->file_bytes().begin(), binary_->file_bytes().end());
    for (const size_t index : set_aside)
      if (!set_aside_section(copy, binary_->elf(), index)) {
        problem = "its section " + std::to_string(index) + " cannot be set aside";
        return UniqueFd();
      }
    UniqueFd fd = memory_file("swprof-binary", Bytes(copy.data(), copy.size()));
    if (!fd.valid()) problem = errno_text(errno);
    return fd;
  }
  if (is_archived_image_name(binary_->path())) {
    UniqueFd fd = memory_file("swprof-archived-binary", binary_->file_bytes());
    if (!fd.valid()) problem = errno_text(errno);
    return fd;
  }
  // The very file the binary was read from (a copy in the build-id cache
  // is opened only through the cache's checks); its path only when there is
  // no descriptor.
  if (UniqueFd own = binary_->duplicate_descriptor(); own.valid()) return own;
  auto file = open_regular_file(binary_->path());
  if (!file) {
    problem = file.reason;
    return UniqueFd();
  }
  return std::move(file.value->fd);
}

int DebugInfo::find_debuginfo(Dwfl_Module* mod, void** userdata, const char* modname, Dwarf_Addr base,
                              const char* file_name, const char* debuglink_file, GElf_Word debuglink_crc,
                              char** debuginfo_file_name) {
  auto* self = userdata ? static_cast<DebugInfo*>(*userdata) : nullptr;
  if (!self) return -1;
  // The binary's debuginfo, rebuilt in memory, has a session of its own:
  // none for the binary's module.
  if (self->image_module_ && mod != self->image_module_) return -1;
  // Once the debuginfo is found, a later lookup is for the DWARF's
  // supplementary (dwz) file.
  const bool supplementary = self->found_separate_debuginfo_ || self->binary_->section(".debug_info");
  // For a supplementary file, debuglink_file is the name .gnu_debugaltlink
  // gives, and its build-id comes from the DWARF's file.
  AltLink link;
  if (supplementary) {
    link = self->debugaltlink().value_or(AltLink{});
    link.name = debuglink_file ? debuglink_file : "";
  }
  // Anything but a regular file where the debuginfo is looked for means no
  // separate debuginfo, with a warning.
  const std::vector<std::string> places =
      supplementary ? self->supplementary_candidates(link) : self->debuginfo_candidates(debuglink_file, file_name);
  if (!self->only_regular_files(places)) return -1;
  // A DwarfImage replaces debuginfo found by the binary's build-id, when
  // DWARF is wanted.
  const bool image = self->options_.lines && !supplementary && !self->binary_->build_id().empty();
  int fd = supplementary ? self->supplementary_on_disk(link, places, debuginfo_file_name)
                         : self->debuginfo_on_disk(debuglink_file, file_name, debuglink_crc, debuginfo_file_name);
  if (fd < 0 && !supplementary) fd = self->cached_debuginfo(debuginfo_file_name);
  bool found_by_libdwfl = false;  // then read by libdwfl as it found it
  if (fd < 0 && self->options_.debuginfod) {
    fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file, debuglink_crc,
                                      debuginfo_file_name);
    found_by_libdwfl = fd >= 0;
  }
  // The archive keeps the binary's own debuginfo, never a supplementary
  // file: that would be the wrong file, which libdwfl does not check.
  if (fd < 0 && !supplementary) fd = self->archived_debuginfo(debuginfo_file_name);
  if (fd >= 0) fd = self->within_bounds(fd, debuginfo_file_name ? *debuginfo_file_name : nullptr);
  if (fd < 0 && debuginfo_file_name && *debuginfo_file_name) {  // libdwfl would open a name left here itself
    free(*debuginfo_file_name);
    *debuginfo_file_name = nullptr;
  }
  if (fd >= 0 && image && !found_by_libdwfl) fd = self->dwarf_image_of(fd, debuginfo_file_name);
  if (fd >= 0 && !supplementary && debuginfo_file_name && *debuginfo_file_name)
    self->debuginfo_found_ = *debuginfo_file_name;
  if (fd >= 0 || self->image_module_) self->found_separate_debuginfo_ = true;
  else if (!supplementary) self->note_rejected_debuginfo(debuglink_file);
  return fd;
}

namespace {

// The .gnu_debuglink checksum (zlib's CRC-32) of the `size` bytes of `fd`;
// nullopt when they cannot be read.
std::optional<uint32_t> file_crc32(int fd, uint64_t size) {
  std::vector<uint8_t> buffer(1 << 20);
  uLong crc = crc32(0, nullptr, 0);
  for (uint64_t at = 0; at < size;) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(buffer.size(), size - at));
    const ssize_t n = ::pread(fd, buffer.data(), want, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    crc = crc32(crc, buffer.data(), static_cast<uInt>(n));
    at += static_cast<uint64_t>(n);
  }
  return static_cast<uint32_t>(crc);
}

// <root>/.build-id/xx/yyyy.debug for build-id `id`.
std::string build_id_file(const std::string& root, Bytes id) {
  const std::string hex = to_hex(id);
  return root + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
}

// The build-id of the ELF file in `elf`, empty when it has none.
std::vector<uint8_t> build_id_of(Elf* elf) {
  const void* bits = nullptr;
  const ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &bits) : -1;
  if (n <= 0) return {};
  const auto* p = static_cast<const uint8_t*>(bits);
  return {p, p + n};
}

}  // namespace

// The separate debuginfo of the binary where libdwfl's standard lookup
// would look (debuginfo_candidates, also for the path the binary's symlinks
// resolve to), opened here: only regular files, never the binary itself,
// and only ELF files of the binary's build-id, or for a binary without one
// of the debuglink's CRC (any ELF file when it names no CRC, as libdwfl
// takes). -1 when there is none.
int DebugInfo::debuginfo_on_disk(const char* debuglink_file, const char* file_name, GElf_Word debuglink_crc,
                                 char** debuginfo_file_name) const {
  namespace fs = std::filesystem;
  const std::string path = file_name && *file_name ? file_name : binary_->path();
  std::vector<std::string> candidates = debuginfo_candidates(debuglink_file, file_name);
  std::error_code ec;
  if (const fs::path real = fs::canonical(path, ec); !ec && real != path)
    for (std::string& c : debuglink_candidates(debuglink_file, real.string())) candidates.push_back(std::move(c));
  const auto& id = binary_->build_id();
  for (const std::string& candidate : candidates) {
    if (!fs::is_regular_file(candidate, ec) || fs::equivalent(candidate, path, ec)) continue;
    auto file = open_regular_file(candidate);
    if (!file) continue;
    const int fd = file.value->fd.get();
    if (!id.empty()) {
      if (!has_build_id_of_binary(fd)) continue;
    } else {
      const ElfPtr elf(elf_begin(fd, ELF_C_READ_MMAP, nullptr));
      if (!elf || elf_kind(elf.get()) != ELF_K_ELF) continue;
      if (debuglink_crc != 0 && file_crc32(fd, file.value->size) != debuglink_crc) continue;
    }
    if (debuginfo_file_name) *debuginfo_file_name = strdup(candidate.c_str());
    return file.value->fd.release();
  }
  return -1;
}

// The DWARF's .gnu_debugaltlink (the name and build-id of its dwz
// supplementary file): of the debuginfo rebuilt in memory, of the separate
// debuginfo found on disk, or of the binary.
std::optional<DebugInfo::AltLink> DebugInfo::debugaltlink() const {
  ElfPtr elf;
  UniqueFd fd;
  if (!image_.empty()) {
    elf.reset(elf_memory(reinterpret_cast<char*>(image_.data()), image_.size()));
  } else {
    auto file = open_regular_file(debuginfo_found_.empty() ? binary_->path() : debuginfo_found_);
    if (!file) return std::nullopt;
    fd = std::move(file.value->fd);
    elf.reset(elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr));
  }
  size_t names = 0;
  if (!elf || elf_getshdrstrndx(elf.get(), &names) != 0) return std::nullopt;
  for (Elf_Scn* scn = elf_nextscn(elf.get(), nullptr); scn; scn = elf_nextscn(elf.get(), scn)) {
    GElf_Shdr header;
    const char* name = gelf_getshdr(scn, &header) ? elf_strptr(elf.get(), names, header.sh_name) : nullptr;
    if (!name || std::strcmp(name, ".gnu_debugaltlink") != 0 || header.sh_type == SHT_NOBITS) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf) return std::nullopt;
    const auto* bytes = static_cast<const char*>(data->d_buf);
    const size_t length = strnlen(bytes, data->d_size);
    if (length == 0 || length + 1 >= data->d_size) return std::nullopt;  // no build-id after the name
    AltLink link;
    link.name.assign(bytes, length);
    link.build_id.assign(reinterpret_cast<const uint8_t*>(bytes) + length + 1,
                         reinterpret_cast<const uint8_t*>(bytes) + data->d_size);
    return link;
  }
  return std::nullopt;
}

// Where the DWARF's supplementary file is looked for: under each root by
// its build-id, then where .gnu_debugaltlink names it (beside the debug
// file, when the name is relative).
std::vector<std::string> DebugInfo::supplementary_candidates(const AltLink& link) const {
  std::vector<std::string> candidates;
  if (link.build_id.size() >= 2)
    for (const std::string& root : absolute_roots())
      candidates.push_back(build_id_file(root, Bytes(link.build_id.data(), link.build_id.size())));
  if (link.name.empty()) return candidates;
  if (link.name[0] == '/') {
    candidates.push_back(link.name);
  } else if (image_.empty()) {  // an image has no folder
    const std::string debug_file = debuginfo_found_.empty() ? binary_->path() : debuginfo_found_;
    std::error_code ec;
    const auto real = std::filesystem::canonical(debug_file, ec);
    if (!ec) candidates.push_back((real.parent_path() / link.name).string());
  }
  return candidates;
}

// The DWARF's supplementary file, opened here (among `candidates`): a
// regular ELF file of the build-id .gnu_debugaltlink names. -1 when none is.
int DebugInfo::supplementary_on_disk(const AltLink& link, const std::vector<std::string>& candidates,
                                     char** debuginfo_file_name) const {
  if (link.build_id.empty()) return -1;
  std::error_code ec;
  for (const std::string& candidate : candidates) {
    if (!std::filesystem::is_regular_file(candidate, ec)) continue;
    auto file = open_regular_file(candidate);
    if (!file) continue;
    const ElfPtr elf(elf_begin(file.value->fd.get(), ELF_C_READ_MMAP, nullptr));
    if (build_id_of(elf.get()) != link.build_id) continue;
    if (debuginfo_file_name) *debuginfo_file_name = strdup(candidate.c_str());
    return file.value->fd.release();
  }
  return -1;
}

bool DebugInfo::has_build_id_of_binary(int fd) const {
  const auto& id = binary_->build_id();
  const ElfPtr elf(elf_begin(fd, ELF_C_READ_MMAP, nullptr));
  const std::vector<uint8_t> found = build_id_of(elf.get());
  return !found.empty() && std::equal(found.begin(), found.end(), id.begin(), id.end());
}

// The separate debuginfo in descriptor `fd` (owned), named
// *debuginfo_file_name: when it has compressed sections, rebuilt in memory
// as a DwarfImage and reported to a session of its own (image_module_),
// -1 returned; else the descriptor, for libdwfl to read the file itself. A
// damaged file is kept for its symbols and its DWARF left unread
// (dwarf_problem_).
int DebugInfo::dwarf_image_of(int fd, char** debuginfo_file_name) {
  UniqueFd file(fd);
  const MappedFile mapped = map_whole_file(file.get());
  if (mapped.bytes.empty()) return file.release();
  try {
    std::optional<DwarfImage> image = DwarfImage::plan(mapped.bytes);
    if (!image) return file.release();
    AnonymousBuffer memory = write_to_memory(*image);
    if (memory.empty()) return file.release();
    const std::string source =
        debuginfo_file_name && *debuginfo_file_name ? *debuginfo_file_name : binary_->path() + ".debug";
    DwflPtr session(dwfl_begin(&callbacks_));
    if (!session) return file.release();
    dwfl_report_begin(session.get());
    Dwfl_Module* mod = dwfl_report_offline_memory(session.get(), basename_of(source).c_str(), source.c_str(),
                                                  reinterpret_cast<char*>(memory.data()), memory.size());
    dwfl_report_end(session.get(), nullptr, nullptr);
    GElf_Addr bias = 0;
    if (!mod || !dwfl_module_getelf(mod, &bias)) return file.release();
    void** userdata = nullptr;
    dwfl_module_info(mod, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    if (userdata) *userdata = this;  // for find_debuginfo (a dwz supplementary file)
    if (!image->problems().empty()) dwarf_problem_ = image->problems().front();
    image_ = std::move(memory);
    image_source_ = source;
    image_dwfl_ = std::move(session);
    image_module_ = mod;
    image_bias_ = bias;
    if (debuginfo_file_name) {
      free(*debuginfo_file_name);
      *debuginfo_file_name = nullptr;
    }
    return -1;
  } catch (const Error& e) {
    dwarf_problem_ = e.what();
    return file.release();
  }
}

// `fd` (owned) as it is, or, when compressed sections of its file claim
// more than the bounds allow (compressed_sections.h), an in-memory copy in
// which they are set aside, each with a warning; -1 when no copy can be made.
int DebugInfo::within_bounds(int fd, const char* file_name) {
  UniqueFd file(fd);
  const MappedFile mapped = map_whole_file(file.get());
  if (mapped.bytes.empty()) return file.release();
  const ElfPtr elf(elf_memory(const_cast<char*>(reinterpret_cast<const char*>(mapped.bytes.data())),
                              mapped.bytes.size()));
  const std::vector<OversizedSection> oversized = oversized_sections_read(elf.get());
  if (oversized.empty()) return file.release();
  const std::string name = file_name && *file_name ? file_name : "the debuginfo of " + binary_->path();
  std::vector<uint8_t> copy(mapped.bytes.begin(), mapped.bytes.end());
  for (const OversizedSection& section : oversized) {
    warn_oversized(section, name);
    if (!set_aside_section(copy, elf.get(), section.index)) return -1;
  }
  UniqueFd out = memory_file("swprof-debuginfo", Bytes(copy.data(), copy.size()));
  return out.valid() ? out.release() : -1;
}

// The compressed sections of `elf` over the bounds that libdwfl would read:
// DWARF sections only when lines are wanted.
std::vector<OversizedSection> DebugInfo::oversized_sections_read(Elf* elf) const {
  std::vector<OversizedSection> out = oversized_compressed_sections(elf);
  if (!options_.lines) std::erase_if(out, [](const OversizedSection& s) { return is_dwarf_section(s.name); });
  return out;
}

void DebugInfo::warn_oversized(const OversizedSection& section, const std::string& file) {
  const std::string what =
      section.name.empty() ? "section " + std::to_string(section.index) : section.name + " section";
  warn("ignored the compressed " + what + " of " + file + ": it " + section.problem + " (more than " +
       std::to_string(kMaxInflation) + " times as many, or over " + std::to_string(kMaxSectionBytes >> 30) +
       " GiB)");
}

// The separate debuginfo of this binary's build-id kept in the build-id
// cache, as a descriptor libdwfl owns; -1 when there is none. A kept file
// that is not this binary's debuginfo is a warning.
int DebugInfo::cached_debuginfo(char** debuginfo_file_name) {
  const std::vector<uint8_t>& id = binary_->build_id();
  if (!options_.build_id_cache || id.empty()) return -1;
  const std::string file = options_.build_id_cache->path_of(CachedFile::kDebuginfo, id);
  auto kept = options_.build_id_cache->open(CachedFile::kDebuginfo, id);
  if (!kept) {
    if (!kept.missing())
      warn("ignored the build-id cache's debuginfo of " + binary_->path() + " (" + file + "): " + kept.reason);
    return -1;
  }
  options_.build_id_cache->note_use(id);
  if (debuginfo_file_name) *debuginfo_file_name = strdup(file.c_str());
  return kept.value->fd.release();
}

std::string DebugInfo::separate_debuginfo_on_disk() const {
  if (!module_ || binary_->section(".debug_info")) return "";
  // .gnu_debuglink: the file's name, NUL-padded to 4 bytes, then its CRC-32.
  std::string link;
  uint32_t crc = 0;
  if (const auto section = binary_->section(".gnu_debuglink")) {
    const Bytes data = section->data;
    const size_t length = strnlen(reinterpret_cast<const char*>(data.data()), data.size());
    const size_t crc_at = (length + 4) & ~size_t{3};
    if (length > 0 && crc_at + 4 <= data.size()) {
      link.assign(reinterpret_cast<const char*>(data.data()), length);
      std::memcpy(&crc, data.data() + crc_at, 4);
    }
  }
  char* name = nullptr;
  const UniqueFd fd(debuginfo_on_disk(link.empty() ? nullptr : link.c_str(), nullptr, crc, &name));
  std::string found = fd.valid() && name ? name : "";
  free(name);
  return found;
}

// The separate debuginfo of this binary's build-id in the archive
// (`swprof archive`), as a descriptor libdwfl owns; -1 when there is none.
int DebugInfo::archived_debuginfo(char** debuginfo_file_name) {
  const ArchiveEntry* entry =
      options_.archive ? options_.archive->find(ArchiveKind::kDebuginfo, binary_->build_id()) : nullptr;
  if (!entry) return -1;
  UniqueFd fd;
  try {
    // Inflated straight into the file, a piece at a time.
    fd = memory_file("swprof-archived-debuginfo", [&](int out) {
      bool written = true;
      options_.archive->read(*entry, [&](Bytes piece) { written = written && write_all(out, piece); });
      return written;
    });
  } catch (const Error& e) {
    warn(std::string(e.what()) + ": no source lines or inline frames from it for " + binary_->path());
    return -1;
  }
  if (!fd.valid()) return -1;
  if (debuginfo_file_name) *debuginfo_file_name = strdup(archived_image_name(entry->path).c_str());
  return fd.release();
}

std::vector<std::string> DebugInfo::absolute_roots() const {
  std::vector<std::string> out;
  for (const std::string& root : options_.debug_roots) {
    std::error_code ec;
    const auto path = std::filesystem::absolute(root, ec);
    if (!root.empty() && !ec) out.push_back(path.lexically_normal().string());
  }
  return out;
}

// Where libdwfl's standard lookup looks for the separate debuginfo of
// `file_name` (the binary when null): <root>/.build-id/xx/yyyy.debug, then
// the debuglink places (debuglink_candidates).
std::vector<std::string> DebugInfo::debuginfo_candidates(const char* debuglink_file, const char* file_name) const {
  const std::string path = file_name && *file_name ? file_name : binary_->path();
  std::vector<std::string> candidates;
  const auto& id = binary_->build_id();
  if (id.size() >= 2)
    for (const std::string& root : absolute_roots())
      candidates.push_back(build_id_file(root, Bytes(id.data(), id.size())));
  for (std::string& candidate : debuglink_candidates(debuglink_file, path)) candidates.push_back(std::move(candidate));
  return candidates;
}

// The debuglink name (or the binary's name + ".debug") beside `path`, in
// its .debug/ folder and under each root. An absolute debuglink (a dwz
// file's .gnu_debugaltlink) is looked at as it is.
std::vector<std::string> DebugInfo::debuglink_candidates(const char* debuglink_file, const std::string& path) const {
  const std::string link = debuglink_file && *debuglink_file ? debuglink_file : basename_of(path) + ".debug";
  if (link[0] == '/') return {link};
  const std::string dir = dirname_of(path);
  std::vector<std::string> candidates{dir + "/" + link, dir + "/.debug/" + link};
  for (const std::string& root : absolute_roots()) candidates.push_back(root + dir + "/" + link);
  return candidates;
}

// libdwfl found no debuginfo it could use. A file sitting where it looked is
// then damaged or belongs to another build: say so, once.
void DebugInfo::note_rejected_debuginfo(const char* debuglink_file) {
  namespace fs = std::filesystem;
  const std::string& path = binary_->path();
  const auto& id = binary_->build_id();
  std::error_code ec;
  for (const std::string& candidate : debuginfo_candidates(debuglink_file, nullptr)) {
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
  // Asking the binary's module may rebuild its debuginfo in memory
  // (find_debuginfo): then the image's module has the DWARF.
  Dwarf* dwarf = image_module_ ? nullptr : dwfl_module_getdwarf(module_, &bias);
  if (image_module_) dwarf = dwfl_module_getdwarf(image_module_, &bias);
  if (!dwarf_problem_.empty()) {
    warn("cannot read the DWARF of " + binary_->path() + " (" + dwarf_problem_ +
         "): no source lines or inline frames for it");
    return;
  }
  if (!dwarf) {
    if (found_separate_debuginfo_ || binary_->section(".debug_info"))
      warn("cannot read the DWARF of " + binary_->path() + " (" + dwfl_errmsg(-1) +
           "): no source lines or inline frames for it");
    return;
  }
  if (!supplementary_file_safe(dwarf)) return;
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

// Whether each of `places` is a regular file or nothing; else a warning
// naming the first that is not.
bool DebugInfo::only_regular_files(const std::vector<std::string>& places) {
  for (const std::string& place : places) {
    struct stat st;
    if (::stat(place.c_str(), &st) != 0 || S_ISREG(st.st_mode)) continue;
    warn("ignored " + place + " as debuginfo of " + binary_->path() + " (it is " + file_kind(st.st_mode) +
         ", not a regular file): no source lines or inline frames for it");
    return false;
  }
  return true;
}

// DWARF rewritten by dwz refers to a supplementary file, which libdwfl
// looks for through find_debuginfo. When it finds none, libdw looks again
// by itself, at the first reference into it: at /usr/lib/debug/.build-id/
// and where .gnu_debugaltlink names it, opening what is there without a
// look (a FIFO would block the report for ever). Those places must hold a
// regular file or nothing, else this DWARF is not read. A supplementary
// file found nowhere leaves some inlined functions unnamed: worth a warning.
bool DebugInfo::supplementary_file_safe(Dwarf* dwarf) {
  const char* name = nullptr;
  const void* id = nullptr;
  const ssize_t id_size = dwelf_dwarf_gnu_debugaltlink(dwarf, &name, &id);
  if (id_size <= 0 || !name) return true;
  const Bytes id_bytes(static_cast<const uint8_t*>(id), static_cast<size_t>(id_size));
  std::vector<std::string> places = supplementary_candidates(AltLink{name, {id_bytes.begin(), id_bytes.end()}});
  if (id_size >= 3 && id_size <= 64) places.push_back(build_id_file("/usr/lib/debug", id_bytes));  // libdw's own place
  if (!only_regular_files(places)) return false;
  if (!dwarf_getalt(dwarf))
    warn("cannot find " + std::string(name) + ", the dwz supplementary file of the DWARF of " + binary_->path() +
         ": some inlined functions are unnamed (install it there or under a debug root's .build-id/)");
  return true;
}

std::string DebugInfo::dwarf_file() {
  if (!module_) return "";
  if (!dwarf_checked_) check_dwarf();
  if (!dwarf_usable_) return "";
  if (image_module_) return image_source_;
  const char* main_file = nullptr;
  const char* debug_file = nullptr;
  dwfl_module_info(module_, nullptr, nullptr, nullptr, nullptr, nullptr, &main_file, &debug_file);
  if (debug_file && *debug_file) return debug_file;
  return main_file ? main_file : binary_->path();
}

void DebugInfo::prepare() {
  if (!module_ || binary_->go_pclntab()) return;
  if (!symbols_loaded_) load_symbols();
  if (options_.lines && !dwarf_checked_) check_dwarf();
}

std::vector<SourceFrame> DebugInfo::frames_at(uint64_t vaddr) {
  std::vector<SourceFrame> frames;
  if (add_go_frames(vaddr, frames)) return frames;
  SourceFrame outer;
  if (module_) {
    const Dwarf_Addr addr = vaddr + module_bias_;
    if (!symbols_loaded_) load_symbols();
    if (const Symbol* sym = symbol_at(addr)) {
      // Versioned names ("memcpy@@GLIBC_2.14") name the function without it.
      const char* at = std::strchr(sym->name, '@');
      outer.function = symbol_name(at && at != sym->name ? std::string(sym->name, at).c_str() : sym->name);
      outer.function_offset = addr - sym->start;
    }
    if (options_.lines) {
      if (!dwarf_checked_) check_dwarf();
      if (dwarf_usable_) add_dwarf_frames(addr, outer, frames);
    }
  } else if (const FunctionSymbol* f = binary_->function_at(vaddr)) {
    outer.function = symbol_name(f->name.c_str());
    outer.function_offset = vaddr - f->start;
  }
  if (outer.function.empty()) name_plt_stub(vaddr, outer);
  if (outer.function.empty()) name_startup_function(vaddr, outer);
  frames.push_back(std::move(outer));
  return frames;
}

// A Go function: names, lines and inlined calls from the pclntab, which
// every Go binary keeps (also when stripped); names are not demangled. In
// an unstripped binary it agrees with DWARF (tests/binary/go_pclntab_test.cpp).
bool DebugInfo::add_go_frames(uint64_t vaddr, std::vector<SourceFrame>& frames) const {
  const GoPclntab* table = binary_->go_pclntab();
  const std::optional<GoPclntab::Func> f = table ? table->func_at(vaddr) : std::nullopt;
  if (!f) return false;
  std::vector<GoFrame> go;
  table->frames_at(*f, vaddr, go);
  for (const GoFrame& g : go) {
    if (g.inlined && !options_.inline_frames) continue;
    SourceFrame frame;
    frame.function = std::string(g.name);
    frame.inlined = g.inlined;
    if (options_.lines) {
      frame.file = std::string(g.file);
      frame.line = static_cast<uint32_t>(std::max(g.line, 0));
    }
    if (!g.inlined) {
      frame.function_offset = vaddr - f->entry;
      if (options_.lines) frame.decl_line = static_cast<uint32_t>(std::max(table->start_line(*f), 0));
    }
    frames.push_back(std::move(frame));
  }
  return true;
}

// A PLT stub has no symbol: it is named as perf names it ("write@plt"), the
// relocation's symbol demangled.
void DebugInfo::name_plt_stub(uint64_t vaddr, SourceFrame& frame) const {
  const PltEntry* stub = binary_->plt_entries().at(vaddr);
  if (!stub) return;
  frame.function = stub->symbol.empty() ? stub->name : symbol_name(stub->symbol.c_str()) + "@plt";
  frame.function_offset = vaddr - stub->start;
}

// Start-up code without a symbol, where the code proves its name
// (binary/startup_functions.h): _start, main, __libc_start_main.
void DebugInfo::name_startup_function(uint64_t vaddr, SourceFrame& frame) const {
  const std::optional<StartupFunction> f = startup_function_at(*binary_, vaddr);
  if (!f) return;
  frame.function = std::string(f->name);
  frame.function_offset = vaddr - f->start;
}

void DebugInfo::load_symbols() {
  symbols_loaded_ = true;
  // Asking the binary's module may rebuild its debuginfo in memory
  // (find_debuginfo): then the image's module has the symbols, at its own
  // addresses.
  Dwfl_Module* mod = module_;
  int n = dwfl_module_getsymtab(module_);
  Dwarf_Addr shift = 0;
  if (image_module_) {
    // A debuginfo without a symbol table leaves the binary's own.
    if (const int in_image = dwfl_module_getsymtab(image_module_); in_image > 1) {
      mod = image_module_;
      n = in_image;
      shift = module_bias_ - image_bias_;
    }
  }
  for (int i = 1; i < n; ++i) {
    GElf_Sym sym;
    GElf_Addr addr = 0;
    GElf_Word shndx = 0;
    Elf* elf = nullptr;
    Dwarf_Addr bias = 0;
    const char* name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &elf, &bias);
    const int type = GELF_ST_TYPE(sym.st_info);
    if (!name || !*name || (type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF) continue;
    const int bind = GELF_ST_BIND(sym.st_info);
    const uint8_t rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
    Dwarf_Addr section_end = addr + 1;
    GElf_Shdr shdr;
    if (sym.st_size == 0 && elf && shndx != SHN_UNDEF && shndx < SHN_LORESERVE) {
      if (Elf_Scn* scn = elf_getscn(elf, shndx); scn && gelf_getshdr(scn, &shdr))
        section_end = std::max(section_end, shdr.sh_addr + shdr.sh_size + bias);
    }
    symbols_.push_back({addr + shift, sym.st_size, section_end + shift, name, rank});
  }
  std::sort(symbols_.begin(), symbols_.end(), [](const Symbol& a, const Symbol& b) {
    if (a.start != b.start) return a.start < b.start;
    if (a.rank != b.rank) return a.rank < b.rank;
    return a.size > b.size;
  });
}

// The symbol whose [start, start + size) holds addr, the best-ranked alias
// when several do. A symbol without a size reaches the next symbol or the
// end of its section, whichever comes first.
const DebugInfo::Symbol* DebugInfo::symbol_at(Dwarf_Addr addr) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), addr,
                             [](Dwarf_Addr a, const Symbol& s) { return a < s.start; });
  const auto next_start = it == symbols_.end() ? ~Dwarf_Addr{0} : it->start;
  // Walk back over smaller symbols nested in a bigger one (at most a few).
  for (int tries = 0; it != symbols_.begin() && tries < 8; ++tries) {
    --it;
    const Dwarf_Addr end = it->size ? it->start + it->size : std::min(next_start, it->section_end);
    if (addr < end) {
      while (it != symbols_.begin() && std::prev(it)->start == it->start) --it;  // best alias
      return &*it;
    }
  }
  return nullptr;
}

const DebugInfo::CuIndex& DebugInfo::cu_index(Dwarf_Die* cu) {
  const Dwarf_Off key = dwarf_dieoffset(cu);
  if (auto it = cu_indexes_.find(key); it != cu_indexes_.end()) return it->second;
  CuIndex index;
  index_functions(cu, index, 0);
  std::sort(index.begin(), index.end(), [](const DwarfFunctionRange& a, const DwarfFunctionRange& b) { return a.low < b.low; });
  return cu_indexes_.emplace(key, std::move(index)).first->second;
}

namespace {

// The source line of `addr` from the line table ("" and 0 when unknown).
std::pair<std::string, uint32_t> line_table_entry(Dwfl_Module* module, Dwarf_Addr addr) {
  Dwfl_Line* src = dwfl_module_getsrc(module, addr);
  if (!src) return {};
  Dwarf_Addr line_addr = 0;
  int lineno = 0, column = 0;
  Dwarf_Word mtime = 0, length = 0;
  const char* name = dwfl_lineinfo(src, &line_addr, &lineno, &column, &mtime, &length);
  if (!name) return {};
  return {name, lineno > 0 ? static_cast<uint32_t>(lineno) : 0};
}

// The function of a unit's index holding pc, or nullptr. Ranges do not
// overlap, unless a (GNU C) nested function sits inside its parent's: look
// back a few.
const DwarfFunctionRange* function_holding(const std::vector<DwarfFunctionRange>& index, Dwarf_Addr pc) {
  auto it = std::upper_bound(index.begin(), index.end(), pc,
                             [](Dwarf_Addr a, const DwarfFunctionRange& r) { return a < r.low; });
  for (int tries = 0; it != index.begin() && tries < 8; ++tries) {
    --it;
    if (pc < it->high) return &*it;
  }
  return nullptr;
}

// Where the function enclosing an inlined instance called it:
// DW_AT_call_file/DW_AT_call_line ("" and 0 when unknown).
std::pair<std::string, uint32_t> call_site(Dwarf_Die* inlined, Dwarf_Files* files, size_t nfiles) {
  std::string file;
  if (auto index_of_file = udata_attr(inlined, DW_AT_call_file); index_of_file && files && *index_of_file < nfiles) {
    if (const char* name = dwarf_filesrc(files, *index_of_file, nullptr, nullptr)) file = name;
  }
  return {file, static_cast<uint32_t>(udata_attr(inlined, DW_AT_call_line).value_or(0))};
}

uint32_t declaration_line(Dwarf_Die* die) {
  int decl = 0;
  return dwarf_decl_line(die, &decl) == 0 && decl > 0 ? static_cast<uint32_t>(decl) : 0;
}

}  // namespace

// The leaf line comes from the line table. The scopes holding the address,
// innermost first, are the inlined instances and then the real function; an
// inlined instance's DW_AT_call_file/DW_AT_call_line is where the next outer
// function was when it called it (DWARF 5 §3.3.8.2).
void DebugInfo::add_dwarf_frames(Dwarf_Addr addr, SourceFrame& outer, std::vector<SourceFrame>& frames) {
  Dwfl_Module* module = dwarf_module();
  const Dwarf_Addr at = to_dwarf_module(addr);
  auto [file, line] = line_table_entry(module, at);
  outer.file = file;
  outer.line = line;

  Dwarf_Addr cu_bias = 0;
  Dwarf_Die* cu = dwfl_module_addrdie(module, at, &cu_bias);
  if (!cu) return;  // code without DWARF (startup files, assembly)
  const Dwarf_Addr pc = at - cu_bias;
  const DwarfFunctionRange* function = function_holding(cu_index(cu), pc);
  if (!function) return;
  // chain: the function, then each nested scope holding pc, outermost first.
  std::vector<Dwarf_Die> chain{function->die};
  find_scopes(&chain.front(), pc, chain, 0);

  Dwarf_Files* files = nullptr;
  size_t nfiles = 0;
  if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0) files = nullptr;
  for (auto scope = chain.rbegin(); scope != chain.rend(); ++scope) {
    Dwarf_Die* die = &*scope;
    const int tag = dwarf_tag(die);
    if (!is_function_scope(tag)) continue;
    if (tag != DW_TAG_inlined_subroutine) {
      outer.file = file;
      outer.line = line;
      outer.decl_line = declaration_line(die);
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
    f.decl_line = declaration_line(die);
    f.inlined = true;
    frames.push_back(std::move(f));
    std::tie(file, line) = call_site(die, files, nfiles);
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
