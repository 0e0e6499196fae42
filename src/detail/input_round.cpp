#include "detail/input_round.hpp"

#include "detail/request_state.hpp"

namespace mcp::detail {

result<json::object> input_round::ask(std::string_view what, json::object params,
                                      std::string_view key) {
  std::string_view kind;
  if (what == "elicitation/create") {
    kind = "elicitation";
  } else if (what == "sampling/createMessage") {
    kind = "sampling";
  } else if (what == "roots/list") {
    kind = "roots";
  } else {
    return error{errc::not_supported,
                 std::string(what) +
                     " cannot be asked of a 2026-07-28 client (only "
                     "elicitation/create, sampling/createMessage and roots/list)"};
  }
  auto missing = missing_client_capability(what, params, caps_);
  std::lock_guard lock(mu_);
  if (missing) {
    if (!missing_) missing_ = *missing;
    return error{errc::not_supported, "the client did not declare the \"" + *missing +
                                          "\" capability needed for " + std::string(what)};
  }
  std::string k(key);
  ++count_;
  if (k.empty()) {
    k = kind;
    k += '-';
    k += std::to_string(count_);
  }
  asked_.emplace(k);
  if (auto it = answers_.find(k); it != answers_.end()) return it->second;
  questions_[k] = json::object{{"method", what}, {"params", std::move(params)}};
  return error{errc::input_required,
               std::string(what) +
                   " goes to the client first: the request is answered with "
                   "input_required, and the client sends it again with the answer"};
}

}  // namespace mcp::detail
