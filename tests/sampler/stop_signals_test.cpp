#include "sampler/stop_signals.h"

#include <signal.h>

#include <catch2/catch.hpp>

using namespace swprof;

namespace {

bool handler_is_default(int sig) {
  struct sigaction now = {};
  sigaction(sig, nullptr, &now);
  return now.sa_handler == SIG_DFL;
}

}  // namespace

TEST_CASE("a stop signal is caught and named, and the old handlers come back", "[signals]") {
  REQUIRE(handler_is_default(SIGUSR2));
  {
    StopSignals signals;
    CHECK_FALSE(StopSignals::requested());
    CHECK(StopSignals::reason() == "interrupted");
    CHECK_FALSE(handler_is_default(SIGUSR2));
    raise(SIGUSR2);
    CHECK(StopSignals::requested());
    CHECK(StopSignals::reason() == "interrupted by SIGUSR2");
  }
  CHECK(handler_is_default(SIGUSR2));
  {
    StopSignals signals;  // a new session starts with no request
    CHECK_FALSE(StopSignals::requested());
    raise(SIGINT);
    CHECK(StopSignals::reason() == "interrupted");
  }
}
