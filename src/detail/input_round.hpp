// Internal: one run of a handler in a 2026-07-28 input round (MRTR). The server may not send
// requests to the client in that revision, so a handler's questions (elicitation, sampling,
// roots) are collected here: a question the client has answered already (in an earlier round,
// carried in the sealed requestState, or in this retry's `inputResponses`) is answered at once;
// any other is recorded under a key and fails with `errc::input_required`. When the handler is
// done, a round with questions ends with an InputRequiredResult (rounds.hpp seals what the next
// round needs). Questions are keyed by the order the handler asks them in, so a handler that
// asks the same questions in the same order finds its answers.
#pragma once

#include <mcp/error.hpp>
#include <mcp/json.hpp>

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace mcp::detail {

class input_round {
 public:
  /// `answers`: what the client answered so far, by key; `asked`: the keys asked in earlier
  /// rounds; `saved`: the handler's own state from the round before; `caps`: the client's
  /// capabilities on this request.
  input_round(std::map<std::string, json::object, std::less<>> answers,
              std::set<std::string, std::less<>> asked, std::optional<json::value> saved,
              json::object caps)
      : answers_(std::move(answers)),
        asked_(std::move(asked)),
        saved_(std::move(saved)),
        caps_(std::move(caps)) {}

  /// A question of the handler (`method` is elicitation/create, sampling/createMessage or
  /// roots/list): the client's answer when it gave one, else `errc::input_required` (the
  /// question is kept for the InputRequiredResult). Errors: `errc::not_supported` when the
  /// client did not declare the capability the method needs on this request, or the method is
  /// not one that can be asked. Thread-safe.
  result<json::object> ask(std::string_view method, json::object params, std::string_view key);

  /// Whether the handler asked something the client has not answered.
  [[nodiscard]] bool has_questions() const {
    std::lock_guard lock(mu_);
    return !questions_.empty();
  }
  /// The unanswered questions (`inputRequests`: key → {method, params}).
  [[nodiscard]] json::object questions() const {
    std::lock_guard lock(mu_);
    return questions_;
  }
  /// The capability a question needed that the client did not declare, if any was asked for.
  [[nodiscard]] std::optional<std::string> missing_capability() const {
    std::lock_guard lock(mu_);
    return missing_;
  }
  /// Every answer kept for the next round, and the keys asked so far (this round's included).
  [[nodiscard]] std::map<std::string, json::object, std::less<>> answers() const {
    std::lock_guard lock(mu_);
    return answers_;
  }
  [[nodiscard]] std::set<std::string, std::less<>> asked() const {
    std::lock_guard lock(mu_);
    return asked_;
  }

  /// The handler's state from the round before (null in the first round).
  [[nodiscard]] const json::value* saved_state() const noexcept {
    return saved_ ? &*saved_ : nullptr;
  }
  /// The handler's state for the next round.
  void save_state(json::value v) {
    std::lock_guard lock(mu_);
    next_ = std::move(v);
  }
  [[nodiscard]] std::optional<json::value> next_state() const {
    std::lock_guard lock(mu_);
    return next_ ? next_ : saved_;
  }

  // What the round's state is bound to (rounds.cpp); set before the handler runs.
  std::string principal;
  std::string method;
  std::string digest;

 private:
  mutable std::mutex mu_;
  std::map<std::string, json::object, std::less<>> answers_;
  std::set<std::string, std::less<>> asked_;
  std::optional<json::value> saved_;
  std::optional<json::value> next_;
  json::object caps_;
  json::object questions_;
  std::optional<std::string> missing_;
  unsigned count_ = 0;
};

}  // namespace mcp::detail
