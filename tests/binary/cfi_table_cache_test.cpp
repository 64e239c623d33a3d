#include "binary/cfi_table_cache.h"

#include <catch2/catch.hpp>

#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "support/elf_files.h"

using namespace swprof;
using namespace swprof::testing;

TEST_CASE("CfiTableCache compiles each binary once across threads", "[cfi]") {
  auto cache = std::make_shared<CfiTableCache>();
  std::shared_ptr<const ElfBinary> a = open_binary(SWPROF_CFI_FIXTURE);
  std::shared_ptr<const ElfBinary> b = open_binary(SWPROF_CFI_FIXTURE_NOHDR);
  std::vector<std::thread> threads;
  std::vector<const LazyCfiTable*> seen(16);
  for (size_t i = 0; i < seen.size(); ++i)
    threads.emplace_back([&, i] { seen[i] = cache->get(i % 2 ? b : a).get(); });
  for (auto& t : threads) t.join();
  std::set<const LazyCfiTable*> distinct(seen.begin(), seen.end());
  CHECK(distinct.size() == 2);
  CHECK(cache->compiled() == 2);
  CHECK(cache->get(a).get() == seen[0]);
  CHECK(cache->get(nullptr) != nullptr);
  CHECK(cache->get(nullptr)->empty());
}
