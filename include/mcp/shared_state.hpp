// File: mcp/shared_state.hpp
//
// What several server processes serving one service share, behind one seam:
// `server_options::shared`. Set it, and every process that has the same shared state serves
// every client, whichever process a request reaches:
//
//   - the task store (`server_options::task_store`, unless set too);
//   - Streamable HTTP's event store (`http_server_options::events`, unless set too), so an SSE
//     stream is resumed with Last-Event-ID on any process;
//   - 2025-11-25 sessions: the negotiated version, the client's capabilities, the log level and
//     the resource subscriptions, saved when they change, so that a session opened on one
//     process is served by another (which opens its own copy of it on the first request);
//   - 2026-07-28 input rounds: the key that seals their state (unless `input_rounds` names one)
//     and, with `single_use`, the records of states used already;
//   - the rate limits of `mcp::rate_limit`, counted once for all processes;
//   - messages between the processes (`publish`, `listen`): a client's answer to a request a
//     handler on another process made, a message for the session's GET stream held by another
//     process, list_changed and resources/updated for every process's listeners.
//
// The SDK's implementation is Redis (`make_redis_shared_state` in mcp/redis.hpp, target
// mcp::redis); this header names no Redis, and without `server_options::shared` nothing changes.
//
// Example:
//
//   auto shared = mcp::make_redis_shared_state({.url = "redis://127.0.0.1:6379"});
//   if (!shared) die(shared.error().message);
//   mcp::server srv({.shared = *shared});         // tasks, sessions, rounds, limits
//   mcp::http_server http(srv, {.port = 8080});   // and SSE events, from the server's options
#pragma once

#include <mcp/error.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace mcp {

class task_store;   // mcp/task_store.hpp
class event_store;  // mcp/http_server.hpp

/// The state server processes of one service share. Implementations are thread-safe; every
/// method may be called from I/O threads and handler threads at once, must not throw, and
/// should answer within a few hundred microseconds (sessions and rate limits are looked up
/// on the request's path).
class shared_state {
 public:
  virtual ~shared_state() = default;

  /// The shared task store, or null (the server then keeps tasks as without shared state).
  [[nodiscard]] virtual std::shared_ptr<task_store> tasks() = 0;
  /// The shared SSE event store, or null.
  [[nodiscard]] virtual std::shared_ptr<event_store> events() = 0;

  /// Saves session `id`'s record (an opaque text the SDK writes and reads back), replacing the
  /// one saved before; it lives as long as the session is used (see `touch_session`).
  virtual result<void> save_session(std::string_view id, std::string_view record) = 0;
  /// Session `id`'s record; nullopt when there is none (never saved, ended, expired).
  [[nodiscard]] virtual result<std::optional<std::string>> load_session(std::string_view id) = 0;
  /// Marks session `id` as used now (its record lives on); false when it has no record any
  /// more (another process ended it, or it expired).
  virtual result<bool> touch_session(std::string_view id) = 0;
  /// Forgets session `id`'s record (the client ended the session).
  virtual void erase_session(std::string_view id) = 0;

  /// The 32-byte key sealing 2026-07-28 input-round state, the same in every process.
  [[nodiscard]] virtual std::string sealing_key() const = 0;
  /// Records the use of a single-use round state (`nonce`, kept until `expires`): true the
  /// first time, false when some process recorded it already.
  virtual result<bool> first_use(std::string_view nonce,
                                 std::chrono::system_clock::time_point expires) = 0;

  /// Takes a token from the bucket `key` (holding up to `burst`, refilled at `per_second`),
  /// shared by every process: 0 when one was taken, else the milliseconds until one will be.
  virtual result<long long> take_token(std::string_view key, double per_second, double burst) = 0;

  /// Sends `message` to every process listening on `topic` (this one included), at most once
  /// each; a process not listening at that moment never gets it. Errors: the message could not
  /// be sent. The default (a shared state that carries no messages) answers `not_supported`, so
  /// that each process then tells only its own clients.
  virtual result<void> publish(std::string_view topic, std::string_view message) {
    (void)topic;
    (void)message;
    return error{errc::not_supported, "this shared state carries no messages"};
  }
  /// Calls `on_message` with each message published on `topic` by any process, on a thread of
  /// the shared state (never the caller's), one at a time (what one thread published in turn
  /// arrives in turn). Returns once the process receives (or after a bounded wait); dropping the
  /// handle stops it, and once its destructor returned `on_message` does not run any more.
  /// Null: this shared state carries no messages (the default).
  [[nodiscard]] virtual std::shared_ptr<void> listen(
      std::string_view topic, std::function<void(std::string_view message)> on_message) {
    (void)topic;
    (void)on_message;
    return nullptr;
  }
};

}  // namespace mcp
