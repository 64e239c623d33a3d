#pragma once
// An ELF note list as /sys/kernel/notes holds it (Elf64_Nhdr, the name and
// the description, each padded to 4 bytes): a "Linux" note, then the GNU
// build-id note holding `id`. What a fake running kernel's notes file holds.

#include <cstdint>
#include <string>
#include <vector>

namespace swprof::testing {

inline std::string kernel_notes_with_build_id(const std::vector<uint8_t>& id) {
  std::string out;
  const auto note = [&out](uint32_t type, const std::string& name, const std::string& desc) {
    const uint32_t sizes[3] = {static_cast<uint32_t>(name.size()), static_cast<uint32_t>(desc.size()), type};
    out.append(reinterpret_cast<const char*>(sizes), sizeof sizes);
    out += name;
    out.append((4 - name.size() % 4) % 4, '\0');
    out += desc;
    out.append((4 - desc.size() % 4) % 4, '\0');
  };
  note(6, std::string("Linux\0", 6), "abcd");
  note(3, std::string("GNU\0", 4), std::string(id.begin(), id.end()));  // NT_GNU_BUILD_ID
  return out;
}

}  // namespace swprof::testing
