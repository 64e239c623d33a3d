#include "symbolize/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace swprof {
namespace {

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};

}  // namespace

std::string demangle(const char* name) {
  if (!name) return {};
  if (name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  std::unique_ptr<char, FreeDeleter> out(abi::__cxa_demangle(name, nullptr, nullptr, &status));
  if (status != 0 || !out) return name;
  return out.get();
}

}  // namespace swprof
