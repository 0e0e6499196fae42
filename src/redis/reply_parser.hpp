// Internal: RESP replies read from bytes with hiredis's parser, built into `redis_reply` values by
// our own object functions, which enforce the limits (elements and string bytes per reply), with
// the unparsed input bounded too. Sans-I/O: the connection feeds it what it reads; the fuzz
// target feeds it anything.
#pragma once

#include <mcp/error.hpp>
#include <mcp/redis.hpp>

#include <cstddef>
#include <optional>
#include <string_view>

struct redisReader;

namespace mcp::redis_detail {

class reply_parser {
 public:
  struct limits {
    std::size_t max_bytes;     ///< string bytes in one reply, and unparsed input buffered
    std::size_t max_elements;  ///< array elements in one reply
  };

  explicit reply_parser(limits l);
  reply_parser(const reply_parser&) = delete;
  reply_parser& operator=(const reply_parser&) = delete;
  ~reply_parser();

  /// Hands over bytes read. Errors: `limit_exceeded` when more than `max_bytes` (plus a read's
  /// worth) would wait unparsed; `internal_error` when the parser is out of memory. After an
  /// error the parser is unusable (the connection must be closed).
  result<void> feed(std::string_view bytes);

  /// The next complete reply, or nothing when more bytes are needed. Errors: `internal_error`
  /// for a protocol error, `limit_exceeded` for a reply over the limits.
  result<std::optional<redis_reply>> next();

  /// True when no byte of a next reply is buffered.
  [[nodiscard]] bool idle() const noexcept;

  /// What `next` is limited by (for the object functions).
  struct budget {
    limits lim;
    std::size_t bytes = 0;
    std::size_t elements = 0;
    const char* exceeded = nullptr;  ///< set by an object function that refused
  };

 private:
  budget budget_;
  redisReader* reader_ = nullptr;
  bool failed_ = false;
};

}  // namespace mcp::redis_detail
