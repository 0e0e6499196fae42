// File: src/http/stream.hpp
//
// `response_stream`: what a session produces for one HTTP response, waiting to be written.
// It is the sans-I/O bridge between session threads (the producer: `push`) and the connection
// that writes it (the consumer: `attach`, `take`, `detach`).
//
// A POST's stream starts undecided: if the final response(s) arrive before anything else it
// becomes a plain `application/json` answer; the first related message that is not a final
// response turns it into an SSE stream. A GET stream is SSE from the start and never ends by
// itself. In SSE mode, every message event gets the id "<stream number>-<sequence>" and is
// recorded in the event store (when resumable), so a later GET with Last-Event-ID can replay
// exactly the events of this stream after that id, then continue live.
#pragma once

#include <mcp/http_server.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mcp::http_detail {

class response_stream {
 public:
  struct config {
    std::string session;                    ///< the session id (empty: not resumable)
    std::uint64_t number = 0;               ///< stream number within the session
    std::shared_ptr<event_store> store;     ///< null: not resumable
    bool standalone = false;                ///< the GET stream: SSE, never finishes by itself
    std::size_t expected_finals = 1;        ///< requests in the POST (1 unless a batch)
    bool batch = false;                     ///< the POST was a batch: JSON answer is an array
    bool force_sse = false;                 ///< SSE even when JSON would do
    bool replay = false;                    ///< an ended stream, rebuilt from the store
    bool priming = false;                   ///< start SSE with a priming event (2025-11-25)
    std::chrono::milliseconds retry{1000};  ///< sent with the priming event
    std::function<void()> on_finished{};    ///< runs once, when the stream ends (any thread)
    /// Runs once when the writer goes away before the stream ended (a 2026-07-28 client closing
    /// its stream cancels the request; any thread, no lock held).
    std::function<void()> on_abandoned{};
    /// The HTTP status of a JSON answer, from its body (2026-07-28 maps some error codes to
    /// 400 and 404); null: 200. A plain function: nothing to copy, call or destroy indirectly.
    /// Not called for an answer pushed as a result (`push`'s `is_result`): 200.
    unsigned (*json_status)(std::string_view body) = nullptr;
    /// What the callbacks above use, kept as long as the stream: they may then hold a plain
    /// pointer to it, which std::function keeps without allocating.
    std::shared_ptr<const void> keep{};
    /// A writer that falls this far behind (a client not reading) is cut off; the client may
    /// resume from the store.
    std::size_t max_pending_bytes = std::size_t{8} << 20U;
  };
  enum class mode { undecided, json, sse };

  /// What the consumer gets from `take`.
  struct taken {
    mode kind = mode::undecided;
    unsigned status = 200;     ///< json: the response's status
    std::string bytes;         ///< the JSON body (json) or encoded SSE events (sse)
    std::size_t messages = 0;  ///< message events in `bytes`
    bool finished = false;     ///< nothing more will come after `bytes`
    bool superseded = false;   ///< another connection resumed this stream: stop writing
    bool disconnect = false;   ///< write `bytes`, then end the connection (the client resumes)
  };

  explicit response_stream(config c);

  // ---- producer side (any thread) ----
  /// Adds one message; `is_result`: a final one known to be a result, whose JSON answer is
  /// 200 without `config::json_status` reading it. Thread-safe.
  void push(std::string message, bool is_final, bool is_result = false);
  /// One of the stream's requests will get no answer (the client cancelled it): it counts as
  /// answered. A stream left with no answer at all ends as an empty SSE stream. Thread-safe.
  void settle_unanswered();
  /// Ends the stream (the session ended). Thread-safe, idempotent.
  void finish();
  /// Asks the writer to end its connection after what is pending, while the stream goes on
  /// (recorded for resumption); an undecided stream becomes SSE first. False when the client
  /// could not resume: not resumable, no event id sent or to be sent, JSON, or finished.
  /// Thread-safe.
  bool request_disconnect();

  // ---- consumer side ----
  /// The JSON body of a stream that was answered before any writer attached (every answer came
  /// while the POST was handled: tools that answer inline). The stream then wants no writer.
  /// Nullopt otherwise (still undecided, SSE, or a writer attached). Thread-safe.
  std::optional<std::string> take_json_answer();
  /// Becomes the stream's writer; `waker` is called (any thread, no lock held) when there is
  /// something to take. Returns the writer's generation.
  std::uint64_t attach(std::function<void()> waker);
  /// Takes pending output: at most `max_messages` message events (0: all).
  taken take(std::uint64_t generation, std::size_t max_messages = 0);
  /// The writer went away (connection closed). Events keep being recorded for resumption.
  void detach(std::uint64_t generation);
  /// Rebuilds the pending events from the store: those after `after_seq`. False when the
  /// events are not available (not resumable, or evicted).
  bool rewind(std::uint64_t after_seq);

  [[nodiscard]] std::uint64_t number() const noexcept { return cfg_.number; }
  /// The status of the JSON answer (see `config::json_status`); 200 until there is one.
  [[nodiscard]] unsigned json_status() const;
  [[nodiscard]] bool standalone() const noexcept { return cfg_.standalone; }
  /// True while a writer is attached.
  [[nodiscard]] bool attached() const;
  [[nodiscard]] bool finished() const;
  [[nodiscard]] bool resumable() const noexcept {
    return cfg_.store != nullptr && !cfg_.session.empty();
  }

 private:
  enum class writer { none_yet, attached, gone };
  struct pending_event {
    std::string bytes;
    bool message = false;
  };

  void to_sse_locked();
  void to_json_locked(std::string body, bool is_result = false);
  void emit_locked(std::string_view message);
  std::function<void()> finish_locked();  // returns on_finished to run after unlocking
  void clear_pending_locked();
  std::string event_id(std::uint64_t seq) const;

  config cfg_;
  mutable std::mutex mu_;
  mode mode_ = mode::undecided;
  writer writer_ = writer::none_yet;
  std::uint64_t generation_ = 0;
  std::function<void()> waker_;
  // Events to write: [taken_, size()) are pending, the ones before were taken. A vector, not a
  // deque: a stream that never becomes SSE allocates nothing for it.
  std::vector<pending_event> pending_;
  std::size_t taken_ = 0;
  std::size_t pending_bytes_ = 0;
  bool cut_off_ = false;
  bool disconnect_ = false;               // request_disconnect() not yet seen by the writer
  std::vector<std::string> held_finals_;  // finals received while undecided
  std::string json_body_;
  unsigned status_ = 200;
  std::size_t finals_ = 0;
  std::uint64_t seq_ = 0;
  bool finished_ = false;
};

}  // namespace mcp::http_detail
