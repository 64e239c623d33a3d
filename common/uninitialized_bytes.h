#pragma once
// A byte vector whose resize() leaves new bytes as they are instead of
// zeroing them: for buffers that are written whole right after they grow
// (a decoded stack of 32 KiB zeroed and then overwritten costs twice).

#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace swprof {

template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  using std::allocator<T>::allocator;
  // Value-initialization (resize(n), emplace_back()) becomes
  // default-initialization: for bytes, no write at all.
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

using UninitializedBytes = std::vector<uint8_t, DefaultInitAllocator<uint8_t>>;

}  // namespace swprof
