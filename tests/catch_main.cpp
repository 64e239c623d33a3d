#define CATCH_CONFIG_MAIN
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <optional>

#include "support/temp_dir.h"

namespace {

// Every test case runs with XDG_CACHE_HOME in a folder of its own, removed
// when it ends: swprof (run by the test, or called in its process) keeps
// binaries in its build-id cache under $XDG_CACHE_HOME/swprof, and must
// never touch the cache of whoever runs the tests (tests/system_state.py
// checks ~/.cache/swprof).
class TestCacheHome : public Catch::TestEventListenerBase {
 public:
  using TestEventListenerBase::TestEventListenerBase;
  void testCaseStarting(const Catch::TestCaseInfo&) override {
    home_.emplace();
    setenv("XDG_CACHE_HOME", home_->path().c_str(), 1);
  }
  void testCaseEnded(const Catch::TestCaseStats&) override { home_.reset(); }

 private:
  std::optional<swprof::testing::TempDir> home_;
};

}  // namespace

CATCH_REGISTER_LISTENER(TestCacheHome)
