#include "binary/capstone_library.h"

#include <dlfcn.h>

#include <atomic>
#include <future>
#include <optional>
#include <system_error>

namespace swprof {
namespace {

struct Loaded {
  std::optional<CapstoneLibrary> library;
  std::string problem;
};

// `before` + the library's soname + `after`, appended to one named string
// (GCC 12 warns, wrongly, of -Warray-bounds in operator+ on a temporary
// string there: its bug 105329).
std::string with_soname(const char* before, const char* after) {
  std::string text(before);
  text.append(SWPROF_CAPSTONE_SONAME);
  text.append(after);
  return text;
}

template <typename F>
bool find(void* handle, const char* name, F& out, std::string& problem) {
  out = reinterpret_cast<F>(dlsym(handle, name));
  if (!out && problem.empty()) problem = with_soname("", " has no ").append(name);
  return out != nullptr;
}

Loaded load() {
  Loaded out;
  // Never closed: decoders may live until exit.
  void* handle = dlopen(SWPROF_CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    out.problem = why ? why : with_soname("cannot load ", "");
    return out;
  }
  CapstoneLibrary l;
  bool all = find(handle, "cs_open", l.open, out.problem);
  all &= find(handle, "cs_option", l.option, out.problem);
  all &= find(handle, "cs_close", l.close, out.problem);
  all &= find(handle, "cs_malloc", l.malloc, out.problem);
  all &= find(handle, "cs_free", l.free, out.problem);
  all &= find(handle, "cs_disasm_iter", l.disasm_iter, out.problem);
  all &= find(handle, "cs_insn_group", l.insn_group, out.problem);
  all &= find(handle, "cs_regs_access", l.regs_access, out.problem);
  if (all) out.library = l;
  return out;
}

const Loaded& loaded() {
  static const Loaded once = load();
  return once;
}

std::atomic<bool> asked{false};  // capstone_library() was called

}  // namespace

const CapstoneLibrary* capstone_library() {
  asked.store(true, std::memory_order_relaxed);
  const Loaded& l = loaded();
  return l.library ? &*l.library : nullptr;
}

std::string capstone_load_problem() {
  return asked.load(std::memory_order_relaxed) ? loaded().problem : std::string();
}

std::string capstone_package() {
  const std::string soname = SWPROF_CAPSTONE_SONAME;
  const size_t so = soname.find(".so.");
  return so == std::string::npos ? soname : soname.substr(0, so) + soname.substr(so + 4);
}

void preload_capstone() {
  static std::future<void> loading = [] {
    try {
      return std::async(std::launch::async, [] { loaded(); });
    } catch (const std::system_error&) {
      return std::future<void>();  // no thread to spare: the first decoder loads it
    }
  }();
}

}  // namespace swprof
