#include "profile/held_samples.h"

namespace swprof {

size_t HeldSample::bytes() const {
  // A name within the string's own buffer (short string) keeps nothing more.
  const size_t name = comm.capacity() > std::string().capacity() ? comm.capacity() + 1 : 0;
  return sizeof(HeldSample) + unwound.walk.frames.capacity() * sizeof(Frame) +
         unwound.kernel_ips.capacity() * sizeof(uint64_t) +
         user_symbols.capacity() * sizeof(const SymbolizedAddress*) + name;
}

}  // namespace swprof
