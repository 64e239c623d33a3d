#include "binary/plt_entries.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "binary/elf_binary.h"
#include "binary/relocations.h"
#include "common/byte_reader.h"

namespace swprof {
namespace {

// At most this many stubs per section, whatever its size says.
constexpr uint64_t kMaxStubs = 1u << 20;

// x86: sh_entsize when it is 8 or 16, else the alignment tells (perf's get_plt_sizes).
uint64_t stub_size(const ElfSection& section) {
  if (section.entsize == 8 || section.entsize == 16) return section.entsize;
  return section.addralign == 8 ? 8 : 16;
}

// The GOT slot a stub jumps through: `[endbr64] [bnd] jmp *disp32(%rip)`
// (f3 0f 1e fa, f2, ff 25 disp32) at the stub's start; nullopt otherwise.
std::optional<uint64_t> got_slot(Bytes code, uint64_t vaddr) {
  size_t at = 0;
  if (code.size() >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && code[3] == 0xfa) at = 4;
  if (at < code.size() && code[at] == 0xf2) ++at;
  if (code.size() < at + 6 || code[at] != 0xff || code[at + 1] != 0x25) return std::nullopt;
  ByteReader reader(code.subspan(at + 2, 4));
  const auto disp = reader.read<int32_t>();
  if (!disp) return std::nullopt;
  return vaddr + at + 6 + static_cast<uint64_t>(static_cast<int64_t>(*disp));
}

std::string offset_name(uint64_t file_offset) {
  char text[40];
  std::snprintf(text, sizeof text, "offset_%#llx@plt", static_cast<unsigned long long>(file_offset));
  return text;
}

// The symbol a relocation names; for an IRELATIVE one without a symbol, the
// IFUNC resolver's symbol at its addend when the binary has symbols.
std::string_view relocation_symbol(const ElfBinary& binary, const Relocation* relocation) {
  if (!relocation) return {};
  if (!relocation->symbol_name.empty()) return relocation->symbol_name;
  if (relocation->type != kRelocX86_64IRelative) return {};
  const FunctionSymbol* ifunc = binary.function_at(static_cast<uint64_t>(relocation->addend));
  if (!ifunc || ifunc->start != static_cast<uint64_t>(relocation->addend)) return {};
  return ifunc->name;
}

PltEntry make_entry(const ElfBinary& binary, const ElfSection& section, uint64_t start, uint64_t size,
                    const Relocation* relocation) {
  PltEntry entry{start, size, "", std::string(relocation_symbol(binary, relocation))};
  entry.name = entry.symbol.empty() ? offset_name(section.offset + (start - section.addr)) : entry.symbol + "@plt";
  return entry;
}

struct StubRange {
  uint64_t first = 0;  // offset of the first stub in the section
  uint64_t size = 0;   // of one stub
  uint64_t count = 0;
};

// Stubs of `section` from `first`; each named by the relocation of the slot
// it jumps through, else (`by_order`, lazy stubs) by .rela.plt entry i.
void add_stubs(const ElfBinary& binary, const Relocations& relocations, const ElfSection& section, StubRange range,
               bool by_order, std::vector<PltEntry>& out) {
  for (uint64_t i = 0; i < range.count; ++i) {
    const uint64_t at = range.first + i * range.size;
    const uint64_t start = section.addr + at;
    const auto slot = got_slot(section.data.subspan(at, range.size), start);
    const Relocation* relocation = slot ? relocations.at(*slot) : nullptr;
    if (!relocation && by_order && i < relocations.plt().size()) relocation = &relocations.plt()[i];
    out.push_back(make_entry(binary, section, start, range.size, relocation));
  }
}

uint64_t stubs_in(const ElfSection& section, uint64_t first, uint64_t size) {
  if (section.data.size() <= first) return 0;
  return std::min((section.data.size() - first) / size, kMaxStubs);
}

// .plt's header and, without .plt.sec, its stubs (no header when the
// relocations fill the whole section, as in a static binary's IRELATIVE PLT).
void add_plt(const ElfBinary& binary, const Relocations& relocations, const ElfSection& plt, bool has_plt_sec,
             std::vector<PltEntry>& out) {
  const uint64_t size = stub_size(plt);
  if (has_plt_sec) {
    out.push_back({plt.addr, plt.data.size(), ".plt", ""});
    return;
  }
  const uint64_t nrel = relocations.plt().size();
  const uint64_t header = nrel * size == plt.data.size() ? 0 : size;
  if (header != 0) out.push_back({plt.addr, header, ".plt", ""});
  const uint64_t count = std::min(stubs_in(plt, header, size), nrel);
  add_stubs(binary, relocations, plt, {header, size, count}, true, out);
}

void add_section_stubs(const ElfBinary& binary, const Relocations& relocations, const ElfSection& section,
                       bool by_order, std::vector<PltEntry>& out) {
  const uint64_t size = stub_size(section);
  uint64_t count = stubs_in(section, 0, size);
  if (by_order) count = std::min<uint64_t>(count, relocations.plt().size());
  add_stubs(binary, relocations, section, {0, size, count}, by_order, out);
}

}  // namespace

PltEntries::PltEntries(std::vector<PltEntry> entries) : entries_(std::move(entries)) {
  std::stable_sort(entries_.begin(), entries_.end(), [](const PltEntry& a, const PltEntry& b) { return a.start < b.start; });
}

const PltEntry* PltEntries::at(uint64_t vaddr) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), vaddr,
                             [](uint64_t v, const PltEntry& e) { return v < e.start; });
  if (it == entries_.begin()) return nullptr;
  --it;
  return vaddr - it->start < it->size ? &*it : nullptr;
}

PltEntries read_plt_entries(const ElfBinary& binary) {
  const auto plt = binary.section(".plt");
  if (!plt || plt->data.empty()) return {};
  const Relocations relocations = Relocations::read(binary);
  const auto plt_sec = binary.section(".plt.sec");
  std::vector<PltEntry> out;
  add_plt(binary, relocations, *plt, plt_sec.has_value(), out);
  if (plt_sec) add_section_stubs(binary, relocations, *plt_sec, true, out);
  if (auto plt_got = binary.section(".plt.got")) add_section_stubs(binary, relocations, *plt_got, false, out);
  return PltEntries(std::move(out));
}

}  // namespace swprof
