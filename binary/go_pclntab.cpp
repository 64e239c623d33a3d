#include "binary/go_pclntab.h"

#include <elf.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "binary/elf_binary.h"
#include "binary/relocations.h"

namespace swprof {
namespace {

constexpr uint32_t kMagic116 = 0xfffffffa, kMagic118 = 0xfffffff0, kMagic120 = 0xfffffff1;
constexpr uint64_t kMaxFuncs = uint64_t{1} << 24;
constexpr uint32_t kPcdataInlTreeIndex = 2;  // 1.16+ (internal/abi/symtab.go)
constexpr uint32_t kFuncdataInlTree = 3;
constexpr int kMaxInlineDepth = 64;
constexpr uint32_t kRelocX86_64Relative = 8;

template <typename T>
std::optional<T> read_at(Bytes bytes, uint64_t off) {
  if (off > bytes.size() || bytes.size() - off < sizeof(T)) return std::nullopt;
  T value;
  std::memcpy(&value, bytes.data() + off, sizeof(T));
  return value;
}

// A Go varint (encoding/binary.Uvarint, 32 bits are enough here).
std::optional<uint32_t> read_uvarint(ByteReader& r) {
  uint32_t value = 0;
  for (unsigned shift = 0; shift < 35; shift += 7) {
    auto byte = r.read<uint8_t>();
    if (!byte) return std::nullopt;
    value |= uint32_t{*byte & 0x7fu} << shift;
    if (!(*byte & 0x80)) return value;
  }
  return std::nullopt;
}

std::optional<GoPclntab::Layout> layout_of(uint32_t magic) {
  switch (magic) {
    case kMagic116: return GoPclntab::Layout::kGo116;
    case kMagic118: return GoPclntab::Layout::kGo118;
    case kMagic120: return GoPclntab::Layout::kGo120;
  }
  return std::nullopt;
}

size_t func_struct_size(GoPclntab::Layout layout) { return layout == GoPclntab::Layout::kGo118 ? 40 : 44; }
size_t inlined_call_size(GoPclntab::Layout layout) { return layout == GoPclntab::Layout::kGo120 ? 16 : 20; }

}  // namespace

const char* go_layout_name(GoPclntab::Layout layout) {
  switch (layout) {
    case GoPclntab::Layout::kGo116: return "go1.16";
    case GoPclntab::Layout::kGo118: return "go1.18";
    case GoPclntab::Layout::kGo120: return "go1.20";
  }
  return "?";
}

Bytes GoImage::at(uint64_t vaddr) const {
  for (const Segment& s : segments)
    if (vaddr >= s.vaddr && vaddr - s.vaddr < s.bytes.size()) return s.bytes.subspan(vaddr - s.vaddr);
  return {};
}

// ---- the table ----

std::unique_ptr<const GoPclntab> GoPclntab::parse(GoPclntabInput input) {
  std::unique_ptr<GoPclntab> t(new GoPclntab());
  t->table_ = input.table;
  t->table_vaddr_ = input.table_vaddr;
  t->gofunc_ = input.gofunc;
  t->image_ = std::move(input.image);
  t->version_ = std::move(input.version);
  if (!t->read_header()) return nullptr;
  if (t->layout_ != Layout::kGo116 && input.text_start) t->text_start_ = *input.text_start;
  if (!t->validate()) return nullptr;
  if (t->version_.empty()) t->version_ = go_layout_name(t->layout_);
  return t;
}

// pcHeader: magic u32, 0, 0, minLC u8, ptrSize u8, then words: nfunc,
// nfiles, [textStart 1.18+], funcnameOffset, cuOffset, filetabOffset,
// pctabOffset, pclnOffset.
bool GoPclntab::read_header() {
  const auto magic = read_at<uint32_t>(table_, 0);
  const auto tail = read_at<std::array<uint8_t, 4>>(table_, 4);
  if (!magic || !tail || !layout_of(*magic)) return false;
  layout_ = *layout_of(*magic);
  if ((*tail)[0] || (*tail)[1] || (*tail)[3] != 8) return false;
  quantum_ = (*tail)[2];
  if (quantum_ != 1 && quantum_ != 2 && quantum_ != 4) return false;
  const bool has_text = layout_ != Layout::kGo116;
  std::array<uint64_t, 8> w{};
  for (size_t k = 0; k < (has_text ? 8u : 7u); ++k) {
    auto v = read_at<uint64_t>(table_, 8 + 8 * k);
    if (!v) return false;
    w[k] = *v;
  }
  nfunc_ = w[0];
  size_t k = 2;
  if (has_text) text_start_ = w[k++];
  funcname_ = w[k++];
  cutab_ = w[k++];
  filetab_ = w[k++];
  pctab_ = w[k++];
  pclntable_ = w[k++];
  return true;
}

// The header's counts and offsets fit the table, the functab ascends, and
// the first _func is the functab's first entry.
bool GoPclntab::validate() {
  if (nfunc_ == 0 || nfunc_ >= kMaxFuncs) return false;
  const uint64_t offsets[] = {funcname_, cutab_, filetab_, pctab_, pclntable_};
  for (size_t i = 0; i < 5; ++i)
    if (offsets[i] >= table_.size() || (i && offsets[i] < offsets[i - 1])) return false;
  const uint64_t entry_size = layout_ == Layout::kGo116 ? 16 : 8;
  if ((table_.size() - pclntable_) / entry_size < nfunc_ + 1) return false;
  std::optional<uint64_t> last;
  for (size_t i = 0; i <= nfunc_; ++i) {
    auto pc = functab_entry(i);
    if (!pc || (last && *pc < *last)) return false;
    last = pc;
  }
  auto first = func(0);
  if (!first || first->entry != *functab_entry(0)) return false;
  min_pc_ = *functab_entry(0);
  max_pc_ = *last;
  if (layout_ == Layout::kGo116) text_start_ = min_pc_;  // its functab holds absolute pcs
  return true;
}

std::optional<uint64_t> GoPclntab::functab_entry(size_t i) const {
  if (layout_ == Layout::kGo116) return read_at<uint64_t>(table_, pclntable_ + 16 * i);
  auto off = read_at<uint32_t>(table_, pclntable_ + 8 * i);
  if (!off) return std::nullopt;
  return text_start_ + *off;
}

std::optional<uint32_t> GoPclntab::functab_funcoff(size_t i) const {
  if (layout_ == Layout::kGo116) {
    auto off = read_at<uint64_t>(table_, pclntable_ + 16 * i + 8);
    if (!off || *off > UINT32_MAX) return std::nullopt;
    return static_cast<uint32_t>(*off);
  }
  return read_at<uint32_t>(table_, pclntable_ + 8 * i + 4);
}

std::optional<GoPclntab::Func> GoPclntab::func(size_t i) const {
  if (i >= nfunc_) return std::nullopt;
  auto funcoff = functab_funcoff(i);
  auto entry = functab_entry(i), end = functab_entry(i + 1);
  if (!funcoff || *funcoff == UINT32_MAX || !entry || !end) return std::nullopt;
  const uint64_t at = pclntable_ + *funcoff;
  const bool go116 = layout_ == Layout::kGo116;
  const size_t fixed = go116 ? 8 : 4;  // entry field
  if (at > table_.size() || table_.size() - at < func_struct_size(layout_)) return std::nullopt;
  ByteReader r(table_.subspan(at + fixed, func_struct_size(layout_) - fixed));
  Func f;
  f.entry = *entry;
  f.end = *end;
  f.offset = *funcoff;
  const auto name_off = r.read<int32_t>();
  r.skip(8);  // args, deferreturn
  const auto pcsp = r.read<uint32_t>(), pcfile = r.read<uint32_t>(), pcln = r.read<uint32_t>();
  const auto npcdata = r.read<uint32_t>(), cu = r.read<uint32_t>();
  if (layout_ == Layout::kGo120) f.start_line = r.read<int32_t>().value_or(0);
  r.skip(1);  // funcID: renumbered across releases, never used
  const auto flag = r.read<uint8_t>();
  r.skip(1);
  const auto nfuncdata = r.read<uint8_t>();
  if (!name_off || !pcsp || !pcfile || !pcln || !npcdata || !cu || !flag || !nfuncdata) return std::nullopt;
  const uint64_t own_entry = go116 ? read_at<uint64_t>(table_, at).value_or(0)
                                   : text_start_ + read_at<uint32_t>(table_, at).value_or(0);
  if (own_entry != f.entry) return std::nullopt;
  f.name_off = *name_off;
  f.pcsp = *pcsp;
  f.pcfile = *pcfile;
  f.pcln = *pcln;
  f.npcdata = *npcdata;
  f.cu_offset = *cu;
  f.flag = go116 ? 0 : *flag;  // a pad byte before 1.17
  f.nfuncdata = *nfuncdata;
  return f;
}

std::optional<GoPclntab::Func> GoPclntab::func_at(uint64_t vaddr) const {
  if (vaddr < min_pc_ || vaddr >= max_pc_) return std::nullopt;
  // The last entry <= vaddr (entries ascend: validated).
  size_t lo = 0, hi = nfunc_;
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    if (functab_entry(mid).value_or(UINT64_MAX) <= vaddr) lo = mid;
    else hi = mid;
  }
  auto f = func(lo);
  if (!f || vaddr < f->entry || vaddr >= f->end) return std::nullopt;
  return f;
}

std::string_view GoPclntab::name_at(int32_t off) const {
  if (off < 0 || funcname_ + static_cast<uint64_t>(off) >= table_.size()) return {};
  const char* text = reinterpret_cast<const char*>(table_.data() + funcname_ + off);
  return std::string_view(text, strnlen(text, table_.size() - funcname_ - off));
}

// The value of a pc-value table at pc (runtime.pcvalue): pairs of uvarint,
// a zig-zag value delta then a pc delta in quanta, from value -1 at the
// entry; a zero value delta after the first pair ends the table.
std::optional<int32_t> GoPclntab::pc_value(uint32_t table_off, uint64_t entry, uint64_t pc) const {
  if (table_off == 0 || pctab_ + table_off >= table_.size()) return std::nullopt;
  ByteReader r(table_.subspan(pctab_ + table_off));
  int64_t value = -1;
  uint64_t at = entry;
  for (bool first = true;; first = false) {
    auto uv = read_uvarint(r);
    if (!uv || (*uv == 0 && !first)) return std::nullopt;
    value += (*uv & 1) ? ~int64_t{*uv >> 1} : int64_t{*uv >> 1};
    auto pc_delta = read_uvarint(r);
    if (!pc_delta) return std::nullopt;
    at += uint64_t{*pc_delta} * quantum_;
    if (pc < at) {
      if (value < INT32_MIN || value > INT32_MAX) return std::nullopt;
      return static_cast<int32_t>(value);
    }
  }
}

std::optional<int32_t> GoPclntab::sp_delta(const Func& f, uint64_t pc) const { return pc_value(f.pcsp, f.entry, pc); }

std::string_view GoPclntab::file_name(const Func& f, int32_t fileno) const {
  if (fileno < 0) return {};
  auto off = read_at<uint32_t>(table_, cutab_ + 4 * (uint64_t{f.cu_offset} + static_cast<uint64_t>(fileno)));
  if (!off || *off == UINT32_MAX || filetab_ + *off >= table_.size()) return {};
  const char* text = reinterpret_cast<const char*>(table_.data() + filetab_ + *off);
  return std::string_view(text, strnlen(text, table_.size() - filetab_ - *off));
}

std::optional<GoLine> GoPclntab::line(const Func& f, uint64_t pc) const {
  auto fileno = pc_value(f.pcfile, f.entry, pc);
  auto line = pc_value(f.pcln, f.entry, pc);
  if (!fileno || !line) return std::nullopt;
  return GoLine{file_name(f, *fileno), *line};
}

int32_t GoPclntab::start_line(const Func& f) const {
  if (layout_ == Layout::kGo120) return f.start_line;
  auto at_entry = line(f, f.entry);
  return at_entry ? at_entry->line : 0;
}

bool GoPclntab::is_bottom(const Func& f) const {
  const std::string_view n = name(f);
  if (n == "runtime.goexit" || n == "runtime.mstart" || n == "runtime.rt0_go") return true;
  return (f.flag & kTopFrame) && n.find("sigtramp") == std::string_view::npos;
}

// ---- inline trees ----

// pcdata[index]: a u32 offset into pctab right after _func; 0 = none.
std::optional<uint32_t> GoPclntab::pcdata_offset(const Func& f, uint32_t index) const {
  if (index >= f.npcdata) return std::nullopt;
  auto off = read_at<uint32_t>(table_, pclntable_ + f.offset + func_struct_size(layout_) + 4 * index);
  if (!off || *off == 0) return std::nullopt;
  return off;
}

// funcdata[FUNCDATA_InlTree]: after the pcdata offsets; 1.18+ a u32 offset
// from moduledata.gofunc (~0: none), 1.16 an 8-aligned absolute pointer.
Bytes GoPclntab::inline_tree(const Func& f) const {
  if (f.nfuncdata <= kFuncdataInlTree) return {};
  uint64_t at = pclntable_ + f.offset + func_struct_size(layout_) + 4 * uint64_t{f.npcdata};
  if (layout_ == Layout::kGo116) {
    if ((table_vaddr_ + at) & 4) at += 4;
    auto ptr = read_at<uint64_t>(table_, at + 8 * kFuncdataInlTree);
    return ptr && *ptr ? image_.at(*ptr) : Bytes{};
  }
  auto off = read_at<uint32_t>(table_, at + 4 * kFuncdataInlTree);
  if (!off || *off == UINT32_MAX || !gofunc_) return {};
  return image_.at(*gofunc_ + *off);
}

// inlinedCall[index]: 1.16-1.19 {parent i16, funcID u8, pad, file i32,
// line i32, nameOff i32, parentPc i32}; 1.20+ {funcID u8, pad[3], nameOff
// i32, parentPc i32, startLine i32}.
std::optional<GoFrame> GoPclntab::inlined_call(Bytes tree, int32_t index, uint64_t entry, uint64_t& parent_pc) const {
  const size_t size = inlined_call_size(layout_);
  const uint64_t at = static_cast<uint64_t>(index) * size;
  const size_t name_at_off = layout_ == Layout::kGo120 ? 4 : 12;
  auto name_off = read_at<int32_t>(tree, at + name_at_off);
  auto parent = read_at<int32_t>(tree, at + name_at_off + 4);
  if (!name_off || !parent || *parent < 0) return std::nullopt;
  parent_pc = entry + static_cast<uint32_t>(*parent);
  GoFrame frame;
  frame.name = name_at(*name_off);
  frame.inlined = true;
  return frame;
}

void GoPclntab::frames_at(const Func& f, uint64_t pc, std::vector<GoFrame>& out) const {
  const std::optional<uint32_t> index_table = pcdata_offset(f, kPcdataInlTreeIndex);
  const Bytes tree = index_table ? inline_tree(f) : Bytes{};
  uint64_t at = pc;
  for (int depth = 0; !tree.empty() && depth < kMaxInlineDepth; ++depth) {
    auto index = pc_value(*index_table, f.entry, at);
    uint64_t parent_pc = 0;
    if (!index || *index < 0) break;
    auto frame = inlined_call(tree, *index, f.entry, parent_pc);
    if (!frame || parent_pc >= f.end) break;
    if (auto where = line(f, at)) {
      frame->file = where->file;
      frame->line = where->line;
    }
    out.push_back(*frame);
    at = parent_pc;
  }
  GoFrame outer{name(f), {}, 0, false};
  if (auto where = line(f, at)) {
    outer.file = where->file;
    outer.line = where->line;
  }
  out.push_back(outer);
}

// ---- finding it in a binary ----

namespace {

// The pointer a loaded image holds at vaddr: a RELATIVE relocation's addend
// (PIE), else the file's word.
std::optional<uint64_t> pointer_at(const ElfBinary& binary, const Relocations& relocs, uint64_t vaddr) {
  if (const Relocation* r = relocs.at(vaddr); r && r->type == kRelocX86_64Relative)
    return static_cast<uint64_t>(r->addend);
  uint64_t word;
  if (!binary.read_code(vaddr, &word, sizeof word)) return std::nullopt;
  return word;
}

GoImage image_of(const ElfBinary& binary) {
  GoImage image;
  const Bytes file = binary.file_bytes();
  for (const LoadSegment& s : binary.segments()) {
    if (s.offset >= file.size()) continue;
    image.segments.push_back({s.vaddr, file.subspan(s.offset, std::min<uint64_t>(s.filesz, file.size() - s.offset))});
  }
  return image;
}

bool has_header_magic(Bytes at) {
  auto magic = read_at<uint32_t>(at, 0);
  auto tail = read_at<uint32_t>(at, 4);
  return magic && tail && layout_of(*magic) && (*tail & 0xff00ffff) == 0x08000000;
}

// Whether a scan for the table may pay: a Go section, or no section
// headers at all (a stripped binary that lost them). Other binaries
// (libc, ...) are not scanned.
bool worth_scanning(const ElfBinary& binary) {
  return !binary.section(".shstrtab") || binary.section(".go.buildinfo") || binary.section(".note.go.buildid");
}

// The value of a symbol of .symtab by name (runtime.pclntab is an object,
// not among ElfBinary's function symbols).
std::optional<uint64_t> object_symbol(const ElfBinary& binary, std::string_view name) {
  auto symtab = binary.section(".symtab");
  auto strtab = symtab ? binary.section_at_index(symtab->link) : std::nullopt;
  if (!strtab) return std::nullopt;
  ByteReader r(symtab->data);
  while (auto sym = r.read<Elf64_Sym>()) {
    if (sym->st_name >= strtab->data.size() || sym->st_shndx == SHN_UNDEF) continue;
    const char* text = reinterpret_cast<const char*>(strtab->data.data() + sym->st_name);
    if (std::string_view(text, strnlen(text, strtab->data.size() - sym->st_name)) == name) return sym->st_value;
  }
  return std::nullopt;
}

// Candidate table addresses: the section, the symbol, then every 8-aligned
// header magic in the images of the segments that are not code.
std::vector<uint64_t> table_candidates(const ElfBinary& binary, const GoImage& image) {
  std::vector<uint64_t> out;
  if (auto s = binary.section(".gopclntab"); s && s->addr) out.push_back(s->addr);
  if (!out.empty() || !worth_scanning(binary)) return out;
  if (auto sym = object_symbol(binary, "runtime.pclntab")) out.push_back(*sym);
  // Never in code: the scan reads only the other segments.
  for (const LoadSegment& seg : binary.segments()) {
    if (seg.exec) continue;
    Bytes bytes = image.at(seg.vaddr);
    bytes = bytes.first(std::min<uint64_t>(seg.filesz, bytes.size()));
    for (uint64_t off = (8 - seg.vaddr % 8) % 8; off + 8 <= bytes.size(); off += 8)
      if (has_header_magic(bytes.subspan(off))) out.push_back(seg.vaddr + off);
  }
  return out;
}

// moduledata (1.18+) begins {pcHeader, funcnametab.ptr, ...}: the word that
// points at the table followed by one pointing at its function names.
struct ModuleData {
  uint64_t text = 0, gofunc = 0;
};
std::optional<ModuleData> find_moduledata(const ElfBinary& binary, const Relocations& relocs, uint64_t table,
                                          uint64_t funcname, GoPclntab::Layout layout) {
  std::vector<uint64_t> candidates;
  for (const LoadSegment& s : binary.segments()) {
    if (!s.write) continue;
    const Bytes img = binary.code_at(s.vaddr, s.filesz);
    for (uint64_t off = (8 - s.vaddr % 8) % 8; off + 16 <= img.size(); off += 8)
      if (read_at<uint64_t>(img, off) == table) candidates.push_back(s.vaddr + off);
  }
  for (const Relocation& r : relocs.dyn())
    if (r.type == kRelocX86_64Relative && static_cast<uint64_t>(r.addend) == table) candidates.push_back(r.offset);
  const size_t gofunc_word = layout == GoPclntab::Layout::kGo120 ? 40 : 38;
  for (uint64_t md : candidates) {
    if (pointer_at(binary, relocs, md + 8) != table + funcname) continue;
    auto text = pointer_at(binary, relocs, md + 8 * 22);
    auto gofunc = pointer_at(binary, relocs, md + 8 * gofunc_word);
    if (text && gofunc) return ModuleData{*text, *gofunc};
  }
  return std::nullopt;
}

// .go.buildinfo: "\xff Go buildinf:", ptrSize, flags; with flag 2 (1.18+)
// the version follows at 32 as a uvarint-length string.
std::string go_version(const ElfBinary& binary, const GoImage& image) {
  static constexpr std::string_view kMagic("\xff Go buildinf:", 14);
  Bytes info;
  if (auto s = binary.section(".go.buildinfo")) info = s->data;
  for (size_t i = 0; info.empty() && i < image.segments.size(); ++i) {
    const Bytes b = image.segments[i].bytes;
    for (uint64_t off = 0; off + 32 <= b.size(); off += 16)
      if (std::memcmp(b.data() + off, kMagic.data(), kMagic.size()) == 0) {
        info = b.subspan(off);
        break;
      }
  }
  if (info.size() < 33 || std::memcmp(info.data(), kMagic.data(), kMagic.size()) != 0 || !(info[15] & 2)) return {};
  ByteReader r(info.subspan(32));
  auto len = read_uvarint(r);
  if (!len || *len > 64) return {};
  auto text = r.bytes(*len);
  return text ? std::string(reinterpret_cast<const char*>(text->data()), text->size()) : std::string();
}

}  // namespace

namespace {

// 1.18+: the text start and the funcdata base from moduledata, else the
// header's textStart (relocated in a PIE); 1.16 needs neither.
void add_module_facts(const ElfBinary& binary, const Relocations& relocs, GoPclntab::Layout layout,
                      GoPclntabInput& input) {
  if (layout == GoPclntab::Layout::kGo116) return;
  auto funcname = read_at<uint64_t>(input.table, 8 + 8 * 3);
  auto md = funcname ? find_moduledata(binary, relocs, input.table_vaddr, *funcname, layout) : std::nullopt;
  if (md) {
    input.text_start = md->text;
    input.gofunc = md->gofunc;
  } else if (auto text = pointer_at(binary, relocs, input.table_vaddr + 8 + 8 * 2); text && *text) {
    input.text_start = text;
  }
}

}  // namespace

std::unique_ptr<const GoPclntab> GoPclntab::find(const ElfBinary& binary) {
  GoImage image = image_of(binary);
  const std::vector<uint64_t> candidates = table_candidates(binary, image);
  if (candidates.empty()) return nullptr;
  const Relocations relocs = Relocations::read(binary);
  const std::string version = go_version(binary, image);
  const auto section = binary.section(".gopclntab");
  for (uint64_t table : candidates) {
    GoPclntabInput input;
    input.table = section && section->addr == table ? section->data : image.at(table);
    input.table_vaddr = table;
    const auto magic = read_at<uint32_t>(input.table, 0);
    if (!magic || !layout_of(*magic)) continue;
    add_module_facts(binary, relocs, *layout_of(*magic), input);
    input.version = version;
    input.image = image;
    if (auto t = parse(std::move(input))) return t;
  }
  return nullptr;
}

}  // namespace swprof
