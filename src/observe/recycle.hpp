// Internal: a per-thread free list for the state an observer keeps with each span, so that
// starting and ending spans on a thread reuses the same few blocks instead of asking malloc
// each time. A class derives `recycled<itself>`; `new` and `delete` of it go through the list
// (at most `Keep` blocks kept per thread; a block freed on another thread than the one that
// made it joins that thread's list). Thread-safe: each list is its thread's own.
#pragma once

#include <array>
#include <cstddef>
#include <new>

namespace mcp::detail {

template <class T, std::size_t Keep = 64>
class recycled {
 public:
  static void* operator new(std::size_t n) {
    if (n == sizeof(T) && alive()) {
      auto& l = list();
      if (l.count > 0) return l.items[--l.count];
    }
    return ::operator new(n);
  }
  static void operator delete(void* p, std::size_t n) noexcept {
    if (n == sizeof(T) && alive()) {
      auto& l = list();
      if (l.count < Keep) {
        l.items[l.count++] = p;
        return;
      }
    }
    ::operator delete(p);
  }

 private:
  struct free_list {
    std::array<void*, Keep> items{};
    std::size_t count = 0;
    free_list() { state() = 1; }
    ~free_list() {
      state() = 2;  // the thread ends: blocks freed after this go back to malloc
      for (std::size_t i = 0; i < count; ++i) ::operator delete(items[i]);
    }
  };
  /// 0: the list was not made yet on this thread; 1: it lives; 2: it is gone.
  static unsigned char& state() noexcept {
    thread_local unsigned char s = 0;
    return s;
  }
  static bool alive() noexcept { return state() != 2; }
  static free_list& list() {
    thread_local free_list l;
    return l;
  }
};

}  // namespace mcp::detail
