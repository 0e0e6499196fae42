#include "detail/input_round.hpp"

#include "detail/request_state.hpp"

namespace mcp::detail {

result<json::object> input_round::ask(std::string_view method, json::object params) {
  std::string_view kind;
  if (method == "elicitation/create") {
    kind = "elicitation";
  } else if (method == "sampling/createMessage") {
    kind = "sampling";
  } else if (method == "roots/list") {
    kind = "roots";
  } else {
    return error{errc::not_supported,
                 std::string(method) +
                     " cannot be asked of a 2026-07-28 client (only "
                     "elicitation/create, sampling/createMessage and roots/list)"};
  }
  auto missing = missing_client_capability(method, params, caps_);
  std::lock_guard lock(mu_);
  if (missing) {
    if (!missing_) missing_ = *missing;
    return error{errc::not_supported, "the client did not declare the \"" + *missing +
                                          "\" capability needed for " + std::string(method)};
  }
  std::string key(kind);
  key += '-';
  key += std::to_string(++count_);
  if (auto it = answers_.find(key); it != answers_.end()) return it->second;
  questions_[key] = json::object{{"method", method}, {"params", std::move(params)}};
  return error{errc::input_required,
               std::string(method) +
                   " goes to the client first: the request is answered with "
                   "input_required, and the client sends it again with the answer"};
}

}  // namespace mcp::detail
