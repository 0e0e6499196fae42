// What an OAuth client reads from servers: the Bearer (or DPoP) challenge of a 401/403,
// Protected Resource Metadata (RFC 9728), authorization server metadata (RFC 8414 / OpenID
// Connect discovery), token endpoint answers, the URLs metadata is looked for at, and the stored
// credentials' JSON form.
#include <mcp/oauth.hpp>

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

#include <algorithm>

#include "detail/ascii.hpp"

namespace mcp::auth {
namespace {

/// How a document or URL is refused inside this file; the public functions catch it and return
/// its error, so it never crosses the API.
mcp::error_exception bad(std::string message, errc code = errc::invalid_params) {
  return mcp::error_exception(error{code, std::move(message)});
}

/// `f()`'s value, or the error it was refused with.
template <class F>
auto refused_as_error(F&& f) -> result<decltype(f())> {
  try {
    return f();
  } catch (const mcp::error_exception& e) {
    return e.get();
  }
}

constexpr std::size_t max_challenge = 8192;
constexpr std::size_t max_document = 256 * 1024;

bool tchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

using mcp::detail::iequals;

/// A cursor over a header value (RFC 9110 §11.6.1 challenges).
struct cursor {
  std::string_view s;
  std::size_t i = 0;

  [[nodiscard]] bool end() const { return i >= s.size(); }
  [[nodiscard]] char peek() const { return end() ? '\0' : s[i]; }
  void skip_ws() {
    while (!end() && (s[i] == ' ' || s[i] == '\t')) ++i;
  }
  /// Skips a token68 (RFC 9110 §11.2: its own characters, then '='s) when one follows, that
  /// is when the run ends the challenge (a ',' or the end), not an auth-param's name.
  void skip_token68() {
    std::size_t j = i;
    auto t68 = [](char ch) {
      return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
             ch == '-' || ch == '.' || ch == '_' || ch == '~' || ch == '+' || ch == '/';
    };
    const std::size_t from = j;
    while (j < s.size() && t68(s[j])) ++j;
    if (j == from) return;
    while (j < s.size() && s[j] == '=') ++j;
    std::size_t k = j;
    while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
    if (k == s.size() || s[k] == ',') i = k;
  }
  std::string_view token() {
    const std::size_t from = i;
    while (!end() && tchar(s[i])) ++i;
    return s.substr(from, i - from);
  }
  /// A quoted-string's content (escapes resolved); nullopt when unterminated.
  std::optional<std::string> quoted() {
    std::string out;
    for (++i; !end(); ++i) {
      if (s[i] == '"') {
        ++i;
        return out;
      }
      if (s[i] == '\\' && i + 1 < s.size()) ++i;
      out += s[i];
    }
    return std::nullopt;
  }
};

const json::object& as_document(const json::value& v, std::string_view what) {
  if (!v.is_object()) throw bad(std::string(what) + ": not a JSON object");
  return v.get_object();
}

json::value parse_document(std::string_view text, std::string_view what) {
  if (text.size() > max_document) {
    throw bad(std::string(what) + ": larger than 256 KiB", errc::limit_exceeded);
  }
  auto v = parse_json(text, {.max_depth = 32});
  if (!v) throw bad(std::string(what) + ": " + v.error().message);
  return std::move(*v);
}

std::string string_member(const json::object& o, std::string_view name, bool required,
                          std::string_view what) {
  const auto* v = o.if_contains(name);
  if (v == nullptr || v->is_null()) {
    if (required) throw bad(std::string(what) + ": no " + std::string(name));
    return {};
  }
  if (!v->is_string()) {
    throw bad(std::string(what) + ": " + std::string(name) + " is not a string");
  }
  return std::string(v->get_string());
}

std::vector<std::string> strings_member(const json::object& o, std::string_view name,
                                        std::string_view what) {
  std::vector<std::string> out;
  const auto* v = o.if_contains(name);
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_array()) {
    throw bad(std::string(what) + ": " + std::string(name) + " is not an array");
  }
  for (const auto& e : v->get_array()) {
    if (!e.is_string()) {
      throw bad(std::string(what) + ": " + std::string(name) + " holds a non-string");
    }
    out.emplace_back(e.get_string());
  }
  return out;
}

/// Scheme, authority and path (without a trailing slash) of an absolute http(s) URL.
struct url_parts {
  std::string origin;
  std::string path;
};

url_parts split_url(std::string_view url) {
  auto u = boost::urls::parse_absolute_uri(url);
  if (!u || (u->scheme() != "https" && u->scheme() != "http") || u->encoded_host().empty()) {
    throw bad("not an absolute http(s) URL: " + std::string(url));
  }
  url_parts p;
  p.origin = std::string(u->scheme()) + "://" + std::string(u->encoded_authority());
  p.path = std::string(u->encoded_path());
  while (!p.path.empty() && p.path.back() == '/') p.path.pop_back();
  return p;
}

/// `url` must be an absolute http(s) URL; else why not, naming `what`.
void require_url(const std::string& url, std::string_view what) {
  try {
    (void)split_url(url);
  } catch (const mcp::error_exception&) {
    throw bad(std::string(what) + " is not an absolute http(s) URL: " + url);
  }
}

}  // namespace

std::optional<bearer_challenge> parse_bearer_challenge(std::string_view header) {
  return parse_challenge(header, "Bearer");
}

std::optional<bearer_challenge> parse_challenge(std::string_view header, std::string_view scheme) {
  cursor c{header.substr(0, max_challenge)};
  std::optional<bearer_challenge> out;
  bool in_bearer = false;
  for (;;) {
    while (!c.end() && (c.peek() == ' ' || c.peek() == '\t' || c.peek() == ',')) ++c.i;
    if (c.end()) return out;
    const auto name = c.token();
    if (name.empty()) return out;  // not a challenge list: keep what was read
    c.skip_ws();
    if (c.peek() != '=') {  // a new challenge: its scheme
      in_bearer = iequals(name, scheme);
      if (in_bearer && out) return out;  // a second such challenge: the first one counts
      if (in_bearer) out.emplace();
      c.skip_token68();
      continue;
    }
    // name=value, or a token68 ending in '='
    while (c.peek() == '=') ++c.i;
    c.skip_ws();
    std::string value;
    if (c.peek() == '"') {
      auto q = c.quoted();
      if (!q) return out;
      value = std::move(*q);
    } else if (c.end() || c.peek() == ',') {
      continue;  // token68
    } else {
      value = std::string(c.token());
    }
    if (!in_bearer) continue;
    if (iequals(name, "error")) out->error = std::move(value);
    if (iequals(name, "error_description")) out->error_description = std::move(value);
    if (iequals(name, "scope")) out->scope = std::move(value);
    if (iequals(name, "resource_metadata")) out->resource_metadata = std::move(value);
  }
}

namespace {

resource_metadata resource_metadata_of(std::string_view json) {
  constexpr std::string_view what = "protected resource metadata";
  const auto doc = parse_document(json, what);
  const auto& o = as_document(doc, what);
  resource_metadata m;
  m.resource = string_member(o, "resource", true, what);
  require_url(m.resource, "its resource");
  m.authorization_servers = strings_member(o, "authorization_servers", what);
  if (m.authorization_servers.empty()) {
    throw bad("protected resource metadata: no authorization_servers");
  }
  for (const auto& s : m.authorization_servers) require_url(s, "an authorization server");
  m.scopes_supported = strings_member(o, "scopes_supported", what);
  return m;
}

server_metadata server_metadata_of(std::string_view json) {
  constexpr std::string_view what = "authorization server metadata";
  const auto doc = parse_document(json, what);
  const auto& o = as_document(doc, what);
  server_metadata m;
  m.issuer = string_member(o, "issuer", true, what);
  m.authorization_endpoint = string_member(o, "authorization_endpoint", true, what);
  m.token_endpoint = string_member(o, "token_endpoint", true, what);
  m.registration_endpoint = string_member(o, "registration_endpoint", false, what);
  require_url(m.issuer, "its issuer");
  require_url(m.authorization_endpoint, "its authorization_endpoint");
  require_url(m.token_endpoint, "its token_endpoint");
  if (!m.registration_endpoint.empty()) {
    require_url(m.registration_endpoint, "its registration_endpoint");
  }
  m.scopes_supported = strings_member(o, "scopes_supported", what);
  m.code_challenge_methods_supported = strings_member(o, "code_challenge_methods_supported", what);
  m.token_endpoint_auth_methods_supported =
      strings_member(o, "token_endpoint_auth_methods_supported", what);
  m.grant_types_supported = strings_member(o, "grant_types_supported", what);
  m.token_endpoint_auth_signing_alg_values_supported =
      strings_member(o, "token_endpoint_auth_signing_alg_values_supported", what);
  m.dpop_signing_alg_values_supported =
      strings_member(o, "dpop_signing_alg_values_supported", what);
  auto flag = [&o](std::string_view name) {
    const auto* v = o.if_contains(name);
    return v != nullptr && v->is_bool() && v->get_bool();
  };
  m.client_id_metadata_document_supported = flag("client_id_metadata_document_supported");
  m.authorization_response_iss_parameter_supported =
      flag("authorization_response_iss_parameter_supported");
  return m;
}

token_response token_response_of(std::string_view json) {
  constexpr std::string_view what = "the token endpoint's answer";
  const auto doc = parse_document(json, what);
  const auto& o = as_document(doc, what);
  token_response t;
  t.access_token = string_member(o, "access_token", true, what);
  if (t.access_token.empty()) throw bad(std::string(what) + ": empty access_token");
  t.token_type = string_member(o, "token_type", false, what);
  t.refresh_token = string_member(o, "refresh_token", false, what);
  t.scope = string_member(o, "scope", false, what);
  t.issued_token_type = string_member(o, "issued_token_type", false, what);
  if (const auto* e = o.if_contains("expires_in"); e != nullptr && !e->is_null()) {
    double secs = 0;
    if (e->is_int64()) {
      secs = static_cast<double>(e->get_int64());
    } else if (e->is_uint64()) {
      secs = static_cast<double>(e->get_uint64());
    } else if (e->is_double()) {
      secs = e->get_double();
    } else if (e->is_string() && !e->get_string().empty() && e->get_string().size() <= 10 &&
               std::all_of(e->get_string().begin(), e->get_string().end(),
                           [](char ch) { return ch >= '0' && ch <= '9'; })) {
      secs = std::stod(std::string(e->get_string()));  // some servers send a string
    } else {
      throw bad(std::string(what) + ": expires_in is not a number");
    }
    if (secs >= 1 && secs <= 1e9) t.expires_in = static_cast<std::int64_t>(secs);
  }
  return t;
}

std::vector<std::string> resource_urls_of(std::string_view resource_url) {
  const auto p = split_url(resource_url);
  const std::string base = p.origin + "/.well-known/oauth-protected-resource";
  if (p.path.empty()) return {base};
  return {base + p.path, base};
}

std::vector<std::string> server_urls_of(std::string_view issuer) {
  const auto p = split_url(issuer);
  if (p.path.empty()) {
    return {p.origin + "/.well-known/oauth-authorization-server",
            p.origin + "/.well-known/openid-configuration"};
  }
  return {p.origin + "/.well-known/oauth-authorization-server" + p.path,
          p.origin + "/.well-known/openid-configuration" + p.path,
          p.origin + p.path + "/.well-known/openid-configuration"};
}

}  // namespace

result<resource_metadata> resource_metadata::parse(std::string_view json) {
  return refused_as_error([json] { return resource_metadata_of(json); });
}

result<server_metadata> server_metadata::parse(std::string_view json) {
  return refused_as_error([json] { return server_metadata_of(json); });
}

result<token_response> token_response::parse(std::string_view json) {
  return refused_as_error([json] { return token_response_of(json); });
}

result<std::vector<std::string>> resource_metadata_urls(std::string_view resource_url) {
  return refused_as_error([resource_url] { return resource_urls_of(resource_url); });
}

result<std::vector<std::string>> server_metadata_urls(std::string_view issuer) {
  return refused_as_error([issuer] { return server_urls_of(issuer); });
}

json::object oauth_credentials::to_json() const {
  json::object o;
  auto put = [&o](std::string_view k, const std::string& v) {
    if (!v.empty()) o[k] = v;
  };
  put("authorization_server", authorization_server);
  put("resource", resource);
  put("client_id", client_id);
  put("client_secret", client_secret);
  put("token_endpoint_auth_method", token_endpoint_auth_method);
  put("access_token", access_token);
  put("token_type", token_type);
  put("dpop_jkt", dpop_jkt);
  put("refresh_token", refresh_token);
  put("scope", scope);
  put("requested_scope", requested_scope);
  if (expires_at != 0) o["expires_at"] = expires_at;
  return o;
}

oauth_credentials oauth_credentials::from_json(const json::object& o) {
  auto get = [&o](std::string_view k) {
    const auto* v = o.if_contains(k);
    return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
  };
  oauth_credentials c;
  c.authorization_server = get("authorization_server");
  c.resource = get("resource");
  c.client_id = get("client_id");
  c.client_secret = get("client_secret");
  c.token_endpoint_auth_method = get("token_endpoint_auth_method");
  c.access_token = get("access_token");
  c.token_type = get("token_type");
  c.dpop_jkt = get("dpop_jkt");
  c.refresh_token = get("refresh_token");
  c.scope = get("scope");
  c.requested_scope = get("requested_scope");
  if (const auto* v = o.if_contains("expires_at"); v != nullptr && v->is_int64()) {
    c.expires_at = v->get_int64();
  }
  return c;
}

}  // namespace mcp::auth
