#include "rounds.hpp"

#include "detail/request_state.hpp"
#include "detail/round_state.hpp"
#include "server_core.hpp"
#include "server_session.hpp"

namespace mcp::detail {

namespace {

/// {"sampling":{}} for "sampling", {"elicitation":{"url":{}}} for "elicitation.url".
json::object capability_object(std::string_view dotted) {
  json::object out;
  json::object* at = &out;
  while (!dotted.empty()) {
    const auto dot = dotted.find('.');
    auto& next = (*at)[dotted.substr(0, dot)];
    next = json::object{};
    at = &next.get_object();
    if (dot == std::string_view::npos) break;
    dotted.remove_prefix(dot + 1);
  }
  return out;
}

}  // namespace

result<std::shared_ptr<input_round>> open_round(server_core& core, const jsonrpc::request& req,
                                                const principal& who, const json::object& caps) {
  const auto& params = req.params;
  // What the request carries into the round, found in one pass over the params.
  const json::value* state = nullptr;
  const json::value* responses = nullptr;
  for (const auto& kv : params) {
    if (kv.key() == "requestState") {
      state = &kv.value();
    } else if (kv.key() == "inputResponses") {
      responses = &kv.value();
    }
  }
  // The digest binds a sealed state to its request. A round is sealed only when the handler
  // asked a question the request's capabilities allow (input_round::ask refuses the others),
  // so a request that declares none of them and carries no state needs none.
  const bool may_seal = !caps.empty() && (caps.contains("elicitation") ||
                                          caps.contains("sampling") || caps.contains("roots"));
  if (state == nullptr && responses == nullptr && !may_seal) return nullptr;  // deferred
  std::map<std::string, json::object, std::less<>> answers;
  std::set<std::string, std::less<>> asked;
  std::optional<json::value> saved;
  const auto digest = state != nullptr || may_seal ? params_digest(params) : std::string();
  const auto key = who.key();
  if (state != nullptr) {
    if (!state->is_string()) {
      return error{errc::invalid_params, "Invalid params: requestState must be a string"};
    }
    auto opened = core.sealer.open(state->get_string(), key, req.method, digest);
    if (!opened) return opened.error();
    answers = std::move(opened->answers);
    asked = std::move(opened->asked);
    saved = std::move(opened->saved);
  }
  if (responses != nullptr) {
    if (!responses->is_object()) {
      return error{errc::invalid_params, "Invalid params: inputResponses must be an object"};
    }
    for (const auto& [k, v] : responses->get_object()) {
      if (!v.is_object()) {
        return error{errc::invalid_params,
                     "Invalid params: inputResponses." + std::string(k) + " must be an object"};
      }
      answers.insert_or_assign(std::string(k), v.get_object());  // unknown keys match nothing
    }
  }
  auto round =
      std::make_shared<input_round>(std::move(answers), std::move(asked), std::move(saved), caps);
  round->principal = key;
  round->method = req.method;
  round->digest = digest;
  return round;
}

std::optional<std::string> close_round(server_session_impl& s, const request_state& r,
                                       bool failed) {
  const auto round = r.opened_round();
  if (!round) return std::nullopt;
  if (round->has_questions()) {
    round_contents c{.principal = round->principal,
                     .method = round->method,
                     .digest = round->digest,
                     .answers = {},
                     .asked = round->asked(),
                     .saved = round->next_state(),
                     .nonce = {}};
    for (auto& [k, v] : round->answers()) {
      if (c.asked.contains(k)) c.answers.emplace(k, std::move(v));  // what may be asked again
    }
    std::string out;
    out.reserve(512);
    out += R"({"jsonrpc":"2.0","id":)";
    jsonrpc::append_id(out, r.id());
    out += R"(,"result":{"resultType":"input_required","inputRequests":)";
    append_json(out, json::value(round->questions()));
    out += R"(,"requestState":)";
    append_json_string(out, s.core().sealer.seal(std::move(c)));
    out += R"(,"_meta":{)";
    out += s.server_info_meta();
    out += "}}}";
    return out;
  }
  if (!failed) return std::nullopt;
  if (auto missing = round->missing_capability()) {
    return jsonrpc::encode_error(
        r.id(),
        error{errc::missing_required_client_capability,
              "The request needs the client capability \"" + *missing +
                  "\", which it did not declare",
              json::value(json::object{{"requiredCapabilities", capability_object(*missing)}})});
  }
  return std::nullopt;
}

}  // namespace mcp::detail
