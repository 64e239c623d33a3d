#include "binary/elf_binary.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>

#include "binary/compressed_sections.h"
#include "binary/go_pclntab.h"
#include "binary/lazy_cfi_table.h"

namespace swprof {
namespace {

void ensure_libelf() {
  static const bool ready = elf_version(EV_CURRENT) != EV_NONE;
  (void)ready;
}

}  // namespace

std::shared_ptr<ElfBinary> ElfBinary::open(const std::string& path) {
  return open_file(path).value.value_or(nullptr);
}

FileResult<std::shared_ptr<ElfBinary>> ElfBinary::open_file(const std::string& path) {
  auto file = open_regular_file(path);
  if (!file) return std::move(file).failure_as<std::shared_ptr<ElfBinary>>();
  return open_file(std::move(*file.value), path);
}

FileResult<std::shared_ptr<ElfBinary>> ElfBinary::open_file(RegularFile file, const std::string& path) {
  ensure_libelf();
  FileResult<std::shared_ptr<ElfBinary>> result;
  std::shared_ptr<ElfBinary> b(new ElfBinary());
  b->path_ = path;
  b->fd_ = std::move(file.fd);
  b->elf_.reset(elf_begin(b->fd_.get(), ELF_C_READ_MMAP, nullptr));
  if (!b->init()) {
    result.reason = "not a 64-bit ELF file";
    return result;
  }
  result.value = std::move(b);
  return result;
}

UniqueFd ElfBinary::duplicate_descriptor() const {
  return fd_.valid() ? UniqueFd(::fcntl(fd_.get(), F_DUPFD_CLOEXEC, 0)) : UniqueFd();
}

std::shared_ptr<ElfBinary> ElfBinary::from_image(const std::string& name, std::vector<uint8_t> image) {
  ensure_libelf();
  std::shared_ptr<ElfBinary> b(new ElfBinary());
  b->path_ = name;
  b->image_ = std::move(image);
  b->elf_.reset(elf_memory(reinterpret_cast<char*>(b->image_.data()), b->image_.size()));
  if (!b->init()) return nullptr;
  return b;
}

bool ElfBinary::init() {
  if (!elf_ || elf_kind(elf_.get()) != ELF_K_ELF || gelf_getclass(elf_.get()) != ELFCLASS64) return false;
  size_t size = 0;
  char* raw = elf_rawfile(elf_.get(), &size);
  if (!raw) return false;
  file_ = Bytes(reinterpret_cast<const uint8_t*>(raw), size);
  GElf_Ehdr ehdr;
  if (!gelf_getehdr(elf_.get(), &ehdr)) return false;
  entry_ = ehdr.e_entry;
  size_t nphdr = 0;
  if (elf_getphdrnum(elf_.get(), &nphdr) != 0) return false;
  for (size_t i = 0; i < nphdr; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(elf_.get(), static_cast<int>(i), &ph) || ph.p_type != PT_LOAD) continue;
    segments_.push_back(
        {ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz, (ph.p_flags & PF_X) != 0, (ph.p_flags & PF_W) != 0});
    if ((ph.p_flags & PF_X) && ph.p_filesz > 0 && ph.p_vaddr + ph.p_filesz > ph.p_vaddr)
      executable_ranges_.emplace_back(ph.p_vaddr, ph.p_vaddr + ph.p_filesz);
  }
  const void* id = nullptr;
  ssize_t n = dwelf_elf_gnu_build_id(elf_.get(), &id);
  if (n > 0 && id) build_id_.assign(static_cast<const uint8_t*>(id), static_cast<const uint8_t*>(id) + n);
  load_sections();
  load_symbols();
  return true;
}

// Whether section `index` may be read through libelf, which inflates a
// compressed string table whole in elf_strptr: not compressed, or claiming
// no more than compressed_sections.h allows.
bool ElfBinary::plain_enough(size_t index) const {
  Elf_Scn* scn = elf_getscn(elf_.get(), index);
  GElf_Shdr sh;
  return scn && gelf_getshdr(scn, &sh) && compressed_section_problem(elf_.get(), scn, sh, "").empty();
}

void ElfBinary::load_sections() {
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf_.get(), &shstrndx) != 0 || !plain_enough(shstrndx)) return;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf_.get(), scn)) != nullptr) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char* name = elf_strptr(elf_.get(), shstrndx, sh.sh_name);
    if (!name) continue;
    ElfSection out;
    out.addr = sh.sh_addr;
    out.offset = sh.sh_offset;
    out.scn = scn;
    out.index = elf_ndxscn(scn);
    out.type = sh.sh_type;
    out.link = sh.sh_link;
    out.entsize = sh.sh_entsize;
    out.addralign = sh.sh_addralign;
    if (sh.sh_type != SHT_NOBITS && sh.sh_offset <= file_.size() && sh.sh_size <= file_.size() - sh.sh_offset)
      out.data = file_.subspan(sh.sh_offset, sh.sh_size);
    sections_.emplace_back(name, out);
  }
}

std::optional<ElfSection> ElfBinary::section(const std::string& name) const {
  for (const auto& [n, sec] : sections_)
    if (n == name) return sec;
  return std::nullopt;
}

std::optional<ElfSection> ElfBinary::section_at_index(size_t index) const {
  for (const auto& entry : sections_)
    if (entry.second.index == index) return entry.second;
  return std::nullopt;
}

const PltEntries& ElfBinary::plt_entries() const {
  std::call_once(plt_once_, [this] { plt_entries_ = std::make_unique<const PltEntries>(read_plt_entries(*this)); });
  return *plt_entries_;
}

const StartupFunctions& ElfBinary::startup_functions() const {
  std::call_once(startup_once_, [this] { startup_functions_ = find_startup_functions(*this); });
  return startup_functions_;
}

const FunctionStarts& ElfBinary::function_starts() const {
  std::call_once(starts_once_, [this] {
    function_starts_ = FunctionStarts::discover(*this);
    starts_done_.store(true, std::memory_order_release);
  });
  return *function_starts_;
}

const LazyCfiTable& ElfBinary::cfi_table() const {
  std::call_once(cfi_once_, [this] { cfi_table_ = LazyCfiTable::open(*this); });
  return *cfi_table_;
}

std::optional<uint64_t> ElfBinary::file_offset_of(uint64_t vaddr) const {
  for (const auto& s : segments_)
    if (vaddr >= s.vaddr && vaddr - s.vaddr < s.filesz) return s.offset + (vaddr - s.vaddr);
  return std::nullopt;
}

const GoPclntab* ElfBinary::go_pclntab() const {
  std::call_once(go_once_, [this] { go_pclntab_ = GoPclntab::find(*this); });
  return go_pclntab_.get();
}

std::optional<uint64_t> ElfBinary::load_bias(uint64_t map_start, uint64_t map_offset) const {
  for (const auto& s : segments_) {
    // The segment whose file image holds the mapping's first byte (segments
    // are mapped page-aligned, so compare against the page-rounded offset).
    const uint64_t seg_page = s.offset & ~uint64_t{0xfff};
    if (map_offset >= seg_page && map_offset < s.offset + std::max(s.filesz, uint64_t{1})) {
      // runtime = map_start + (file_off - map_offset); vaddr = s.vaddr + (file_off - s.offset)
      return map_start - map_offset - (s.vaddr - s.offset);
    }
  }
  return std::nullopt;
}

bool ElfBinary::read_code(uint64_t vaddr, void* dst, size_t n) const {
  Bytes b = code_at(vaddr, n);
  if (b.size() < n) return false;
  std::memcpy(dst, b.data(), n);
  return true;
}

Bytes ElfBinary::code_at(uint64_t vaddr, size_t max, bool executable_only) const {
  for (const auto& s : segments_) {
    if (vaddr < s.vaddr || vaddr >= s.vaddr + s.filesz) continue;
    if (executable_only && !s.exec) return {};
    const uint64_t off = s.offset + (vaddr - s.vaddr);
    if (off >= file_.size()) return {};
    const uint64_t in_segment = s.vaddr + s.filesz - vaddr;
    const uint64_t n = std::min<uint64_t>({max, in_segment, file_.size() - off});
    return file_.subspan(off, n);
  }
  return {};
}

bool ElfBinary::read_code_scattered(uint64_t vaddr, void* dst, size_t n) const {
  for (const auto& s : segments_) {
    if (vaddr < s.vaddr || vaddr - s.vaddr >= s.filesz) continue;
    if (!s.exec || n > s.vaddr + s.filesz - vaddr) return false;
    const uint64_t off = s.offset + (vaddr - s.vaddr);
    if (off > file_.size() || n > file_.size() - off) return false;
    if (fd_.get() < 0 || s.filesz < kScatteredReadLimit) {  // an in-memory image, or small code
      std::memcpy(dst, file_.data() + off, n);
      return true;
    }
    return pread(fd_.get(), dst, n, static_cast<off_t>(off)) == static_cast<ssize_t>(n);
  }
  return false;
}

void ElfBinary::load_symbols() {
  for (const char* table : {".symtab", ".dynsym"}) {
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf_.get(), scn)) != nullptr) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh)) continue;
      if (sh.sh_type != (std::string(table) == ".symtab" ? SHT_SYMTAB : SHT_DYNSYM)) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (!data || sh.sh_entsize == 0 || !plain_enough(sh.sh_link)) continue;
      const size_t count = sh.sh_size / sh.sh_entsize;
      for (size_t i = 0; i < count; ++i) {
        GElf_Sym sym;
        if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
        if (GELF_ST_TYPE(sym.st_info) != STT_FUNC && GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC) continue;
        if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0) continue;
        const char* name = elf_strptr(elf_.get(), sh.sh_link, sym.st_name);
        functions_.push_back({sym.st_value, sym.st_size, name ? name : ""});
      }
    }
    symbols_from_symtab_ = std::string(table) == ".symtab";
    if (!functions_.empty()) break;  // .symtab is a superset of .dynsym
  }
  std::sort(functions_.begin(), functions_.end(), [](const auto& a, const auto& b) {
    return a.start != b.start ? a.start < b.start : a.size > b.size;
  });
}

const FunctionSymbol* ElfBinary::function_at(uint64_t vaddr) const {
  auto it = std::upper_bound(functions_.begin(), functions_.end(), vaddr,
                             [](uint64_t v, const FunctionSymbol& f) { return v < f.start; });
  // Walk back over aliases and zero-size symbols to one that covers vaddr.
  for (int tries = 0; it != functions_.begin() && tries < 8; ++tries) {
    --it;
    if (vaddr < it->start + std::max<uint64_t>(it->size, 1)) return &*it;
    if (it->size != 0) break;
  }
  return nullptr;
}

const FunctionSymbol* ElfBinary::function_named(const std::string& name) const {
  for (const auto& f : functions_)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace swprof
