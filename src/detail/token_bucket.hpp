// Internal: a token bucket (rate limits of the call pipeline and of tool policies).
#pragma once

#include <algorithm>
#include <chrono>

namespace mcp::detail {

/// Holds up to `burst` tokens, refilled at `per_second`. Not thread-safe (the owner locks).
struct token_bucket {
  double tokens = 0;
  std::chrono::steady_clock::time_point last{};

  /// A full bucket at `now`.
  static token_bucket full(double burst, std::chrono::steady_clock::time_point now) {
    return token_bucket{burst, now};
  }
  /// Refills for the time since the last call, then takes a token: 0 when there was one, else
  /// how many milliseconds until there will be (at least 1).
  long long take(double per_second, double burst, std::chrono::steady_clock::time_point now) {
    const double elapsed = std::chrono::duration<double>(now - last).count();
    tokens = std::min(burst, tokens + std::max(0.0, elapsed) * per_second);
    last = now;
    if (tokens >= 1.0) {
      tokens -= 1.0;
      return 0;
    }
    return static_cast<long long>((1.0 - tokens) / per_second * 1000.0) + 1;
  }
};

}  // namespace mcp::detail
