#include "common/error.h"

#include <cstring>

namespace swprof {

std::string errno_text(int err) {
  char buf[256];
  // GNU strerror_r returns a pointer that may or may not point into buf.
  const char* text = strerror_r(err, buf, sizeof buf);
  return text;
}

}  // namespace swprof
