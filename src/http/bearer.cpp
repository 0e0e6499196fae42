#include "http/bearer.hpp"

#include <mcp/json.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <stdexcept>

#include "detail/scopes.hpp"

namespace mcp::http_detail {
namespace {

constexpr std::string_view well_known = "/.well-known/oauth-protected-resource";

/// Text that may go inside a quoted-string of a challenge: printable ASCII, `"` and `\` turned
/// into `'`, anything else into `?`.
std::string quotable(std::string_view s) {
  std::string out;
  for (const char c : s.substr(0, 200)) {
    if (c == '"' || c == '\\') {
      out.push_back('\'');
    } else {
      out.push_back(c >= 0x20 && c <= 0x7e ? c : '?');
    }
  }
  return out;
}

json::array to_array(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.emplace_back(s);
  return a;
}

}  // namespace

bearer_gate::bearer_gate(protected_resource_options o, std::string_view endpoint)
    : opts_(std::move(o)) {
  const auto& r = opts_.resource;
  const auto scheme_end = r.find("://");
  const auto scheme = r.substr(0, scheme_end == std::string::npos ? 0 : scheme_end);
  if (scheme != "https" && scheme != "http") {
    throw std::invalid_argument("protected_resource.resource must be an absolute http(s) URI: \"" +
                                r + "\"");
  }
  if (r.find('#') != std::string::npos) {
    throw std::invalid_argument("protected_resource.resource must not have a fragment");
  }
  if (opts_.authorization_servers.empty()) {
    throw std::invalid_argument("protected_resource needs at least one authorization server");
  }
  if (!opts_.verify) throw std::invalid_argument("protected_resource.verify is empty");
  for (const auto* list : {&opts_.scopes_supported, &opts_.required_scopes}) {
    for (const auto& s : *list) {
      if (!detail::is_scope_token(s)) {
        throw std::invalid_argument("protected_resource: invalid scope \"" + s + "\"");
      }
    }
  }
  // RFC 9728 §3.1: the well-known path goes between the host and the resource's path.
  // The authority ends at the first '/', '?' or '#' (none: the URI is all authority).
  const auto authority_end = r.find_first_of("/?", scheme_end + 3);
  const std::string origin = r.substr(0, authority_end);
  std::string rest = authority_end == std::string::npos ? "" : r.substr(authority_end);
  const auto query_at = rest.find('?');
  std::string path = rest.substr(0, query_at);
  const std::string query = query_at == std::string::npos ? "" : rest.substr(query_at);
  if (path == "/") path.clear();
  metadata_url_ = origin + std::string(well_known) + path + query;
  metadata_paths_ = {std::string(well_known) + path, std::string(well_known)};
  if (!endpoint.empty() && endpoint != "/") {
    metadata_paths_.push_back(std::string(well_known) + std::string(endpoint));
  }

  json::object doc = opts_.metadata;
  doc["resource"] = opts_.resource;
  doc["authorization_servers"] = to_array(opts_.authorization_servers);
  if (!opts_.scopes_supported.empty()) doc["scopes_supported"] = to_array(opts_.scopes_supported);
  doc["bearer_methods_supported"] = json::array{"header"};
  metadata_body_ = json::serialize(doc);
}

std::optional<http_response> bearer_gate::metadata(std::string_view method,
                                                   std::string_view path) const {
  if (std::find(metadata_paths_.begin(), metadata_paths_.end(), path) == metadata_paths_.end()) {
    return std::nullopt;
  }
  http_response r;
  // A public document: any web page may read it (browser-based clients discover servers so).
  r.headers.emplace_back("Access-Control-Allow-Origin", "*");
  if (method != "GET" && method != "HEAD") {
    r.status = 405;
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  r.status = 200;
  r.headers.emplace_back("Cache-Control", "max-age=3600");
  r.content_type = "application/json";
  r.body = metadata_body_;
  return r;
}

http_response bearer_gate::challenge(unsigned status, std::string_view error,
                                     std::string_view description,
                                     const std::vector<std::string>& scopes) const {
  std::string value = "Bearer resource_metadata=\"" + quotable(metadata_url_) + "\"";
  if (!scopes.empty()) value += ", scope=\"" + detail::join_scopes(scopes) + "\"";
  if (!error.empty()) value += ", error=\"" + std::string(error) + "\"";
  if (!description.empty()) value += ", error_description=\"" + quotable(description) + "\"";
  auto r = error_response(
      status, errc::invalid_request,
      status == 401
          ? "Unauthorized" + std::string(description.empty() ? "" : ": ") + std::string(description)
          : "Forbidden: " + std::string(description));
  r.headers.emplace_back("WWW-Authenticate", std::move(value));
  return r;
}

std::variant<principal, http_response> bearer_gate::admit(const http_request& req) const {
  const auto header = req.header("authorization");
  constexpr std::string_view scheme = "bearer ";
  if (header.empty()) return challenge(401, "", "", opts_.required_scopes);
  if (header.size() <= scheme.size() || !iequals(header.substr(0, scheme.size()), scheme)) {
    // RFC 6750 §3.1: another scheme is no bearer authentication at all.
    return challenge(401, "", "", opts_.required_scopes);
  }
  auto token = header.substr(scheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  token_verdict v;
  try {
    v = opts_.verify(token);
  } catch (const std::exception& e) {
    v = token_verdict{.reason = std::string("token check failed: ") + e.what()};
  } catch (...) {
    v = token_verdict{.reason = "token check failed"};
  }
  if (!v.who) {
    return challenge(401, "invalid_token", v.reason.empty() ? "invalid token" : v.reason,
                     opts_.required_scopes);
  }
  // A bearer principal always carries its scopes: none when the verifier named none (an unset
  // list would mean "scopes do not apply" and pass every scope check).
  if (!v.who->scopes) v.who->scopes.emplace();
  std::vector<std::string> lacking;
  for (const auto& s : opts_.required_scopes) {
    if (!v.who->has_scope(s)) lacking.push_back(s);
  }
  if (!lacking.empty()) {
    return challenge(403, "insufficient_scope",
                     "the token lacks scope " + detail::join_scopes(lacking),
                     opts_.required_scopes);
  }
  return std::move(*v.who);
}

std::optional<http_response> bearer_gate::check_requests(const server* srv,
                                                         std::span<const jsonrpc::message> messages,
                                                         const principal& who) const {
  if (srv == nullptr) return std::nullopt;  // a proxy: no tool's scopes are known here
  for (const auto& m : messages) {
    const auto* r = std::get_if<jsonrpc::request>(&m);
    if (r == nullptr) continue;
    auto shortfall = srv->missing_scopes(*r, who);
    if (!shortfall) continue;
    // Step-up: ask for what the request needs on top of what every request needs.
    auto scopes = opts_.required_scopes;
    for (auto& s : shortfall->scopes) {
      if (std::find(scopes.begin(), scopes.end(), s) == scopes.end()) scopes.push_back(s);
    }
    if (who.scopes) {  // keep what the token has, so that the new token still covers it
      for (const auto& s : *who.scopes) {
        // Only well-formed scope tokens go into the header (they come from the token).
        if (detail::is_scope_token(s) &&
            std::find(scopes.begin(), scopes.end(), s) == scopes.end()) {
          scopes.push_back(s);
        }
      }
    }
    return challenge(
        403, "insufficient_scope",
        shortfall->needed_by + " needs scope " + detail::join_scopes(shortfall->scopes), scopes);
  }
  return std::nullopt;
}

}  // namespace mcp::http_detail
