// The tracer's ids (span_ids.hpp). W3C Trace Context asks ids to be unique and random, not
// secret: a span's ids travel in clear in `_meta` and grant nothing. So they come from
// xoshiro256** (256 bits of state per thread, a few nanoseconds an id, no system call), its
// state drawn from getrandom(2) when the thread makes its first id and again in a child after
// fork(2) (which would otherwise repeat the parent's ids).
#include "observe/span_ids.hpp"

#include <atomic>
#include <cstring>

#include "detail/random.hpp"
#include <pthread.h>

namespace mcp::observe::detail {
namespace {

/// Bumped in every forked child: a thread's generator made before it reseeds.
std::atomic<std::uint64_t> fork_generation{1};

void after_fork_in_child() { fork_generation.fetch_add(1, std::memory_order_relaxed); }

[[maybe_unused]] const int fork_hook = ::pthread_atfork(nullptr, nullptr, &after_fork_in_child);

constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept {
  return (x << static_cast<unsigned>(k)) | (x >> static_cast<unsigned>(64 - k));
}

class generator {
 public:
  std::uint64_t next() {
    const auto now = fork_generation.load(std::memory_order_relaxed);
    if (generation_ != now) seed(now);
    const std::uint64_t out = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17U;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return out;
  }

 private:
  void seed(std::uint64_t now) {
    do {
      mcp::detail::random_bytes(s_.data(), sizeof s_);
    } while ((s_[0] | s_[1] | s_[2] | s_[3]) == 0);  // the one state xoshiro cannot leave
    generation_ = now;
  }

  std::array<std::uint64_t, 4> s_{};
  std::uint64_t generation_ = 0;  // 0: never seeded
};

generator& this_thread_generator() {
  thread_local generator g;
  return g;
}

}  // namespace

std::array<std::uint8_t, 16> fast_trace_id() {
  auto& g = this_thread_generator();
  std::array<std::uint64_t, 2> w{};
  do {
    w = {g.next(), g.next()};
  } while ((w[0] | w[1]) == 0);
  std::array<std::uint8_t, 16> out{};
  std::memcpy(out.data(), w.data(), out.size());
  return out;
}

std::array<std::uint8_t, 8> fast_span_id() {
  auto& g = this_thread_generator();
  std::uint64_t w = 0;
  do {
    w = g.next();
  } while (w == 0);
  std::array<std::uint8_t, 8> out{};
  std::memcpy(out.data(), &w, out.size());
  return out;
}

}  // namespace mcp::observe::detail
