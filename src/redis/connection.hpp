// Internal: one connection to Redis. hiredis connects it (TCP with TCP_NODELAY, or a unix
// socket, under the connect timeout); reading and writing are ours: the socket is written with
// send(MSG_NOSIGNAL) and read with recv, each wait a poll bounded by the operation's deadline, so
// a Redis that stops answering costs at most the timeout, and replies go through the bounded
// `reply_parser`. A connection that failed once is `broken` and must be discarded: a reply may
// still be on its way.
#pragma once

#include <mcp/error.hpp>
#include <mcp/redis.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "redis/reply_parser.hpp"

struct redisContext;

namespace mcp::redis_detail {

using steady = std::chrono::steady_clock;

/// Appends the RESP encoding of one command (an array of bulk strings) to `out`.
void encode_command(std::string& out, std::span<const std::string_view> args);

/// A top-level error reply as an error ("redis: " and Redis's text).
[[nodiscard]] error error_reply(const redis_reply& r);

class connection {
 public:
  /// Connects, then AUTH and SELECT when the endpoint asks for them, all before
  /// `connect_timeout`. Errors: `connection_closed` (cannot connect, refused credentials),
  /// `request_timeout`.
  static result<std::unique_ptr<connection>> open(const redis_endpoint& ep,
                                                  const redis_options& opts);

  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;
  ~connection();

  /// Writes `commands` at once and reads one reply for each (error replies included as they
  /// are), before `deadline`. On failure the connection is broken.
  result<std::vector<redis_reply>> exchange(std::span<const std::vector<std::string_view>> commands,
                                            steady::time_point deadline);
  /// One command (error replies as they are).
  result<redis_reply> exchange_one(std::span<const std::string_view> args,
                                   steady::time_point deadline);

  /// Writes one command without waiting for its reply (pub/sub).
  result<void> send(std::span<const std::string_view> args, steady::time_point deadline);
  /// Reads what the socket has now (never waits). False when nothing was there.
  result<bool> read_available();
  /// The next complete reply already read, if any.
  result<std::optional<redis_reply>> next_reply();

  /// False when the connection failed, or when Redis closed it (or sent something unasked)
  /// while it sat idle in the pool.
  [[nodiscard]] bool usable() const;
  [[nodiscard]] int fd() const noexcept;
  /// True once an operation failed on it.
  [[nodiscard]] bool broken() const noexcept { return broken_; }

 private:
  connection(redisContext* ctx, const redis_options& opts);
  /// Writes `out_` and reads `n` replies into `replies`.
  result<void> round_trip(std::vector<redis_reply>& replies, std::size_t n,
                          steady::time_point deadline);
  result<void> write_all(std::string_view bytes, steady::time_point deadline);
  /// Waits for the socket to be readable or writable (`events`) until `deadline`.
  result<void> wait(short events, steady::time_point deadline);
  error fail(error e);

  redisContext* ctx_;
  reply_parser parser_;
  std::string out_;
  std::string in_;
  bool broken_ = false;
};

}  // namespace mcp::redis_detail
