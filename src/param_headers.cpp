#include "param_headers.hpp"

#include <mcp/content.hpp>

#include <charconv>
#include <stdexcept>

#include "detail/ascii.hpp"

namespace mcp::detail {

namespace {

constexpr std::string_view sentinel_open = "=?base64?";
constexpr std::string_view sentinel_close = "?=";

bool is_tchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

error mismatch(std::string msg) { return error{errc::header_mismatch, std::move(msg)}; }

}  // namespace

std::vector<param_header> param_headers_of(const json::object& input_schema,
                                           std::string_view tool) {
  std::vector<param_header> out;
  const auto* props = input_schema.if_contains("properties");
  if (props == nullptr || !props->is_object()) return out;
  auto fail = [&](const std::string& why) {
    throw std::invalid_argument("tool \"" + std::string(tool) + "\": x-mcp-header " + why);
  };
  for (const auto& [name, prop] : props->get_object()) {
    const auto* o = prop.if_object();
    const auto* h = o != nullptr ? o->if_contains("x-mcp-header") : nullptr;
    if (h == nullptr) continue;
    const std::string where = "on property \"" + std::string(name) + "\"";
    if (!h->is_string() || h->get_string().empty()) fail(where + " must be a non-empty string");
    const std::string_view hv = h->get_string();
    for (const char c : hv) {
      if (!is_tchar(c)) fail(where + " is not a header name token: \"" + std::string(hv) + "\"");
    }
    for (const auto& seen : out) {
      if (iequals(seen.header, hv))
        fail(where + " repeats the header name \"" + seen.header + "\"");
    }
    const auto* type = o->if_contains("type");
    param_header p{.property = std::string(name), .header = std::string(hv)};
    if (type != nullptr && *type == "string") {
      p.type = param_header::kind::string;
    } else if (type != nullptr && *type == "integer") {
      p.type = param_header::kind::integer;
    } else if (type != nullptr && *type == "boolean") {
      p.type = param_header::kind::boolean;
    } else {
      fail(where + " needs \"type\" string, integer or boolean");
    }
    out.push_back(std::move(p));
  }
  return out;
}

namespace {
/// `v` without leading and trailing spaces and tabs; nothing when it holds a control character
/// or a byte outside ASCII (those must be encoded).
std::optional<std::string_view> trimmed_header_value(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  for (const char c : v) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) return std::nullopt;  // controls and non-ASCII must be encoded
  }
  return v;
}

bool is_sentinel(std::string_view v) {
  return v.size() >= sentinel_open.size() + sentinel_close.size() && v.starts_with(sentinel_open) &&
         v.ends_with(sentinel_close);
}
}  // namespace

std::optional<std::string> decode_header_value(std::string_view value) {
  const auto v = trimmed_header_value(value);
  if (!v) return std::nullopt;
  if (is_sentinel(*v)) {
    return base64_decode(
        v->substr(sentinel_open.size(), v->size() - sentinel_open.size() - sentinel_close.size()));
  }
  return std::string(*v);
}

bool header_value_is(std::string_view value, std::string_view want) {
  // The usual case first, in one pass: the value is `want` as it is, every byte plain (no
  // control, nothing outside ASCII), no space or tab at either end, and not the sentinel form.
  if (value.size() == want.size() && !value.empty() && value.front() != ' ' &&
      value.front() != '\t' && value.back() != ' ' && value.back() != '\t' && !is_sentinel(value)) {
    bool same = true;
    for (std::size_t i = 0; i < value.size() && same; ++i) {
      const auto u = static_cast<unsigned char>(value[i]);
      same = value[i] == want[i] && u >= 0x20 && u < 0x7f;
    }
    if (same) return true;
  }
  const auto v = trimmed_header_value(value);
  if (!v) return false;
  if (!is_sentinel(*v)) return *v == want;
  const auto decoded = decode_header_value(*v);
  return decoded && *decoded == want;
}

std::string encode_header_value(std::string_view value) {
  bool plain = !(value.size() >= sentinel_open.size() + sentinel_close.size() &&
                 value.starts_with(sentinel_open) && value.ends_with(sentinel_close));
  if (!value.empty() && (value.front() == ' ' || value.front() == '\t' || value.back() == ' ' ||
                         value.back() == '\t')) {
    plain = false;
  }
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) plain = false;
  }
  if (plain) return std::string(value);
  std::string out(sentinel_open);
  out += base64_encode(value);
  out += sentinel_close;
  return out;
}

std::vector<std::pair<std::string, std::string>> param_header_values(
    const std::vector<param_header>& params, const json::object& arguments) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& p : params) {
    const auto* arg = arguments.if_contains(p.property);
    if (arg == nullptr || arg->is_null()) continue;
    std::string value;
    if (p.type == param_header::kind::string && arg->is_string()) {
      value = encode_header_value(arg->get_string());
    } else if (p.type == param_header::kind::integer && arg->is_int64()) {
      value = std::to_string(arg->get_int64());
    } else if (p.type == param_header::kind::integer && arg->is_uint64()) {
      value = std::to_string(arg->get_uint64());
    } else if (p.type == param_header::kind::boolean && arg->is_bool()) {
      value = arg->get_bool() ? "true" : "false";
    } else {
      continue;
    }
    out.emplace_back("Mcp-Param-" + p.header, std::move(value));
  }
  return out;
}

std::optional<error> check_param_headers(
    const std::vector<param_header>& params, const json::object& arguments,
    const std::function<std::optional<std::string_view>(std::string_view)>& header) {
  for (const auto& p : params) {
    const std::string name = "Mcp-Param-" + p.header;
    const auto got = header(name);
    const auto* arg = arguments.if_contains(p.property);
    const bool present = arg != nullptr && !arg->is_null();
    if (!present) {
      if (got)
        return mismatch("Header mismatch: " + name + " is sent but argument \"" + p.property +
                        "\" is not");
      continue;
    }
    if (!got) {
      return mismatch("Header mismatch: argument \"" + p.property + "\" needs the header " + name);
    }
    auto value = decode_header_value(*got);
    if (!value) return mismatch("Header mismatch: " + name + " is not a valid header value");
    bool same = false;
    switch (p.type) {
      case param_header::kind::string:
        same = arg->is_string() && arg->get_string() == *value;
        break;
      case param_header::kind::integer: {
        std::int64_t n = 0;
        const auto* b = value->data();
        const auto* e = b + value->size();
        const auto r = std::from_chars(b, e, n);
        const bool parsed = r.ec == std::errc{} && r.ptr == e;
        if (arg->is_int64()) same = parsed && n == arg->get_int64();
        if (arg->is_uint64())
          same = parsed && n >= 0 && static_cast<std::uint64_t>(n) == arg->get_uint64();
        if (arg->is_double()) same = parsed && static_cast<double>(n) == arg->get_double();
        break;
      }
      case param_header::kind::boolean:
        same = arg->is_bool() && *value == (arg->get_bool() ? "true" : "false");
        break;
    }
    if (!same) {
      return mismatch("Header mismatch: " + name + " differs from argument \"" + p.property + "\"");
    }
  }
  return std::nullopt;
}

}  // namespace mcp::detail
