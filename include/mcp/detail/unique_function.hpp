// File: mcp/detail/unique_function.hpp
//
// `mcp::unique_function<R(A...)>`: a function wrapper like std::function that also holds
// move-only callables (a lambda capturing a std::unique_ptr, a reply, a socket). The SDK's
// handler types are unique_functions, so handlers may own what they capture. Like
// std::function, calling is const even when the target is a mutable lambda; callables of up to
// three pointers that move without throwing are stored in place (no allocation).
//
// Example:
//
//   auto conn = std::make_unique<db_connection>(...);
//   mcp::unique_function<int(int)> f = [c = std::move(conn)](int x) { return c->query(x); };
//   int y = f(3);
#pragma once

#include <cstddef>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

namespace mcp {

template <class Signature>
class unique_function;

namespace detail {
template <class F>
struct is_std_function : std::false_type {};
template <class S>
struct is_std_function<std::function<S>> : std::true_type {};
}  // namespace detail

/// A move-only, type-erased callable with signature `R(A...)`. Empty when default-constructed,
/// made from nullptr or moved from; calling an empty one throws std::bad_function_call.
/// Thread-safety: calling concurrently is as safe as calling the target concurrently.
template <class R, class... A>
class unique_function<R(A...)> {
 public:
  unique_function() noexcept = default;
  unique_function(std::nullptr_t) noexcept {}  // NOLINT: implicit, like std::function
  /// Wraps `f`. A null function pointer or an empty std::function makes an empty wrapper.
  template <class F, class D = std::decay_t<F>>
  requires(!std::is_same_v<D, unique_function> && std::is_invocable_r_v<R, D&, A...>)
      unique_function(F&& f) {  // NOLINT: implicit, like std::function
    if constexpr (std::is_pointer_v<std::remove_reference_t<F>> ||
                  std::is_member_pointer_v<std::remove_reference_t<F>>) {
      if (f == nullptr) return;
    } else if constexpr (detail::is_std_function<D>::value) {
      if (!f) return;
    }
    if constexpr (fits_in_place<D>) {
      ::new (static_cast<void*>(&storage_)) D(std::forward<F>(f));
      ops_ = &ops_for<D, true>;
    } else {
      *reinterpret_cast<D**>(&storage_) = new D(std::forward<F>(f));
      ops_ = &ops_for<D, false>;
    }
  }
  unique_function(unique_function&& other) noexcept : ops_(other.ops_) {
    if (ops_ != nullptr) ops_->move(&other.storage_, &storage_);
    other.ops_ = nullptr;
  }
  unique_function& operator=(unique_function&& other) noexcept {
    if (this != &other) {
      reset();
      ops_ = other.ops_;
      if (ops_ != nullptr) ops_->move(&other.storage_, &storage_);
      other.ops_ = nullptr;
    }
    return *this;
  }
  unique_function& operator=(std::nullptr_t) noexcept {
    reset();
    return *this;
  }
  unique_function(const unique_function&) = delete;
  unique_function& operator=(const unique_function&) = delete;
  ~unique_function() { reset(); }

  /// Calls the target. Throws std::bad_function_call when empty, and whatever the target throws.
  R operator()(A... a) const {
    if (ops_ == nullptr) throw std::bad_function_call();
    return ops_->call(const_cast<void*>(static_cast<const void*>(&storage_)),
                      std::forward<A>(a)...);
  }
  explicit operator bool() const noexcept { return ops_ != nullptr; }
  friend bool operator==(const unique_function& f, std::nullptr_t) noexcept { return !f; }

 private:
  struct storage_t {
    alignas(std::max_align_t) unsigned char bytes[3 * sizeof(void*)];
  };
  struct ops {
    R (*call)(void*, A&&...);
    void (*move)(void* from, void* to) noexcept;
    void (*destroy)(void*) noexcept;
  };
  template <class D>
  static constexpr bool fits_in_place =
      sizeof(D) <= sizeof(storage_t) &&
      alignof(storage_t) % alignof(D) == 0 && std::is_nothrow_move_constructible_v<D>;
  template <class D, bool InPlace>
  static D* target(void* s) noexcept {
    if constexpr (InPlace) {
      return std::launder(reinterpret_cast<D*>(s));
    } else {
      return *reinterpret_cast<D**>(s);
    }
  }
  template <class D, bool InPlace>
  static constexpr ops ops_for{[](void* s, A&&... a) -> R {
                                 return std::invoke(*target<D, InPlace>(s), std::forward<A>(a)...);
                               },
                               [](void* from, void* to) noexcept {
                                 if constexpr (InPlace) {
                                   D* f = target<D, true>(from);
                                   ::new (to) D(std::move(*f));
                                   f->~D();
                                 } else {
                                   *reinterpret_cast<D**>(to) = *reinterpret_cast<D**>(from);
                                 }
                               },
                               [](void* s) noexcept {
                                 if constexpr (InPlace) {
                                   target<D, true>(s)->~D();
                                 } else {
                                   delete target<D, false>(s);
                                 }
                               }};

  void reset() noexcept {
    if (ops_ != nullptr) ops_->destroy(&storage_);
    ops_ = nullptr;
  }

  storage_t storage_{};
  const ops* ops_ = nullptr;
};

}  // namespace mcp
