// The tracer's ids (span_ids.hpp). W3C Trace Context asks ids to be unique and random, not
// secret: a span's ids travel in clear in `_meta` and grant nothing. So they come from two
// wyrand streams per thread (Wang Yi's Weyl sequence through a 64×64→128-bit multiply: one
// multiply an id word, no system call), their 128 bits of state drawn from getrandom(2) when the
// thread makes its first id and again in a child after fork(2) (which would otherwise repeat the
// parent's ids). A trace id takes a word of each stream: the pair of states, not one stream's 64
// bits, is what two threads' trace ids would have to share to repeat one, as the 128 bits of a
// random id.
#include "observe/span_ids.hpp"

#include <chrono>
#include <cstring>

#include "detail/random.hpp"
#include <unistd.h>

namespace mcp::observe::detail {
namespace {

__extension__ using u128 = unsigned __int128;

/// One wyrand stream: the state walks a Weyl sequence (period 2^64), each word is the state
/// mixed by a full multiply.
struct wyrand {
  std::uint64_t s;

  std::uint64_t next() noexcept {
    s += 0xa0761d6478bd642fULL;
    const u128 m = static_cast<u128>(s) * (s ^ 0xe7037ed1a0b428dbULL);
    return static_cast<std::uint64_t>(m >> 64U) ^ static_cast<std::uint64_t>(m);
  }
};

/// A thread's two streams (`hi` makes span ids and trace ids' first half, `lo` their second)
/// and the fork generation they were seeded in (0: never). Trivially made: no guard on a
/// thread's first use.
struct thread_streams {
  wyrand hi;
  wyrand lo;
  std::uint64_t generation;
};

constinit thread_local thread_streams this_thread{};

/// Seeds this thread's streams for the fork generation `now`: out of line, so that the usual
/// call keeps few registers. When the kernel refuses getrandom(2) (a sandbox's filter), the
/// seed is the clock, the process id and the thread's address, mixed: ids then stay unique
/// without being unpredictable, which is all a span's ids need; the call never throws.
[[gnu::noinline, gnu::cold]] void seed(thread_streams& t, std::uint64_t now) noexcept {
  std::array<std::uint64_t, 2> w{};
  try {
    mcp::detail::random_bytes(w.data(), sizeof w);
  } catch (...) {
    const auto ticks = static_cast<std::uint64_t>(
        std::chrono::high_resolution_clock::now().time_since_epoch().count());
    wyrand mix{ticks ^ (static_cast<std::uint64_t>(::getpid()) << 32U)};
    mix.s ^= reinterpret_cast<std::uintptr_t>(&t);
    w = {mix.next(), mix.next()};
  }
  t = {{w[0]}, {w[1]}, now};
}

}  // namespace

void fast_ids(std::array<std::uint8_t, 16>* trace, std::array<std::uint8_t, 8>& span) noexcept {
  auto& t = this_thread;
  if (const auto now = mcp::detail::fork_generation(); t.generation != now) [[unlikely]] {
    seed(t, now);
  }
  wyrand hi = t.hi;
  if (trace != nullptr) {
    wyrand lo = t.lo;
    std::array<std::uint64_t, 2> w{};
    do {
      w = {hi.next(), lo.next()};
    } while ((w[0] | w[1]) == 0);
    std::memcpy(trace->data(), w.data(), trace->size());
    t.lo = lo;
  }
  std::uint64_t w = 0;
  do {
    w = hi.next();
  } while (w == 0);
  std::memcpy(span.data(), &w, span.size());
  t.hi = hi;
}

}  // namespace mcp::observe::detail
