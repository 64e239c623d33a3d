// Go's function table: every layout on tables written by the builder
// (tests/support/go_pclntab_builder.h), found by section and by scan in ELF
// images, damaged tables; and on the Go test program (tests/programs/go)
// against its own .symtab, libdw's lines and its .debug_frame, when
// golang-go is installed.

#include "binary/go_pclntab.h"

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <unistd.h>
#include <gelf.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <map>

#include "binary/cfi_table.h"
#include "binary/elf_binary.h"
#include "support/go_pclntab_builder.h"

using namespace swprof;
using namespace swprof::testing;

namespace {

using Layout = GoPclntab::Layout;
constexpr Layout kLayouts[] = {Layout::kGo116, Layout::kGo118, Layout::kGo120};
constexpr uint64_t kText = 0x401000, kTable = 0x480000, kGofunc = 0x4a0000;

std::string str(std::string_view s) { return std::string(s); }

GoPclntab::Func func_named(const GoPclntab& t, const std::string& name) {
  for (size_t i = 0; i < t.size(); ++i)
    if (auto f = t.func(i); f && t.name(*f) == name) return *f;
  FAIL("no function " << name);
  return {};
}

std::string frames_text(const GoPclntab& t, const GoPclntab::Func& f, uint64_t pc) {
  std::vector<GoFrame> frames;
  t.frames_at(f, pc, frames);
  std::string out;
  for (const GoFrame& g : frames)
    out += str(g.name) + " " + str(g.file) + ":" + std::to_string(g.line) + (g.inlined ? " (inlined)" : "") + "\n";
  return out;
}

}  // namespace

TEST_CASE("go_pclntab: every layout: bounds, names, lines, sp deltas, flags") {
  for (Layout layout : kLayouts) {
    INFO(go_layout_name(layout));
    const GoTableBytes bytes = build_go_table(sample_go_table(layout), kText, kTable, kGofunc);
    auto t = GoPclntab::parse(go_table_input(bytes, kText, kTable, kGofunc));
    REQUIRE(t);
    CHECK(t->layout() == layout);
    CHECK(t->size() == 5);
    CHECK(t->min_pc() == kText);
    CHECK(t->max_pc() == kText + 32 + 32 + 16 * 3);
    CHECK_FALSE(t->func_at(kText - 1));
    CHECK_FALSE(t->func_at(t->max_pc()));
    const auto leaf = t->func_at(kText + 31);
    REQUIRE(leaf);
    CHECK(leaf->entry == kText);
    CHECK(leaf->end == kText + 32);
    CHECK(t->name(*leaf) == "main.leaf");
    const auto framed = t->func_at(kText + 32);
    REQUIRE(framed);
    CHECK(t->name(*framed) == "main.framed");
    CHECK(framed->entry == kText + 32);
    // pcsp: 0 over the leaf; the framed function's prologue and epilogue.
    for (uint64_t pc = kText; pc < kText + 32; ++pc) CHECK(t->sp_delta(*leaf, pc) == 0);
    CHECK(t->sp_delta(*framed, framed->entry) == 0);
    CHECK(t->sp_delta(*framed, framed->entry + 1) == 8);
    CHECK(t->sp_delta(*framed, framed->entry + 8) == 32);
    CHECK(t->sp_delta(*framed, framed->entry + 29) == 32);
    CHECK(t->sp_delta(*framed, framed->entry + 30) == 8);
    CHECK(t->sp_delta(*framed, framed->entry + 31) == 0);
    // lines
    auto line = t->line(*leaf, kText + 9);
    REQUIRE(line);
    CHECK(line->file == "leaf.go");
    CHECK(line->line == 20);
    CHECK(t->line(*framed, framed->entry + 5)->line == 40);
    CHECK(t->start_line(*leaf) == (layout == Layout::kGo120 ? 9 : 10));
    // flags (1.17+): bottoms and stack switches
    const auto goexit = func_named(*t, "runtime.goexit"), sigtramp = func_named(*t, "runtime.sigtramp"),
               systemstack = func_named(*t, "runtime.systemstack");
    CHECK(t->is_bottom(goexit));
    CHECK_FALSE(t->is_bottom(sigtramp));
    CHECK_FALSE(t->is_bottom(*leaf));
    CHECK(t->switches_stack(systemstack) == (layout != Layout::kGo116));
    CHECK_FALSE(t->switches_stack(*framed));
  }
}

TEST_CASE("go_pclntab: inline chains, innermost first, each at its own line") {
  for (Layout layout : kLayouts) {
    INFO(go_layout_name(layout));
    const GoTableBytes bytes = build_go_table(sample_go_table(layout), kText, kTable, kGofunc);
    auto t = GoPclntab::parse(go_table_input(bytes, kText, kTable, kGofunc));
    REQUIRE(t);
    const auto leaf = *t->func_at(kText);
    CHECK(frames_text(*t, leaf, kText + 2) == "main.leaf leaf.go:10\n");
    CHECK(frames_text(*t, leaf, kText + 9) ==
          "main.inner leaf.go:20 (inlined)\nmain.middle leaf.go:30 (inlined)\nmain.leaf leaf.go:10\n");
    CHECK(frames_text(*t, leaf, kText + 17) == "main.middle leaf.go:30 (inlined)\nmain.leaf leaf.go:10\n");
    CHECK(frames_text(*t, leaf, kText + 25) == "main.leaf leaf.go:11\n");
    // Without funcdata (no moduledata found) there is no inline tree: the real frame only.
    GoPclntabInput no_gofunc = go_table_input(bytes, kText, kTable, kGofunc);
    no_gofunc.gofunc.reset();
    no_gofunc.image.segments.pop_back();
    auto plain = GoPclntab::parse(no_gofunc);
    REQUIRE(plain);
    CHECK(frames_text(*plain, *plain->func_at(kText), kText + 9) == "main.leaf leaf.go:20\n");
  }
}

TEST_CASE("go_pclntab: a hole in the functab has no function") {
  for (Layout layout : {Layout::kGo118, Layout::kGo120}) {
    GoTableSpec spec = sample_go_table(layout);
    spec.funcs[1].hole = true;
    const GoTableBytes bytes = build_go_table(spec, kText, kTable, kGofunc);
    auto t = GoPclntab::parse(go_table_input(bytes, kText, kTable, kGofunc));
    REQUIRE(t);
    CHECK_FALSE(t->func_at(kText + 40));
    CHECK(t->func_at(kText + 10));
    CHECK(t->func_at(kText + 64));
  }
}

TEST_CASE("go_pclntab: truncated or damaged tables give nothing, never a crash") {
  for (Layout layout : kLayouts) {
    INFO(go_layout_name(layout));
    const GoTableBytes bytes = build_go_table(sample_go_table(layout), kText, kTable, kGofunc);
    // Cut anywhere before the end of the functab: no table.
    for (size_t n = 0; n < bytes.table.size(); ++n) {
      GoPclntabInput in = go_table_input(bytes, kText, kTable, kGofunc);
      in.table = in.table.first(n);
      auto t = GoPclntab::parse(in);
      if (!t) continue;
      // What validates must answer lookups from what is left, or nullopt.
      for (uint64_t pc = kText; pc < kText + 112; ++pc)
        if (auto f = t->func_at(pc)) {
          (void)t->sp_delta(*f, pc);
          (void)t->line(*f, pc);
          std::vector<GoFrame> frames;
          t->frames_at(*f, pc, frames);
        }
    }
    // Every byte flipped: never a crash, and a damaged header is rejected.
    for (size_t i = 0; i < bytes.table.size(); ++i) {
      GoTableBytes bad = bytes;
      bad.table[i] ^= 0xff;
      auto t = GoPclntab::parse(go_table_input(bad, kText, kTable, kGofunc));
      if (i < 4) CHECK_FALSE(t);
      if (!t) continue;
      for (uint64_t pc = kText; pc < kText + 112; pc += 3)
        if (auto f = t->func_at(pc)) {
          (void)t->sp_delta(*f, pc);
          std::vector<GoFrame> frames;
          t->frames_at(*f, pc, frames);
        }
    }
    // A huge function count is rejected before anything is read.
    GoTableBytes huge = bytes;
    const uint64_t count = uint64_t{1} << 40;
    std::memcpy(huge.table.data() + 8, &count, 8);
    CHECK_FALSE(GoPclntab::parse(go_table_input(huge, kText, kTable, kGofunc)));
  }
}

TEST_CASE("go_pclntab: found in an ELF image by its section, and by scanning without section headers") {
  for (Layout layout : kLayouts)
    for (bool sections : {true, false}) {
      INFO(go_layout_name(layout) << (sections ? " with sections" : " without"));
      const GoElfImage image = build_go_elf(sample_go_table(layout), sections);
      auto binary = ElfBinary::from_image("go_fake", image.bytes);
      REQUIRE(binary);
      CHECK(binary->section(".gopclntab").has_value() == sections);
      const GoPclntab* t = binary->go_pclntab();
      REQUIRE(t);
      CHECK(t->table_vaddr() == image.table_vaddr);
      CHECK(t->text_start() == image.text_start);
      CHECK(t->has_inline_trees());
      const auto leaf = t->func_at(image.text_start + 9);
      REQUIRE(leaf);
      CHECK(frames_text(*t, *leaf, image.text_start + 9) ==
            "main.inner leaf.go:20 (inlined)\nmain.middle leaf.go:30 (inlined)\nmain.leaf leaf.go:10\n");
    }
}

TEST_CASE("go_pclntab: binaries that are not Go have none") {
  auto self = ElfBinary::open("/proc/self/exe");
  REQUIRE(self);
  CHECK(self->go_pclntab() == nullptr);
}

// ---- the Go test program ----

namespace {

std::string go_program(const std::string& name) { return std::string(SWPROF_GO_DIR) + "/" + name; }
bool have_go() { return std::string(SWPROF_GO_DIR).size() && std::filesystem::exists(go_program("known_go")); }

// The Go functions of .symtab (in the pclntab's range), by name with
// ".abi0" removed (assembly functions' ABI0 symbols): name -> entry.
std::multimap<std::string, uint64_t> symtab_functions(const ElfBinary& binary, const GoPclntab& t) {
  std::multimap<std::string, uint64_t> out;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(binary.elf(), scn))) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC) continue;
      if (sym.st_value < t.min_pc() || sym.st_value >= t.max_pc()) continue;
      std::string name = elf_strptr(binary.elf(), sh.sh_link, sym.st_name);
      if (name.ends_with(".abi0")) name.resize(name.size() - 5);
      out.emplace(name, sym.st_value);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("go_pclntab: known_go: every Go symbol is a pclntab function with its entry, the same table in every copy") {
  if (!have_go()) {
    WARN("golang-go is not installed; skipped");
    return;
  }
  auto full = ElfBinary::open(go_program("known_go"));
  auto stripped = ElfBinary::open(go_program("known_go.stripped"));
  auto noshdr = ElfBinary::open(go_program("known_go.noshdr"));
  REQUIRE((full && stripped && noshdr));
  const GoPclntab* t = full->go_pclntab();
  REQUIRE(t);
  CHECK(t->layout() == Layout::kGo118);  // Debian 12's Go 1.19
  CHECK(t->version().starts_with("go1.19"));
  const auto symbols = symtab_functions(*full, *t);
  REQUIRE(symbols.size() > 1000);
  for (const auto& [name, entry] : symbols) {
    if (name == "runtime.text" || name == "runtime.etext") continue;  // the linker's markers, not functions
    INFO(name);
    auto f = t->func_at(entry);
    REQUIRE(f);
    CHECK(f->entry == entry);
    // The pclntab writes array lengths and type arguments in names as "[...]".
    const std::string go_name = str(t->name(*f));
    const size_t elided = go_name.find("[...]");
    if (elided == std::string::npos) {
      CHECK(go_name == name);
    } else {
      CHECK(name.starts_with(go_name.substr(0, elided + 1)));
      CHECK(name.ends_with(go_name.substr(elided + 4)));
    }
  }
  // The leaf is frameless: pcsp is 0 over all its instructions (the
  // padding after its last one has no value).
  const auto leaf = func_named(*t, "main.leaf");
  size_t with_value = 0;
  for (uint64_t pc = leaf.entry; pc < leaf.end; ++pc) {
    const auto delta = t->sp_delta(leaf, pc);
    CHECK(delta.value_or(0) == 0);
    with_value += delta.has_value();
  }
  CHECK(with_value * 2 > leaf.end - leaf.entry);
  for (const ElfBinary* other : {stripped.get(), noshdr.get()}) {
    const GoPclntab* o = other->go_pclntab();
    REQUIRE(o);
    CHECK(o->size() == t->size());
    CHECK(o->has_inline_trees());
    CHECK(str(o->name(func_named(*o, "main.leaf"))) == "main.leaf");
  }
  CHECK_FALSE(noshdr->section(".gopclntab"));
}

namespace {

struct DwarfLine {
  std::string file;
  int line = 0;
  bool end = false;  // end of a sequence: no line from here
};

// Every row of every unit's line table (libdw), by address: the row at or
// before a pc gives its line. (The units' address ranges are not used:
// external linking leaves aranges for the C units only.)
std::map<uint64_t, DwarfLine> dwarf_lines(const std::string& path) {
  std::map<uint64_t, DwarfLine> rows;
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  Dwarf* dwarf = dwarf_begin(fd, DWARF_C_READ);
  REQUIRE(dwarf);
  Dwarf_Off off = 0, next = 0;
  size_t header = 0;
  while (dwarf_nextcu(dwarf, off, &next, &header, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    Dwarf_Lines* lines = nullptr;
    size_t n = 0;
    if (dwarf_offdie(dwarf, off + header, &cu) && dwarf_getsrclines(&cu, &lines, &n) == 0) {
      for (size_t i = 0; i < n; ++i) {
        Dwarf_Line* l = dwarf_onesrcline(lines, i);
        Dwarf_Addr addr = 0;
        int line = 0;
        bool end = false;
        dwarf_lineaddr(l, &addr);
        dwarf_lineno(l, &line);
        dwarf_lineendsequence(l, &end);
        const char* file = dwarf_linesrc(l, nullptr, nullptr);
        auto it = rows.find(addr);
        if (it != rows.end() && end && !it->second.end) continue;  // a sequence's end never hides another's start
        std::string name = file ? file : "";
        if (name.starts_with("./")) name.erase(0, 2);  // libdw joins a relative name to the unit's "." directory
        rows[addr] = {name, line, end};
      }
    }
    off = next;
  }
  dwarf_end(dwarf);
  ::close(fd);
  return rows;
}

}  // namespace

TEST_CASE("go_pclntab: known_go: file:line equals libdw's, sp delta + 8 equals .debug_frame's CFA offset") {
  if (!have_go()) {
    WARN("golang-go is not installed; skipped");
    return;
  }
  const std::string path = go_program("known_go");
  auto binary = ElfBinary::open(path);
  REQUIRE(binary);
  const GoPclntab* t = binary->go_pclntab();
  REQUIRE(t);
  const auto rows = dwarf_lines(path);
  REQUIRE(rows.size() > 1000);
  auto cfi = CfiTable::compile(*binary);
  size_t lines = 0, deltas = 0;
  // A few hundred pcs spread over the program's and the runtime's functions.
  for (size_t i = 0; i < t->size(); i += 3) {
    const auto f = t->func(i);
    if (!f) continue;
    const uint64_t pc = f->entry + (f->end - f->entry) * (i % 7) / 8;
    INFO(str(t->name(*f)) << " at " << std::hex << pc);
    const auto go_line = t->line(*f, pc);
    auto row = rows.upper_bound(pc);
    if (go_line && go_line->line > 0 && row != rows.begin() && !(--row)->second.end) {
      CHECK(str(go_line->file) == row->second.file);
      CHECK(go_line->line == row->second.line);
      ++lines;
    }
    const CfiRule* rule = cfi->lookup(pc);
    const auto delta = t->sp_delta(*f, pc);
    if (rule && delta && rule->cfa == CfaRule::kRspOffset) {
      CHECK(*delta + 8 == rule->cfa_offset);
      ++deltas;
    }
  }
  CHECK(lines > 200);
  CHECK(deltas > 200);
}
