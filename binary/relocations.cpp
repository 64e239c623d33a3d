#include "binary/relocations.h"

#include <elf.h>

#include <algorithm>
#include <optional>

#include "binary/elf_binary.h"
#include "common/byte_reader.h"

namespace swprof {
namespace {

// At most this many entries per section: a damaged size cannot make us loop for long.
constexpr size_t kMaxRelocations = 1u << 20;

// The name of symbol `index` of the symbol table `symtab` (an Elf64_Sym array
// whose sh_link is its string table); empty when anything is out of bounds.
std::string_view symbol_name(const ElfBinary& binary, const ElfSection& symtab, uint32_t index) {
  if (index == 0 || symtab.entsize < sizeof(Elf64_Sym)) return {};
  if (index >= symtab.data.size() / symtab.entsize) return {};
  ByteReader reader(symtab.data.subspan(index * symtab.entsize, sizeof(Elf64_Sym)));
  const auto name_offset = reader.read<uint32_t>();
  const auto strtab = binary.section_at_index(symtab.link);
  if (!name_offset || !strtab || *name_offset >= strtab->data.size()) return {};
  ByteReader names(strtab->data.subspan(*name_offset));
  return names.padded_string(names.remaining()).value_or(std::string_view{});
}

std::optional<Relocation> read_rela(ByteReader& reader) {
  const auto offset = reader.read<uint64_t>();
  const auto info = reader.read<uint64_t>();
  const auto addend = reader.read<int64_t>();
  if (!offset || !info || !addend) return std::nullopt;
  return Relocation{*offset, static_cast<uint32_t>(ELF64_R_TYPE(*info)), static_cast<uint32_t>(ELF64_R_SYM(*info)),
                    *addend, {}};
}

std::vector<Relocation> read_section(const ElfBinary& binary, const ElfSection& section) {
  std::vector<Relocation> out;
  if (section.type != SHT_RELA || section.entsize < sizeof(Elf64_Rela)) return out;
  const auto symtab = section.link != 0 ? binary.section_at_index(section.link) : std::nullopt;
  const size_t count = std::min(section.data.size() / section.entsize, kMaxRelocations);
  for (size_t i = 0; i < count; ++i) {
    ByteReader reader(section.data.subspan(i * section.entsize, sizeof(Elf64_Rela)));
    auto relocation = read_rela(reader);
    if (!relocation) break;
    if (symtab) relocation->symbol_name = symbol_name(binary, *symtab, relocation->symbol);
    out.push_back(*relocation);
  }
  std::stable_sort(out.begin(), out.end(), [](const Relocation& a, const Relocation& b) { return a.offset < b.offset; });
  return out;
}

const Relocation* find(const std::vector<Relocation>& sorted, uint64_t vaddr) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), vaddr,
                             [](const Relocation& r, uint64_t v) { return r.offset < v; });
  return it != sorted.end() && it->offset == vaddr ? &*it : nullptr;
}

}  // namespace

Relocations Relocations::read(const ElfBinary& binary) {
  Relocations out;
  if (auto plt = binary.section(".rela.plt")) {
    out.plt_ = read_section(binary, *plt);
    out.plt_has_symbol_table_ = plt->link != 0;
  }
  if (auto dyn = binary.section(".rela.dyn")) out.dyn_ = read_section(binary, *dyn);
  return out;
}

const Relocation* Relocations::at(uint64_t vaddr) const {
  if (const Relocation* r = find(plt_, vaddr)) return r;
  return find(dyn_, vaddr);
}

}  // namespace swprof
