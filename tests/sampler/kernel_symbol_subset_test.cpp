#include "sampler/kernel_symbol_subset.h"

#include <catch2/catch.hpp>

#include "symbolize/kernel_symbols.h"

using namespace swprof;

namespace {

// A kallsyms text out of order as the kernel lists modules, with aliases,
// a data symbol ending a function, an absolute symbol and a module.
constexpr const char* kKallsyms =
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 T _text\n"
    "ffffffff81000100 t helper\n"
    "ffffffff81000180 d some_data\n"
    "ffffffff81000200 T do_syscall_64\n"
    "0000000000000000 A fixed_percpu_data\n"
    "ffffffff81000400 T vfs_write\n"
    "ffffffffc0001000 t ext4_write\t[ext4]\n"
    "ffffffffc0000800 t ext4_read\t[ext4]\n"
    "ffffffff81000600 T ksys_write\n";

std::string name_at(const KernelSymbols& k, uint64_t addr) {
  auto hit = k.find(addr);
  return hit ? std::string(hit->name) + " " + std::string(hit->module) + "+" + std::to_string(hit->offset) : "(none)";
}

}  // namespace

TEST_CASE("kernel symbol subset: the sampled addresses are named as the whole kallsyms names them",
          "[kernel_symbol_subset]") {
  const std::unordered_set<uint64_t> sampled = {0xffffffff81000010, 0xffffffff81000120, 0xffffffff810001a0,
                                                0xffffffff81000210, 0xffffffffc0000900, 0xffffffffc0001004,
                                                0xffffffff81000650, 0xffffffff80000000};
  const std::string subset = kallsyms_subset(kKallsyms, sampled);
  const KernelSymbols whole = KernelSymbols::parse(kKallsyms);
  const KernelSymbols kept = KernelSymbols::parse(subset);
  for (uint64_t addr : sampled) {
    INFO(std::hex << addr << "\n" << subset);
    CHECK(name_at(kept, addr) == name_at(whole, addr));
  }
  CHECK(name_at(kept, 0xffffffffc0001004) == "ext4_write [ext4]+4");
  CHECK(name_at(kept, 0xffffffff810001a0) == "(none)");  // in the data symbol
  CHECK(name_at(kept, 0xffffffff81000650) == "ksys_write [kernel]+80");  // the last symbol
  // Only the lines those addresses need: vfs_write is sampled nowhere but
  // ends do_syscall_64; ext4_read's successor ext4_write is sampled.
  CHECK(subset.find("vfs_write") != std::string::npos);
  CHECK(subset.find("fixed_percpu_data") == std::string::npos);
  CHECK(std::count(subset.begin(), subset.end(), '\n') == 9);  // all but the absolute symbol
  const std::string few = kallsyms_subset(kKallsyms, {0xffffffff81000210});
  CHECK(few == "ffffffff81000200 T do_syscall_64\nffffffff81000400 T vfs_write\n");
}

TEST_CASE("kernel symbol subset: nothing when kallsyms hides its addresses or nothing is sampled",
          "[kernel_symbol_subset]") {
  CHECK(kallsyms_subset("0000000000000000 T _stext\n0000000000000000 T do_syscall_64\n", {0xffffffff81000010}).empty());
  CHECK(kallsyms_subset(kKallsyms, {}).empty());
  CHECK(kallsyms_subset("", {0xffffffff81000010}).empty());
}
