#pragma once
// RAII owner of a libelf handle.

#include <libelf.h>

#include <memory>

namespace swprof {

struct ElfDeleter {
  void operator()(Elf* e) const { elf_end(e); }
};
using ElfPtr = std::unique_ptr<Elf, ElfDeleter>;

}  // namespace swprof
