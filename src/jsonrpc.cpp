#include <mcp/jsonrpc.hpp>

#include <charconv>
#include <cmath>

#include "jsonrpc_text.hpp"

namespace mcp::jsonrpc {

void append_id(std::string& out, const request_id& id) {
  if (const auto* n = std::get_if<std::int64_t>(&id)) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, *n);
    out.append(buf, r.ptr);
  } else {
    append_json_string(out, std::get<std::string>(id));
  }
}

std::string to_string(const request_id& id) {
  std::string s;
  append_id(s, id);
  return s;
}

std::optional<request_id> cancelled_request(std::string_view method, const json::object& params) {
  if (method != "notifications/cancelled") return std::nullopt;
  const auto* rid = params.if_contains("requestId");
  if (rid == nullptr) return std::nullopt;
  auto id = id_from_json(*rid);
  if (!id) return std::nullopt;
  return std::move(*id);
}

result<request_id> id_from_json(const json::value& v) {
  switch (v.kind()) {
    case json::kind::int64:
      return request_id{v.get_int64()};
    case json::kind::uint64:
      if (v.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
        return request_id{static_cast<std::int64_t>(v.get_uint64())};
      }
      break;
    case json::kind::string:
      return request_id{std::string(v.get_string())};
    default:
      break;
  }
  return error{errc::invalid_request, "Invalid Request: id must be a string or an integer"};
}

json::value id_to_json(const request_id& id) {
  if (const auto* n = std::get_if<std::int64_t>(&id)) return *n;
  return json::string(std::get<std::string>(id));
}

namespace {

// Cold: the compiler moves the paths that call it out of the hot code (docs/design.md).
[[gnu::cold]] decode_error invalid(std::string msg, std::optional<request_id> id = std::nullopt) {
  return decode_error{error{errc::invalid_request, "Invalid Request: " + std::move(msg)},
                      std::move(id)};
}

/// Reads an error object; nothing if it is malformed.
std::optional<error> decode_error_object(const json::value& v) {
  const auto* o = v.if_object();
  if (!o) return std::nullopt;
  const auto* code = o->if_contains("code");
  const auto* msg = o->if_contains("message");
  if (!code || !code->is_int64() || !msg || !msg->is_string()) return std::nullopt;
  error e{static_cast<int>(code->get_int64()), std::string(msg->get_string())};
  if (const auto* d = o->if_contains("data")) e.data = *d;
  return e;
}

}  // namespace

boost::system::result<message, decode_error> decode(json::value&& v) {
  auto* o = v.if_object();
  if (!o) return invalid("a message must be a JSON object");

  // Read the id first, so that later errors can be addressed to it.
  std::optional<request_id> id;
  bool has_id = false;
  if (auto* idv = o->if_contains("id")) {
    has_id = true;
    auto r = id_from_json(*idv);
    if (!r) return invalid("id must be a string or an integer, not null or fractional");
    id = std::move(*r);
  }
  const auto* ver = o->if_contains("jsonrpc");
  if (!ver || !ver->is_string() || ver->get_string() != "2.0") {
    return invalid("\"jsonrpc\" must be \"2.0\"", id);
  }

  if (auto* method = o->if_contains("method")) {
    if (!method->is_string()) return invalid("method must be a string", id);
    auto* p = o->if_contains("params");
    if (p && !p->is_object()) return invalid("params must be an object", id);
    // Moved once out of the message (a move leaves the original in the message's storage,
    // which costs a reference count), then pilfered into the request: a local may be left
    // pilfered, an element of the message may not (its key is freed through its value).
    json::object params = p ? json::object(std::move(p->get_object())) : json::object(v.storage());
    std::string m(method->get_string());
    if (has_id) {
      return {boost::system::in_place_value,
              request{std::move(*id), std::move(m), json::object(json::pilfer(params))}};
    }
    return {boost::system::in_place_value,
            notification{std::move(m), json::object(json::pilfer(params))}};
  }

  auto* res = o->if_contains("result");
  auto* err = o->if_contains("error");
  if (!res && !err) return invalid("a message needs a method, a result or an error", id);
  if (res && err) return invalid("a response cannot carry both result and error", id);
  if (!has_id) {
    if (err) {
      auto e = decode_error_object(*err);
      if (e) return message{orphan_error{std::move(*e)}};
    }
    return invalid("a response needs an id");
  }
  response r{std::move(*id), std::nullopt, std::nullopt};
  if (res) {
    r.result = std::move(*res);
  } else {
    auto e = decode_error_object(*err);
    if (!e) return invalid("error needs an integer code and a string message", r.id);
    r.err = std::move(*e);
  }
  return message{std::move(r)};
}

std::string encode_result(const request_id& id, const json::value& result) {
  std::string out = R"({"jsonrpc":"2.0","id":)";
  append_id(out, id);
  out += R"(,"result":)";
  append_json(out, result);
  out += '}';
  return out;
}

std::string encode_error(const std::optional<request_id>& id, const error& e) {
  std::string out = R"({"jsonrpc":"2.0",)";
  if (id) {
    out += R"("id":)";
    append_id(out, *id);
    out += ',';
  }
  out += R"("error":{"code":)";
  out += std::to_string(e.code);
  out += R"(,"message":)";
  append_json_string(out, e.message);
  if (e.data) {
    out += R"(,"data":)";
    append_json(out, *e.data);
  }
  out += "}}";
  return out;
}

answer_head read_answer_head(std::string_view m) noexcept {
  constexpr std::string_view start = R"({"jsonrpc":"2.0",)";
  constexpr std::string_view id_key = R"("id":)";
  constexpr std::string_view result_key = R"("result":)";
  constexpr std::string_view error_key = R"("error":{"code":)";
  answer_head h;
  if (!m.starts_with(start)) return h;
  std::size_t i = start.size();
  if (m.substr(i).starts_with(id_key)) {
    i += id_key.size();
    if (i < m.size() && m[i] == '"') {  // a string id: to its closing quote, escapes skipped
      for (++i; i < m.size() && m[i] != '"'; ++i) {
        if (m[i] == '\\') ++i;
      }
    } else {  // an integer id
      const auto first = i;
      while (i < m.size() && ((m[i] >= '0' && m[i] <= '9') || m[i] == '-')) ++i;
      if (i == first) return h;
      --i;
    }
    // `i` is at the id's last character: a comma must follow.
    if (i + 1 >= m.size() || m[i + 1] != ',') return h;
    i += 2;
  }
  const auto rest = m.substr(i);
  if (rest.starts_with(result_key)) {
    h.what = answer_head::kind::result;
    h.member = i;
  } else if (rest.starts_with(error_key)) {
    h.what = answer_head::kind::error;
    h.member = i;
    const auto* first = m.data() + i + error_key.size();
    (void)std::from_chars(first, m.data() + m.size(), h.code);
  }
  return h;
}

std::string encode_request(const request_id& id, std::string_view method,
                           const json::object& params) {
  std::string out = R"({"jsonrpc":"2.0","id":)";
  append_id(out, id);
  out += R"(,"method":)";
  append_json_string(out, method);
  out += R"(,"params":)";
  append_json(out, params);
  out += '}';
  return out;
}

std::string encode_notification(std::string_view method, const json::object& params) {
  std::string out = R"({"jsonrpc":"2.0","method":)";
  append_json_string(out, method);
  if (!params.empty()) {
    out += R"(,"params":)";
    append_json(out, params);
  }
  out += '}';
  return out;
}

std::string encode_batch(std::span<const std::string> responses) {
  if (responses.empty()) return {};
  std::size_t size = 2;
  for (const auto& r : responses) size += r.size() + 1;
  std::string out;
  out.reserve(size);
  out += '[';
  for (const auto& r : responses) {
    if (out.size() > 1) out += ',';
    out += r;
  }
  out += ']';
  return out;
}

}  // namespace mcp::jsonrpc
