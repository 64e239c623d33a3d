#include "sampler/remote_memory.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "common/unique_fd.h"

namespace swprof {
namespace {

constexpr uint64_t kPage = 4096;

uint64_t next_page_or(uint64_t at, uint64_t end) { return std::min<uint64_t>((at / kPage + 1) * kPage, end); }

// process_vm_readv with one remote iovec per page: the kernel stops at the
// first iovec it cannot read whole, so a partial read ends at a page edge.
RemoteRead read_vm(pid_t pid, uint64_t addr, std::span<uint8_t> out) {
  iovec remote[kMaxRemoteRead / kPage + 1];
  size_t pieces = 0;
  const uint64_t end = addr + out.size();
  for (uint64_t at = addr; at < end; at = next_page_or(at, end))
    remote[pieces++] = {reinterpret_cast<void*>(at), next_page_or(at, end) - at};
  iovec local{out.data(), out.size()};
  const ssize_t n = process_vm_readv(pid, &local, 1, remote, pieces, 0);
  if (n > 0) return {static_cast<size_t>(n), 0};
  return {0, n == 0 ? EFAULT : errno};
}

// /proc/PID/mem: pread stops at the first unreadable page, so page by page
// to keep the bytes before it.
RemoteRead read_proc_mem(pid_t pid, uint64_t addr, std::span<uint8_t> out) {
  UniqueFd fd(::open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return {0, errno};
  size_t got = 0;
  int error = 0;
  while (got < out.size()) {
    const uint64_t at = addr + got;
    const size_t piece = next_page_or(at, addr + out.size()) - at;
    const ssize_t n = ::pread(fd.get(), out.data() + got, piece, static_cast<off_t>(at));
    if (n <= 0) {
      error = n == 0 ? EFAULT : errno;
      break;
    }
    got += static_cast<size_t>(n);
  }
  return {got, got ? 0 : error};
}

}  // namespace

RemoteRead read_remote_memory(pid_t pid, uint64_t addr, std::span<uint8_t> out) {
  if (out.empty()) return {};
  if (out.size() > kMaxRemoteRead || addr + out.size() < addr) return {0, EINVAL};
  const RemoteRead vm = read_vm(pid, addr, out);
  if (vm.bytes || vm.error != EPERM) return vm;
  const RemoteRead mem = read_proc_mem(pid, addr, out);
  // Refused both ways: say the first refusal, not /proc's (EACCES).
  return mem.bytes ? mem : RemoteRead{0, EPERM};
}

std::vector<uint8_t> read_remote_memory(pid_t pid, uint64_t addr, size_t len, int* err) {
  if (len > kMaxRemoteRead) {  // refused before anything is allocated
    if (err) *err = EINVAL;
    return {};
  }
  std::vector<uint8_t> out(len);
  const RemoteRead got = read_remote_memory(pid, addr, std::span(out));
  out.resize(got.bytes);
  if (err) *err = got.error;
  return out;
}

}  // namespace swprof
