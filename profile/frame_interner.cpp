#include "profile/frame_interner.h"

namespace swprof {

std::span<const uint32_t> FrameInterner::frames(const SymbolizedAddress& where, uint8_t flags) {
  const auto [at, added] = index_.try_emplace(address_key(where, flags), static_cast<uint32_t>(spans_.size()));
  if (added) spans_.push_back(intern(where, flags));
  const Span s = spans_[at];
  return {ids_.data() + s.begin, s.count};
}

FrameInterner::Span FrameInterner::intern(const SymbolizedAddress& where, uint8_t flags) {
  Span s{static_cast<uint32_t>(ids_.size()), static_cast<uint32_t>(where.frames.size())};
  for (auto it = where.frames.rbegin(); it != where.frames.rend(); ++it) {
    CctFrame f;
    f.function = display_name(*it);
    f.module = it->module;
    f.file = it->file;
    f.line = it->decl_line ? it->decl_line : it->line;
    f.flags = static_cast<uint8_t>(flags | (it->inlined ? kCctInline : 0));
    ids_.push_back(tree_.intern(f));
  }
  return s;
}

uint32_t FrameInterner::named(const std::string& function, const std::string& module, uint8_t flags) {
  CctFrame f;
  f.function = function;
  f.module = module;
  f.flags = flags;
  return tree_.intern(f);
}

}  // namespace swprof
