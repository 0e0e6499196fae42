// The tracer's ids (span_ids.hpp). W3C Trace Context asks ids to be unique and random, not
// secret: a span's ids travel in clear in `_meta` and grant nothing. So they come from
// xoshiro256** (256 bits of state per thread, a few nanoseconds an id, no system call), its
// state drawn from getrandom(2) when the thread makes its first id and again in a child after
// fork(2) (which would otherwise repeat the parent's ids).
#include "observe/span_ids.hpp"

#include <cstring>

#include "detail/random.hpp"

namespace mcp::observe::detail {
namespace {

constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept {
  return (x << static_cast<unsigned>(k)) | (x >> static_cast<unsigned>(64 - k));
}

/// xoshiro256** (Blackman and Vigna): `next` on a state held in locals, so that the ids of one
/// span cost one load and one store of the thread's state.
struct xoshiro {
  std::array<std::uint64_t, 4> s;

  std::uint64_t next() noexcept {
    const std::uint64_t out = rotl(s[1] * 5, 7) * 9;
    const std::uint64_t t = s[1] << 17U;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
  }
};

class generator {
 public:
  /// This thread's state, seeded first when it never was or a fork happened since.
  xoshiro load() {
    const auto now = mcp::detail::fork_generation();
    if (generation_ != now) seed(now);
    return state_;
  }
  void store(const xoshiro& x) noexcept { state_ = x; }

 private:
  void seed(std::uint64_t now) {
    do {
      mcp::detail::random_bytes(state_.s.data(), sizeof state_.s);
    } while ((state_.s[0] | state_.s[1] | state_.s[2] | state_.s[3]) ==
             0);  // xoshiro's fixed point
    generation_ = now;
  }

  xoshiro state_{};
  std::uint64_t generation_ = 0;  // 0: never seeded
};

generator& this_thread_generator() {
  thread_local generator g;
  return g;
}

}  // namespace

void fast_ids(std::array<std::uint8_t, 16>* trace, std::array<std::uint8_t, 8>& span) {
  auto& g = this_thread_generator();
  auto x = g.load();
  if (trace != nullptr) {
    std::array<std::uint64_t, 2> w{};
    do {
      w = {x.next(), x.next()};
    } while ((w[0] | w[1]) == 0);
    std::memcpy(trace->data(), w.data(), trace->size());
  }
  std::uint64_t w = 0;
  do {
    w = x.next();
  } while (w == 0);
  std::memcpy(span.data(), &w, span.size());
  g.store(x);
}

}  // namespace mcp::observe::detail
