// File: mcp/redis.hpp
//
// Redis behind the SDK's store seams, target `mcp::redis` (built when hiredis is found; the core
// `mcp` target never links it). Several server processes that share one Redis share their state:
//
//   - `redis_client` (`make_redis_client`): a small thread-safe client: a pool of connections
//     that reconnects, commands with binary-safe arguments, Lua scripts run by EVALSHA (loaded
//     once, sent again with EVAL after a NOSCRIPT), pipelines, and a pub/sub subscriber (one
//     thread, re-subscribes after a reconnect). Every reply is checked (type, size limits);
//     every failure is an `mcp::result` error; nothing throws.
//   - `make_redis_task_store`: an `mcp::task_store` in Redis (compare-and-set transitions in Lua,
//     ttl by PEXPIREAT plus checks on read) whose `watch` pushes status changes made by any
//     process sharing the Redis.
//   - `make_redis_event_store`: an `mcp::event_store` in Redis streams, so that an SSE stream can
//     be resumed with Last-Event-ID on any process; bounded per stream, with a ttl per session.
//   - `make_redis_shared_state`: all of it behind `server_options::shared` (mcp/shared_state.hpp):
//     tasks, events, sessions, the input-round key and single-use records, rate limits.
//
// Every key starts with `redis_options::key_prefix`, so several services can share one Redis.
// One Redis server (or a primary); Redis Cluster is not supported.
//
// Example:
//
//   mcp::redis_options ro{.url = "redis://:secret@127.0.0.1:6379/2", .key_prefix = "svc1:"};
//   auto tasks = mcp::make_redis_task_store(ro);
//   if (!tasks) die(tasks.error().message);
//   mcp::server srv({.task_store = *tasks});
//   auto events = mcp::make_redis_event_store(ro);
//   mcp::http_server http(srv, {.events = *events});
#pragma once

#include <mcp/error.hpp>
#include <mcp/http_server.hpp>
#include <mcp/shared_state.hpp>
#include <mcp/task_store.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mcp {

/// How to reach Redis and how long to wait for it.
struct redis_options {
  /// `redis://[[user]:password@]host[:port][/db]` (port 6379, db 0 by default; the password
  /// percent-decoded; an IPv6 host in brackets) or `unix://[[user]:password@]/path[?db=N]`.
  std::string url = "redis://127.0.0.1:6379";
  std::chrono::milliseconds connect_timeout{2000};  ///< to connect, authenticate and select
  /// For one command or pipeline: waiting for a free connection, writing and reading.
  std::chrono::milliseconds command_timeout{2000};
  std::size_t pool_size = 4;        ///< connections at most (opened when first needed)
  std::string key_prefix = "mcp:";  ///< starts every key (and channel) this SDK uses
  std::size_t max_reply_bytes = std::size_t{64} << 20U;    ///< one reply's strings together
  std::size_t max_reply_elements = std::size_t{1} << 20U;  ///< one reply's array elements
};

/// A parsed `redis_options::url`.
struct redis_endpoint {
  std::string host{};         ///< TCP host (empty for a unix socket)
  std::uint16_t port = 6379;  ///< TCP port (0 for a unix socket)
  std::string unix_path{};    ///< the socket's path (empty for TCP)
  std::string user{};         ///< AUTH user (Redis 6 ACL); empty: the default user
  std::string password{};     ///< AUTH password; empty: no AUTH
  int db = 0;                 ///< SELECT index
};

/// Parses a Redis URL (see `redis_options::url`). Errors: `errc::invalid_params` naming what is
/// wrong (scheme, host, port, db, escape); URLs longer than 4 KiB are refused.
[[nodiscard]] result<redis_endpoint> parse_redis_url(std::string_view url);

/// One Redis reply (RESP2). Nested errors stay elements of kind `error`. A plain value.
struct redis_reply {
  /// RESP2's reply types: null bulk or array, integer, bulk string, simple string, error, array.
  enum class kind : std::uint8_t { nil, integer, string, status, error, array };
  kind type = kind::nil;                ///< which of the members below holds the reply
  std::int64_t integer = 0;             ///< for `integer`
  std::string str{};                    ///< for `string`, `status` and `error`
  std::vector<redis_reply> elements{};  ///< for `array`

  /// `type == kind::nil`.
  [[nodiscard]] bool is_nil() const noexcept { return type == kind::nil; }
  /// `type == kind::string` (a bulk string; not a status).
  [[nodiscard]] bool is_string() const noexcept { return type == kind::string; }
  /// `type == kind::array`.
  [[nodiscard]] bool is_array() const noexcept { return type == kind::array; }
};

/// A Lua script, run with `redis_client::eval`. Its SHA1 is learnt from SCRIPT LOAD the first
/// time a client runs it, and kept here. Thread-safe.
class redis_script {
 public:
  /// The script `source`; nothing is sent until it first runs.
  explicit redis_script(std::string source) : source_(std::move(source)) {}
  redis_script(const redis_script&) = delete;
  redis_script& operator=(const redis_script&) = delete;

  /// The Lua text.
  [[nodiscard]] const std::string& source() const noexcept { return source_; }
  /// The SHA1 Redis gave for it, or empty before any client loaded it.
  [[nodiscard]] std::string sha() const {
    const std::lock_guard lock(mu_);
    return sha_;
  }
  /// Remembers the SHA1 (set by the client after SCRIPT LOAD).
  void set_sha(std::string sha) const {
    const std::lock_guard lock(mu_);
    sha_ = std::move(sha);
  }

 private:
  std::string source_;
  mutable std::mutex mu_;
  mutable std::string sha_;
};

/// A subscription; dropping it unsubscribes. Once the destructor returns, its callback is not
/// running and will not run again (except when it is dropped from inside its own callback).
using redis_subscription = std::shared_ptr<void>;

/// A thread-safe Redis client: a pool of connections and a subscriber thread.
///
/// Errors (all results): `errc::invalid_params` for a command with no arguments;
/// `errc::connection_closed` when Redis cannot be reached or the connection broke (the command
/// may or may not have run); `errc::request_timeout` when `command_timeout` passed;
/// `errc::limit_exceeded` for a reply over the size limits; `errc::internal_error` for an error
/// reply (the message is "redis: " and Redis's text) or a reply that does not parse. A
/// connection that failed is closed; the next command opens a new one.
class redis_client {
 public:
  virtual ~redis_client() = default;

  /// Runs one command (`{"SET", key, value}`); arguments are binary-safe. A top-level error
  /// reply is an `internal_error`.
  virtual result<redis_reply> command(std::span<const std::string_view> args) = 0;
  /// The same, for a braced list.
  result<redis_reply> command(std::initializer_list<std::string_view> args) {
    return command(std::span<const std::string_view>(args.begin(), args.size()));
  }

  /// Sends several commands in one write and reads their replies (one round trip), on one
  /// connection. The outer result fails when the exchange failed; each command's own error reply
  /// is an element of kind `error`.
  virtual result<std::vector<redis_reply>> pipeline(
      std::span<const std::vector<std::string_view>> commands) = 0;

  /// Runs `script` with `keys` and `args` (EVALSHA; SCRIPT LOAD first when this client has not
  /// loaded it; EVAL when Redis answers NOSCRIPT, e.g. after a restart). An error the script
  /// raises is an `internal_error`.
  virtual result<redis_reply> eval(const redis_script& script,
                                   std::span<const std::string_view> keys,
                                   std::span<const std::string_view> args) = 0;

  /// Calls `on_message(channel, message)` for every message published to `channel` (the name is
  /// used as given: add `key_prefix()` yourself), on the client's subscriber thread (started by
  /// the first subscription; never a caller's thread). After the subscriber lost its connection
  /// and subscribed again it calls `on_message(channel, {})` with `resubscribed` set, since
  /// messages published in between are lost. The subscription is asked for at once; messages
  /// published before Redis confirmed it are not delivered (`subscribed` waits for that).
  /// Errors: none at the call (a Redis that is down is retried in the background); nullptr
  /// only when memory or a thread could not be had.
  virtual redis_subscription subscribe(
      std::string channel,
      std::function<void(std::string_view message, bool resubscribed)> on_message) = 0;

  /// Waits until every subscription made so far is confirmed by Redis, up to `timeout`. False
  /// on timeout.
  virtual bool subscribed(std::chrono::milliseconds timeout) = 0;

  /// The options' key prefix.
  [[nodiscard]] virtual const std::string& key_prefix() const noexcept = 0;
};

/// A client for `options`. Nothing is connected yet: the first command opens the first
/// connection. Errors: `errc::invalid_params` for a bad URL or a pool size of 0.
[[nodiscard]] result<std::shared_ptr<redis_client>> make_redis_client(redis_options options);

/// A task store in Redis (see mcp/task_store.hpp), keys `<prefix>task:<id>` (a hash, expiring
/// at the task's ttl), `<prefix>tasks:owner:<owner>` (creation order), `<prefix>tasks:unfinished`,
/// `<prefix>tasks:expiry`, `<prefix>tasks:seq`; status changes are published on
/// `<prefix>tasks:changed`, which `watch` subscribes to (it waits up to 500 ms for Redis to
/// confirm the subscription, so that a change made after it returns is pushed; on the client's
/// subscriber thread). A page of `list` is at most 10,000 tasks and must fit
/// `max_reply_bytes`. Several processes may share the store. Errors:
/// those of `make_redis_client`, and `errc::internal_error` when Redis does not answer PING.
[[nodiscard]] result<std::shared_ptr<task_store>> make_redis_task_store(redis_options options);
/// The same, on an existing client (sharing its pool and subscriber).
[[nodiscard]] result<std::shared_ptr<task_store>> make_redis_task_store(
    std::shared_ptr<redis_client> client);

/// Bounds of the Redis event store.
struct redis_event_store_limits {
  std::size_t max_events_per_stream = 1024;  ///< older events of a stream are dropped
  /// A session's streams are deleted this long after their last event.
  std::chrono::milliseconds session_ttl{std::chrono::hours(1)};
  /// Events written by the background writer but not yet in Redis, at most (more are dropped;
  /// a stream with a dropped event is not resumed past it).
  std::size_t max_queued_bytes = std::size_t{16} << 20U;
};

/// An event store in Redis streams: `<prefix>sse:<session>:<stream>` (entry id `<seq>-0`), and
/// `<prefix>sse:<session>` (the session's stream numbers). `append` and `erase_session` are
/// queued to a writer thread (an I/O thread never waits for Redis); `events_after` first waits
/// for this process's queued writes, then reads, and refuses (nullopt) a replay with a gap.
/// Errors: those of `make_redis_client`, and `errc::internal_error` when Redis does not answer.
[[nodiscard]] result<std::shared_ptr<event_store>> make_redis_event_store(
    redis_options options, redis_event_store_limits limits = {});
/// The same, on an existing client.
[[nodiscard]] result<std::shared_ptr<event_store>> make_redis_event_store(
    std::shared_ptr<redis_client> client, redis_event_store_limits limits = {});

/// How long what `make_redis_shared_state` keeps lives, and the event store's bounds.
struct redis_shared_state_options {
  /// A session's record lives this long after its last request (on any process); then every
  /// process answers its id with 404. Give it the HTTP servers' `session_idle_timeout`.
  std::chrono::milliseconds session_ttl{std::chrono::minutes(30)};
  redis_event_store_limits events{};  ///< the SSE event store's bounds
};

/// Everything several server processes share (mcp/shared_state.hpp), in one Redis, on one
/// client: the task store (`make_redis_task_store`), the event store
/// (`make_redis_event_store`), session records `<prefix>session:<id>` (a string, expiring
/// `session_ttl` after the last request), the input-round key `<prefix>rounds:key` (32 random
/// bytes, set by the first process; read once, when this is made), single-use records
/// `<prefix>rounds:used:<nonce>` (expiring with their state), and token buckets
/// `<prefix>rate:<caller>` (a hash, refilled by Redis's clock in a script, so every process
/// agrees). Errors: those of `make_redis_client`, and `errc::internal_error` when Redis does not
/// answer or the stored key is not 32 bytes.
[[nodiscard]] result<std::shared_ptr<shared_state>> make_redis_shared_state(
    redis_options options, redis_shared_state_options more = {});
/// The same, on an existing client.
[[nodiscard]] result<std::shared_ptr<shared_state>> make_redis_shared_state(
    std::shared_ptr<redis_client> client, redis_shared_state_options more = {});

}  // namespace mcp
