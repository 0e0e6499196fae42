// Internal: per-thread free lists, so that starting and ending spans on a thread reuses the same
// few blocks instead of asking malloc each time. `this_thread_own<L>()` is the thread's own `L`,
// made on first use and null once the thread's own objects are being destroyed (what the span
// recorder's spare records use, tracing.cpp). A class derives `recycled<itself>`; `new` and
// `delete` of it go through such a list (at most `Keep` blocks kept per thread; a block freed on
// another thread than the one that made it joins that thread's list). Thread-safe: each list is
// its thread's own.
#pragma once

#include <array>
#include <cstddef>
#include <new>

namespace mcp::detail {

/// This thread's own `L`, made on first use; null once this thread's objects are being destroyed
/// (then `L` is gone or going: callers fall back to malloc), and null when making it threw (tried
/// again at the next call). Never throws.
template <class L>
L* this_thread_own() noexcept {
  struct holder {
    L value;
    holder() = default;
    ~holder() { gone() = true; }  // set before `value` is destroyed
    holder(const holder&) = delete;
    holder& operator=(const holder&) = delete;
    static bool& gone() noexcept {
      thread_local bool g = false;
      return g;
    }
  };
  if (holder::gone()) return nullptr;
  try {
    thread_local holder h;
    return &h.value;
  } catch (...) {  // out of memory making it: no list this time
    return nullptr;
  }
}

template <class T, std::size_t Keep = 64>
class recycled {
 public:
  static void* operator new(std::size_t n) {
    if (n == sizeof(T)) {
      if (auto* l = this_thread_own<free_list>(); l != nullptr && l->count > 0) {
        return l->items[--l->count];
      }
    }
    return ::operator new(n);
  }
  static void operator delete(void* p, std::size_t n) noexcept {
    if (n == sizeof(T)) {
      if (auto* l = this_thread_own<free_list>(); l != nullptr && l->count < Keep) {
        l->items[l->count++] = p;
        return;
      }
    }
    ::operator delete(p);
  }

 private:
  struct free_list {
    std::array<void*, Keep> items{};
    std::size_t count = 0;
    free_list() = default;
    free_list(const free_list&) = delete;
    free_list& operator=(const free_list&) = delete;
    ~free_list() {  // the thread ends: blocks freed after this go back to malloc
      for (std::size_t i = 0; i < count; ++i) ::operator delete(items[i]);
    }
  };
};

}  // namespace mcp::detail
