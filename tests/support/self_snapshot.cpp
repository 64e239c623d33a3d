#include "support/self_snapshot.h"

#include <algorithm>
#include <cstring>

#include "recording/build_id.h"
#include "sampler/proc.h"
#include "symbolize/frame_location.h"

namespace swprof::testing {

std::shared_ptr<ProcessMaps> self_maps(BinaryCache& binaries) {
  auto maps = std::make_shared<ProcessMaps>();
  auto vdso = read_own_vdso();
  if (!vdso.empty()) binaries.add_image("[vdso]", vdso);
  for (const ProcMapping& pm : parse_proc_maps(read_text_file("/proc/self/maps").value_or(""))) {
    if (pm.perms.size() < 3 || pm.perms[2] != 'x') continue;
    const BuildId id = pm.path == "[vdso]" ? BuildId{} : read_build_id(pm.path).value_or(BuildId{});
    maps->add(resolve_mapping(binaries, pm.start, pm.end, pm.offset, pm.path, true, id));
  }
  return maps;
}

namespace {

// Copies live stack bytes, including other frames' redzones: invisible to
// AddressSanitizer, which would otherwise flag reading them.
__attribute__((no_sanitize_address)) void copy_live_stack(uint8_t* dst, uint64_t from, size_t n) {
  const volatile uint8_t* src = reinterpret_cast<const volatile uint8_t*>(from);
  for (size_t i = 0; i < n; ++i) dst[i] = src[i];
}

}  // namespace

SelfSnapshot capture_self(size_t max_stack) {
  SelfSnapshot s;
  uint64_t rip, rsp, rbp, rbx, r12, r13, r14, r15;
  asm volatile(
      "lea 0(%%rip), %0\n\t"
      "mov %%rsp, %1\n\t"
      "mov %%rbp, %2\n\t"
      "mov %%rbx, %3\n\t"
      "mov %%r12, %4\n\t"
      "mov %%r13, %5\n\t"
      "mov %%r14, %6\n\t"
      "mov %%r15, %7\n\t"
      : "=r"(rip), "=r"(rsp), "=r"(rbp), "=r"(rbx), "=r"(r12), "=r"(r13), "=r"(r14), "=r"(r15));
  // Copy up to the end of the stack mapping.
  uint64_t stack_end = rsp + max_stack;
  for (const ProcMapping& pm : parse_proc_maps(read_text_file("/proc/self/maps").value_or("")))
    if (rsp >= pm.start && rsp < pm.end) stack_end = std::min(stack_end, pm.end);
  s.stack.resize(stack_end - rsp);
  copy_live_stack(s.stack.data(), rsp, s.stack.size());
  s.regs.set(kRip, rip);
  s.regs.set(kRsp, rsp);
  s.regs.set(kRbp, rbp);
  s.regs.set(kRbx, rbx);
  s.regs.set(kR12, r12);
  s.regs.set(kR13, r13);
  s.regs.set(kR14, r14);
  s.regs.set(kR15, r15);
  s.binaries = std::make_shared<BinaryCache>();
  s.maps = self_maps(*s.binaries);
  return s;
}

std::string function_name_at(uint64_t pc, bool exact, const ProcessMaps& maps) {
  const Frame frame{pc, 0, StepperKind::kSample, static_cast<uint8_t>(exact ? kFrameExactPc : 0)};
  std::string name = locate_frame(maps, frame).function;
  return name.empty() ? "?" : name;
}

std::vector<std::string> frame_names(const std::vector<Frame>& frames, const ProcessMaps& maps) {
  std::vector<std::string> names;
  for (const Frame& f : frames) names.push_back(function_name_at(f.pc, f.flags & kFrameExactPc, maps));
  return names;
}

ProcessMaps fixture_maps(std::shared_ptr<const ElfBinary> binary, uint64_t load) {
  Mapping m;
  m.start = load + 0x1000;
  m.end = load + 0x2000;
  m.file_offset = 0x1000;
  m.binary = std::move(binary);
  m.bias = load;
  m.executable = true;
  ProcessMaps maps;
  maps.add(std::move(m));
  return maps;
}

}  // namespace swprof::testing
