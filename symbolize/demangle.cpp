#include "symbolize/demangle.h"

// libiberty.h declares basename() itself unless told that the C library
// does (three states: undefined, 0 or 1).
#define HAVE_DECL_BASENAME 1
#include <libiberty/demangle.h>

#include <array>
#include <cctype>
#include <csetjmp>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace swprof {
namespace {

// abi::__cxa_demangle's options: function parameters, and types.
constexpr int kOptions = DMGL_PARAMS | DMGL_TYPES;

// Where the demangler writes: `limit` bytes at `data`. A piece that does not
// fit ends the demangling with a longjmp out of the demangler, which holds
// nothing to release: its callback interface allocates nothing, its tree is
// on the stack.
struct BoundedText {
  char* data = nullptr;
  size_t size = 0;
  size_t limit = 0;
  std::jmp_buf full;
};

void append_piece(const char* piece, size_t n, void* opaque) {
  auto* text = static_cast<BoundedText*>(opaque);
  if (n > text->limit - text->size) std::longjmp(text->full, 1);
  std::memcpy(text->data + text->size, piece, n);
  text->size += n;
}

// True when `name` was demangled whole into `text`. Nothing between the
// setjmp and the longjmp has a destructor (this frame, the demangler's C
// frames, append_piece).
bool demangle_into(const char* name, BoundedText& text) {
  if (setjmp(text.full) != 0) return false;
  return cplus_demangle_v3_callback(name, kOptions, append_piece, &text) != 0;
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// The subtrees of node `c` as demangle.h lays them out: names, operators,
// built-in types, standard substitutions, parameters, characters and
// numbers have none; a few kinds keep one in a member of their own; every
// other kind a left and a right (either may be null).
std::array<const demangle_component*, 2> subtrees(const demangle_component& c) {
  switch (c.type) {
    case DEMANGLE_COMPONENT_NAME:
    case DEMANGLE_COMPONENT_OPERATOR:
    case DEMANGLE_COMPONENT_BUILTIN_TYPE:
    case DEMANGLE_COMPONENT_EXTENDED_BUILTIN_TYPE:
    case DEMANGLE_COMPONENT_SUB_STD:
    case DEMANGLE_COMPONENT_TEMPLATE_PARAM:
    case DEMANGLE_COMPONENT_FUNCTION_PARAM:
    case DEMANGLE_COMPONENT_UNNAMED_TYPE:
    case DEMANGLE_COMPONENT_CHARACTER:
    case DEMANGLE_COMPONENT_NUMBER: return {};
    case DEMANGLE_COMPONENT_EXTENDED_OPERATOR: return {c.u.s_extended_operator.name, nullptr};
    case DEMANGLE_COMPONENT_FIXED_TYPE: return {c.u.s_fixed.length, nullptr};
    case DEMANGLE_COMPONENT_CTOR: return {c.u.s_ctor.name, nullptr};
    case DEMANGLE_COMPONENT_DTOR: return {c.u.s_dtor.name, nullptr};
    case DEMANGLE_COMPONENT_DEFAULT_ARG:
    case DEMANGLE_COMPONENT_LAMBDA: return {c.u.s_unary_num.sub, nullptr};
    default: return {c.u.s_binary.left, c.u.s_binary.right};
  }
}

// How many nodes the tree at `root` spans when a shared subtree (a
// back-reference) counts each time it is used, or nullopt when that is
// more than `limit`, or a subtree is outside `nodes` or the tree loops
// (neither happens in a tree the demangler built). Depth-first without
// recursion: the tree is as deep as the name is long.
std::optional<uint64_t> unfolded_size(const demangle_component* root, std::span<const demangle_component> nodes,
                                      uint64_t limit) {
  enum State : uint8_t { kNew, kOpen, kDone };
  std::vector<State> state(nodes.size(), kNew);
  std::vector<uint64_t> size(nodes.size(), 0);
  const auto index = [&](const demangle_component* c) -> std::optional<size_t> {
    if (c < nodes.data() || c >= nodes.data() + nodes.size()) return std::nullopt;
    return static_cast<size_t>(c - nodes.data());
  };
  struct Visit {
    size_t node;
    size_t next_subtree;
  };
  std::vector<Visit> stack;
  const std::optional<size_t> first = index(root);
  if (!first) return std::nullopt;
  stack.push_back({*first, 0});
  state[*first] = kOpen;
  while (!stack.empty()) {
    Visit& v = stack.back();
    const auto sub = subtrees(nodes[v.node]);
    if (v.next_subtree < sub.size()) {
      const demangle_component* c = sub[v.next_subtree++];
      if (!c) continue;
      const std::optional<size_t> i = index(c);
      if (!i || state[*i] == kOpen) return std::nullopt;
      if (state[*i] == kNew) {
        state[*i] = kOpen;
        stack.push_back({*i, 0});
      }
      continue;
    }
    uint64_t total = 1;
    for (const demangle_component* c : sub)
      if (c) total += size[static_cast<size_t>(c - nodes.data())];
    if (total > limit) return std::nullopt;
    size[v.node] = total;
    state[v.node] = kDone;
    stack.pop_back();
  }
  return size[*first];
}

// Whether `name` may hold a pack expansion: `Dp` (a type) or `sp` (an
// expression), or letters of an identifier that look so.
bool may_expand_packs(std::string_view name) {
  return name.find("Dp") != std::string_view::npos || name.find("sp") != std::string_view::npos;
}

// `name` without the clone suffixes GCC appends (".isra.0", ".cold"): a dot,
// then letters, digits and underscores, at its end.
std::string_view without_clone_suffixes(std::string_view name) {
  for (;;) {
    const size_t dot = name.rfind('.');
    if (dot == std::string_view::npos || dot + 1 == name.size()) return name;
    for (const char c : name.substr(dot + 1))
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return name;
    name = name.substr(0, dot);
  }
}

// True when the demangler's tree of `name` spans at most `limit` nodes with
// every back-reference followed at each use. The component interface that
// gives the tree leaves the parser's state for unresolved names (`sr`)
// unset (its callback interface sets it): a name that may hold one (the
// letters, outside its clone suffixes) is not parsed so, and fails.
bool tree_within(const char* name, size_t length, uint64_t limit) {
  if (without_clone_suffixes(std::string_view(name, length)).find("sr") != std::string_view::npos) return false;
  void* nodes = nullptr;
  const demangle_component* root = cplus_demangle_v3_components(name, kOptions, &nodes);
  const std::unique_ptr<void, FreeDeleter> owner(nodes);
  if (!root) return false;
  // The parser takes its nodes from one array of twice as many as the name
  // has characters.
  const std::span<const demangle_component> all(static_cast<const demangle_component*>(nodes), 2 * length);
  return unfolded_size(root, all, limit).has_value();
}

}  // namespace

std::string demangle(const char* name) {
  if (!name) return {};
  if (name[0] != '_' || name[1] != 'Z') return name;
  const size_t length = std::strlen(name);
  if (length > kMaxMangledLength) return name;
  const size_t limit = length * kMaxDemangledRatio;
  if (may_expand_packs(std::string_view(name, length)) && !tree_within(name, length, limit)) return name;
  std::string out(limit, '\0');
  BoundedText text;
  text.data = out.data();
  text.limit = limit;
  if (!demangle_into(name, text)) return name;
  out.resize(text.size);
  return out;
}

}  // namespace swprof
