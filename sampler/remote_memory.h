#pragma once
// The one way swprof reads another process's memory: the stacks of blocked
// threads at an attach, of threads read by `swprof dump`, and the rest of a
// truncated stack the recorder reads right after a sample (stack_extender).
//
// process_vm_readv, one iovec per page, so that a read the end of a mapping
// cuts short keeps the bytes before it (the kernel transfers whole iovecs);
// when process_vm_readv is refused (EPERM: some kernels or security modules
// allow it only through /proc), /proc/PID/mem, page by page as well.

#include <sys/types.h>

#include <cstdint>
#include <span>
#include <vector>

namespace swprof {

// The most one read may ask for: 256 pages, far below process_vm_readv's
// limit of 1024 iovecs.
inline constexpr size_t kMaxRemoteRead = size_t{1} << 20;

struct RemoteRead {
  size_t bytes = 0;  // read from the start of the range; the rest of the buffer is untouched
  // 0 when some byte was read (or none was asked for); else why nothing was:
  // EFAULT (the address is not mapped or not readable), ESRCH (no such
  // process), EPERM (refused both ways), EINVAL (more than kMaxRemoteRead
  // asked, or a range that wraps around the address space).
  int error = 0;
};

// Up to out.size() bytes of process `pid`'s memory at `addr`, into `out`,
// stopping at the first page that cannot be read.
RemoteRead read_remote_memory(pid_t pid, uint64_t addr, std::span<uint8_t> out);

// The same into a vector of the bytes read; *err (when given) as RemoteRead::error.
std::vector<uint8_t> read_remote_memory(pid_t pid, uint64_t addr, size_t len, int* err = nullptr);

}  // namespace swprof
