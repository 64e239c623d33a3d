#include "support/go_pclntab_builder.h"

#include <elf.h>

#include <cstring>

#include "support/elf_image.h"

namespace swprof::testing {
namespace {

using Layout = GoPclntab::Layout;

template <typename T>
void put(std::vector<uint8_t>& out, T value) {
  const size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &value, sizeof(T));
}
template <typename T>
void put_at(std::vector<uint8_t>& out, size_t at, T value) {
  if (out.size() < at + sizeof(T)) out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &value, sizeof(T));
}

void put_uvarint(std::vector<uint8_t>& out, uint32_t v) {
  for (; v >= 0x80; v >>= 7) out.push_back(static_cast<uint8_t>(v | 0x80));
  out.push_back(static_cast<uint8_t>(v));
}

// A pc-value table (runtime.pcvalue's encoding): zig-zag value delta from
// -1, then the run's length; a 0 byte ends it. Offset 0 means none, so
// pctab starts with a 0 byte and an empty list gives offset 0.
uint32_t put_pc_table(std::vector<uint8_t>& pctab, const std::vector<GoRun>& runs) {
  if (runs.empty()) return 0;
  const uint32_t at = static_cast<uint32_t>(pctab.size());
  int32_t last = -1;
  for (const GoRun& r : runs) {
    const int32_t delta = r.value - last;
    put_uvarint(pctab, delta < 0 ? (static_cast<uint32_t>(-delta) << 1) - 1 : static_cast<uint32_t>(delta) << 1);
    put_uvarint(pctab, r.length);
    last = r.value;
  }
  pctab.push_back(0);
  return at;
}

uint32_t put_string(std::vector<uint8_t>& tab, const std::string& s) {
  const uint32_t at = static_cast<uint32_t>(tab.size());
  tab.insert(tab.end(), s.begin(), s.end());
  tab.push_back(0);
  return at;
}

uint32_t magic_of(Layout layout) {
  switch (layout) {
    case Layout::kGo116: return 0xfffffffa;
    case Layout::kGo118: return 0xfffffff0;
    case Layout::kGo120: return 0xfffffff1;
  }
  return 0;
}

void put_inline_tree(std::vector<uint8_t>& gofunc, Layout layout, std::vector<uint8_t>& names,
                     const GoFuncSpec& f) {
  for (const GoInlineSpec& in : f.inlines) {
    const int32_t name_off = static_cast<int32_t>(put_string(names, in.name));
    if (layout == Layout::kGo120) {
      put<uint32_t>(gofunc, 0);  // funcID, pad
      put<int32_t>(gofunc, name_off);
      put<int32_t>(gofunc, in.parent_pc);
      put<int32_t>(gofunc, in.file_line);
    } else {
      put<int16_t>(gofunc, -1);  // parent (unused: parentPc is followed)
      put<uint16_t>(gofunc, 0);
      put<int32_t>(gofunc, 0);  // file
      put<int32_t>(gofunc, in.file_line);
      put<int32_t>(gofunc, name_off);
      put<int32_t>(gofunc, in.parent_pc);
    }
  }
}

// One _func, its pcdata and funcdata at the end of `pcln`.
void put_func(std::vector<uint8_t>& pcln, Layout layout, uint64_t table_vaddr, uint64_t pclntable_off,
              uint64_t entry, uint64_t text_start, int32_t name_off, uint32_t cu, uint32_t pcsp, uint32_t pcfile,
              uint32_t pcline, uint32_t inline_index, uint64_t tree_at, const GoFuncSpec& f) {
  const bool inl = inline_index != 0;
  if (layout == Layout::kGo116) put<uint64_t>(pcln, entry);
  else put<uint32_t>(pcln, static_cast<uint32_t>(entry - text_start));
  put<int32_t>(pcln, name_off);
  put<int32_t>(pcln, 0);   // args
  put<uint32_t>(pcln, 0);  // deferreturn
  put<uint32_t>(pcln, pcsp);
  put<uint32_t>(pcln, pcfile);
  put<uint32_t>(pcln, pcline);
  put<uint32_t>(pcln, inl ? 3 : 0);  // npcdata
  put<uint32_t>(pcln, cu);
  if (layout == Layout::kGo120) put<int32_t>(pcln, f.start_line);
  pcln.push_back(0);  // funcID
  pcln.push_back(layout == Layout::kGo116 ? 0 : f.flag);
  pcln.push_back(0);
  pcln.push_back(inl ? 4 : 0);  // nfuncdata
  if (!inl) return;
  put<uint32_t>(pcln, 0);
  put<uint32_t>(pcln, 0);
  put<uint32_t>(pcln, inline_index);
  if (layout == Layout::kGo116) {
    if ((table_vaddr + pclntable_off + pcln.size()) & 4) put<uint32_t>(pcln, 0);
    for (int i = 0; i < 3; ++i) put<uint64_t>(pcln, 0);
    put<uint64_t>(pcln, tree_at);
  } else {
    for (int i = 0; i < 3; ++i) put<uint32_t>(pcln, ~0u);
    put<uint32_t>(pcln, static_cast<uint32_t>(tree_at));
  }
}

}  // namespace

GoTableBytes build_go_table(const GoTableSpec& spec, uint64_t text_start, uint64_t table_vaddr,
                            uint64_t gofunc_vaddr) {
  const Layout layout = spec.layout;
  const bool go116 = layout == Layout::kGo116;
  std::vector<uint8_t> names, cutab, filetab, pctab(1, 0), gofunc;
  struct Offsets {
    int32_t name;
    uint32_t cu, pcsp, pcfile, pcln, inl;
    uint64_t tree;
  };
  std::vector<Offsets> offs;
  for (const GoFuncSpec& f : spec.funcs) {
    Offsets o{};
    o.name = static_cast<int32_t>(put_string(names, f.name));
    o.cu = static_cast<uint32_t>(cutab.size() / 4);
    put<uint32_t>(cutab, put_string(filetab, f.file));
    o.pcsp = put_pc_table(pctab, f.sp);
    o.pcfile = put_pc_table(pctab, {{f.size, 0}});
    o.pcln = put_pc_table(pctab, f.lines);
    o.inl = put_pc_table(pctab, f.inline_index);
    o.tree = (go116 ? gofunc_vaddr : 0) + gofunc.size();
    put_inline_tree(gofunc, layout, names, f);
    offs.push_back(o);
  }
  // The header, then funcnametab, cutab, filetab, pctab, pclntable.
  const size_t header = go116 ? 8 + 7 * 8 : 8 + 8 * 8;
  const uint64_t funcname_off = header, cu_off = funcname_off + names.size(), file_off = cu_off + cutab.size(),
                 pctab_off = file_off + filetab.size(), pcln_off = (pctab_off + pctab.size() + 7) & ~uint64_t{7};
  const size_t n = spec.funcs.size();
  const size_t entry_size = go116 ? 16 : 8;
  std::vector<uint8_t> pcln((n + 1) * entry_size);
  uint64_t entry = text_start;
  for (size_t i = 0; i < n; ++i) {
    const GoFuncSpec& f = spec.funcs[i];
    pcln.resize((pcln.size() + 3) & ~size_t{3});
    const uint64_t funcoff = f.hole ? ~uint32_t{0} : pcln.size();
    if (go116) {
      put_at<uint64_t>(pcln, 16 * i, entry);
      put_at<uint64_t>(pcln, 16 * i + 8, funcoff);
    } else {
      put_at<uint32_t>(pcln, 8 * i, static_cast<uint32_t>(entry - text_start));
      put_at<uint32_t>(pcln, 8 * i + 4, static_cast<uint32_t>(funcoff));
    }
    const Offsets& o = offs[i];
    if (!f.hole)
      put_func(pcln, layout, table_vaddr, pcln_off, entry, text_start, o.name, o.cu, o.pcsp, o.pcfile, o.pcln,
               o.inl, o.tree, f);
    entry += f.size;
  }
  if (go116) put_at<uint64_t>(pcln, 16 * n, entry);
  else put_at<uint32_t>(pcln, 8 * n, static_cast<uint32_t>(entry - text_start));

  GoTableBytes out;
  std::vector<uint8_t>& t = out.table;
  put<uint32_t>(t, magic_of(layout));
  put<uint32_t>(t, 0x08010000);  // 0, 0, minLC 1, ptrSize 8
  put<uint64_t>(t, n);
  put<uint64_t>(t, n);  // nfiles
  if (!go116) put<uint64_t>(t, text_start);
  for (uint64_t off : {funcname_off, cu_off, file_off, pctab_off, pcln_off}) put<uint64_t>(t, off);
  t.insert(t.end(), names.begin(), names.end());
  t.insert(t.end(), cutab.begin(), cutab.end());
  t.insert(t.end(), filetab.begin(), filetab.end());
  t.insert(t.end(), pctab.begin(), pctab.end());
  t.resize(pcln_off);
  t.insert(t.end(), pcln.begin(), pcln.end());
  out.gofunc = std::move(gofunc);
  return out;
}

GoPclntabInput go_table_input(const GoTableBytes& bytes, uint64_t text_start, uint64_t table_vaddr,
                              uint64_t gofunc_vaddr) {
  GoPclntabInput in;
  in.table = bytes.table;
  in.table_vaddr = table_vaddr;
  in.text_start = text_start;
  in.gofunc = gofunc_vaddr;
  in.image.segments = {{table_vaddr, bytes.table}, {gofunc_vaddr, bytes.gofunc}};
  return in;
}

namespace {

size_t align_page(size_t n) { return (n + 0xfff) & ~size_t{0xfff}; }

void put_segment(std::vector<Elf64_Phdr>& phdrs, size_t offset, size_t size, uint32_t flags) {
  Elf64_Phdr ph{};
  ph.p_type = PT_LOAD;
  ph.p_flags = flags;
  ph.p_offset = offset;
  ph.p_vaddr = ph.p_paddr = kGoImageBase + offset;
  ph.p_filesz = ph.p_memsz = size;
  ph.p_align = 0x1000;
  phdrs.push_back(ph);
}

// .gopclntab's section header (and the null one and .shstrtab).
void put_section_headers(std::vector<uint8_t>& image, Elf64_Ehdr& eh, uint64_t table_off, size_t table_size) {
  const std::string names = std::string("\0.gopclntab\0.shstrtab\0", 22);
  const size_t names_off = image.size();
  image.insert(image.end(), names.begin(), names.end());
  image.resize((image.size() + 7) & ~size_t{7});
  eh.e_shoff = image.size();
  Elf64_Shdr null{}, table{}, strtab{};
  table.sh_name = 1;
  table.sh_type = SHT_PROGBITS;
  table.sh_flags = SHF_ALLOC;
  table.sh_addr = kGoImageBase + table_off;
  table.sh_offset = table_off;
  table.sh_size = table_size;
  strtab.sh_name = 12;
  strtab.sh_type = SHT_STRTAB;
  strtab.sh_offset = names_off;
  strtab.sh_size = names.size();
  for (const Elf64_Shdr& sh : {null, table, strtab}) put(image, sh);
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = 3;
  eh.e_shstrndx = 2;
}

}  // namespace

GoElfImage build_go_elf(const GoTableSpec& spec, bool section_headers) {
  size_t code_size = spec.code.size();
  uint64_t funcs_size = 0;
  for (const GoFuncSpec& f : spec.funcs) funcs_size += f.size;
  code_size = std::max<size_t>(code_size, funcs_size);
  const size_t code_off = 0x1000, table_off = align_page(code_off + code_size);
  GoElfImage out;
  out.text_start = kGoImageBase + code_off;
  out.table_vaddr = kGoImageBase + table_off;
  // The table's size does not depend on where gofunc lies: build twice.
  GoTableBytes bytes = build_go_table(spec, out.text_start, out.table_vaddr, 0);
  const size_t gofunc_off = align_page(table_off + bytes.table.size());
  out.gofunc_vaddr = kGoImageBase + gofunc_off;
  bytes = build_go_table(spec, out.text_start, out.table_vaddr, out.gofunc_vaddr);
  const size_t data_off = align_page(gofunc_off + std::max<size_t>(bytes.gofunc.size(), 1));

  std::vector<uint8_t>& image = out.bytes;
  image.assign(data_off + 0x1000, 0);
  std::memset(image.data() + code_off, 0xcc, code_size);
  std::memcpy(image.data() + code_off, spec.code.data(), spec.code.size());
  std::memcpy(image.data() + table_off, bytes.table.data(), bytes.table.size());
  if (!bytes.gofunc.empty()) std::memcpy(image.data() + gofunc_off, bytes.gofunc.data(), bytes.gofunc.size());
  // moduledata: pcHeader, funcnametab {ptr, len, cap}, ..., text (word 22), gofunc (38 / 40).
  const size_t md = data_off + 64;
  const uint64_t funcname_off = spec.layout == Layout::kGo116 ? 8 + 2 * 8 : 8 + 3 * 8;
  uint64_t funcname = 0;
  std::memcpy(&funcname, bytes.table.data() + funcname_off, 8);
  put_at<uint64_t>(image, md, out.table_vaddr);
  put_at<uint64_t>(image, md + 8, out.table_vaddr + funcname);
  put_at<uint64_t>(image, md + 8 * 22, out.text_start);
  put_at<uint64_t>(image, md + 8 * (spec.layout == Layout::kGo120 ? 40 : 38), out.gofunc_vaddr);

  std::vector<Elf64_Phdr> phdrs;
  put_segment(phdrs, code_off, code_size, PF_R | PF_X);
  put_segment(phdrs, table_off, bytes.table.size(), PF_R);
  put_segment(phdrs, gofunc_off, bytes.gofunc.size(), PF_R);
  put_segment(phdrs, data_off, 0x1000, PF_R | PF_W);
  Elf64_Ehdr eh = x86_64_elf_header(ET_EXEC);
  eh.e_entry = out.text_start;
  eh.e_phoff = sizeof(Elf64_Ehdr);
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = static_cast<uint16_t>(phdrs.size());
  std::memcpy(image.data() + eh.e_phoff, phdrs.data(), phdrs.size() * sizeof(Elf64_Phdr));
  if (section_headers) put_section_headers(image, eh, table_off, bytes.table.size());
  std::memcpy(image.data(), &eh, sizeof eh);
  return out;
}

GoTableSpec sample_go_table(Layout layout) {
  GoTableSpec spec;
  spec.layout = layout;
  // main.leaf: 32 bytes, no frame; main.inner inlined into main.middle
  // inlined at [8, 16), main.middle alone at [16, 24).
  GoFuncSpec leaf{"main.leaf", 32, {{32, 0}}, {{8, 10}, {8, 20}, {8, 30}, {8, 11}}, "leaf.go"};
  leaf.start_line = 9;
  leaf.inlines = {{"main.inner", 20, 19}, {"main.middle", 4, 29}};
  // index 0 (inner) calls from pc 20 in middle; middle (index 1) from pc 4 in leaf.
  leaf.inline_index = {{8, -1}, {8, 0}, {8, 1}, {8, -1}};
  // main.framed: push rbp (1); mov rbp, rsp (3); sub rsp, 24 (4); nop...; add rsp, 24 (4); pop rbp (1); ret (1)
  GoFuncSpec framed{"main.framed", 32, {{1, 0}, {7, 8}, {22, 32}, {1, 8}, {1, 0}}, {{32, 40}}, "framed.go"};
  GoFuncSpec goexit{"runtime.goexit", 16, {{16, 0}}, {{16, 1}}, "asm_amd64.s", GoPclntab::kTopFrame};
  GoFuncSpec sigtramp{"runtime.sigtramp", 16, {{16, 0}}, {{16, 2}}, "sys_linux_amd64.s",
                      GoPclntab::kTopFrame | GoPclntab::kAsm};
  GoFuncSpec systemstack{"runtime.systemstack", 16, {{16, 0}}, {{16, 3}}, "asm_amd64.s", GoPclntab::kSpWrite};
  spec.funcs = {leaf, framed, goexit, sigtramp, systemstack};
  spec.code.assign(32, 0x90);  // main.leaf: nops
  const uint8_t framed_code[] = {0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x18};
  spec.code.insert(spec.code.end(), framed_code, framed_code + sizeof framed_code);
  spec.code.resize(32 + 26, 0x90);
  const uint8_t epilogue[] = {0x48, 0x83, 0xc4, 0x18, 0x5d, 0xc3};
  spec.code.insert(spec.code.end(), epilogue, epilogue + sizeof epilogue);
  return spec;
}

}  // namespace swprof::testing
