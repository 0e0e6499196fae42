#include "detail/random.hpp"

#include <atomic>
#include <cerrno>
#include <system_error>
#include <vector>

#include <pthread.h>
#include <sys/random.h>

namespace mcp::detail {

namespace {

std::atomic<std::uint64_t> generation{1};

void after_fork_in_child() { generation.fetch_add(1, std::memory_order_relaxed); }

[[maybe_unused]] const int fork_hook = ::pthread_atfork(nullptr, nullptr, &after_fork_in_child);

}  // namespace

std::uint64_t fork_generation() noexcept { return generation.load(std::memory_order_relaxed); }

void random_bytes(void* out, std::size_t n) {
  auto* p = static_cast<unsigned char*>(out);
  std::size_t got = 0;
  while (got < n) {
    const auto r = ::getrandom(p + got, n - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "getrandom");
    }
    got += static_cast<std::size_t>(r);
  }
}

std::string random_hex(std::size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  random_bytes(raw.data(), raw.size());
  static constexpr char hex[] = "0123456789abcdef";
  std::string id;
  id.reserve(2 * bytes);
  for (const unsigned char b : raw) {
    id += hex[b >> 4U];
    id += hex[b & 0xFU];
  }
  return id;
}

}  // namespace mcp::detail
