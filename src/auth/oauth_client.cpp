// OAuth 2.1 for an MCP client (MCP 2025-11-25 authorization): discovery from a 401, client
// identification, the authorization code flow with PKCE S256 and the resource parameter,
// token refresh and scope step-up. The exchanges with the authorization server are
// `detail::http_request` (https, or http to a loopback host).
#include <mcp/content.hpp>
#include <mcp/oauth.hpp>

#include <boost/url/parse.hpp>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "auth/jose.hpp"
#include "detail/sha256.hpp"
#include <openssl/rand.h>

namespace mcp::auth {
namespace {

constexpr std::size_t max_answer = 256 * 1024;

std::string random_text(std::size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes)) != 1) {
    throw std::runtime_error("no random bytes from OpenSSL");
  }
  return detail::base64url_encode(raw);
}

using params = std::vector<std::pair<std::string, std::string>>;

std::string encode(const params& ps) {
  std::string out;
  for (const auto& [k, v] : ps) {
    if (!out.empty()) out += '&';
    out += detail::form_encode(k) + "=" + detail::form_encode(v);
  }
  return out;
}

std::set<std::string> split_scopes(std::string_view s) {
  std::set<std::string> out;
  std::istringstream in{std::string(s)};
  for (std::string w; in >> w;) out.insert(w);
  return out;
}

std::string join_scopes(const std::set<std::string>& s) {
  std::string out;
  for (const auto& w : s) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string without_trailing_slash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

/// RFC 6750 §2.1 b64token: what may follow "Bearer " (so no header can be injected).
bool b64token(std::string_view t) {
  std::size_t i = 0;
  auto ok = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
  };
  while (i < t.size() && ok(t[i])) ++i;
  if (i == 0 || t.size() > 16384) return false;
  while (i < t.size() && t[i] == '=') ++i;
  return i == t.size();
}

bool contains(const std::vector<std::string>& v, std::string_view x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

/// The error of an OAuth error answer (RFC 6749 §5.2), for a message.
std::string oauth_error(const detail::http_response& r) {
  std::string why = "HTTP " + std::to_string(r.status);
  auto v = parse_json(r.body, {.max_size = max_answer, .max_depth = 16});
  if (v && v->is_object()) {
    const auto& o = v->get_object();
    if (const auto* e = o.if_contains("error"); e != nullptr && e->is_string()) {
      why += ": " + std::string(e->get_string());
    }
    if (const auto* d = o.if_contains("error_description"); d != nullptr && d->is_string()) {
      why += " (" + std::string(d->get_string()).substr(0, 200) + ")";
    }
  }
  return why;
}

}  // namespace

struct oauth_client::impl {
  oauth_client_options opts;
  mutable std::mutex mu;  // creds, loaded, error
  oauth_credentials creds;
  bool loaded = false;
  std::string error;
  std::mutex flow_mu;      // one flow at a time
  std::string user_token;  // the Authorization value of the last token the user authorized,
  std::chrono::steady_clock::time_point user_token_at{};  // when
  std::size_t user_refusals = 0;  // such tokens refused in a row soon after they were obtained
  std::atomic<std::uint64_t> flows{0};  // refusals handled (under flow_mu)
  bool last_flow_ok = true;             // how the last one ended (under flow_mu)

  void load_locked() {
    if (loaded) return;
    loaded = true;
    if (auto c = opts.store->load(opts.resource_url)) creds = std::move(*c);
  }

  [[nodiscard]] oauth_credentials current() {
    std::lock_guard lock(mu);
    load_locked();
    return creds;
  }

  void keep(const oauth_credentials& c) {
    {
      std::lock_guard lock(mu);
      creds = c;
      error.clear();
    }
    opts.store->save(opts.resource_url, c);
  }

  /// A URL the flow may use: https, or http to a loopback host, and that only when the MCP
  /// server is on this machine too (a remote server's metadata cannot point the client at this
  /// machine's own services).
  void check_url(const std::string& url, std::string_view what) const {
    if (auto why = detail::unusable_url(url)) {
      throw std::runtime_error(std::string(what) + ": " + *why);
    }
    if (detail::loopback_url(url) && !detail::loopback_url(opts.resource_url)) {
      throw std::runtime_error(std::string(what) + " " + url +
                               " is on this machine, the MCP server is not: refused");
    }
  }

  detail::http_response call(const std::string& url, detail::http_call c) {
    check_url(url, "a URL of the authorization");
    return detail::http_request(url, c, opts.timeout, max_answer);
  }

  json::object answer_object(const detail::http_response& r, std::string_view what) {
    auto v = parse_json(r.body, {.max_size = max_answer, .max_depth = 16});
    if (!v || !v->is_object()) {
      throw std::runtime_error(std::string(what) + " answered with something not a JSON object");
    }
    return std::move(v->get_object());
  }

  /// The first of `urls` that answers 200 with a document `parse` accepts.
  template <class Doc>
  Doc discover(const std::vector<std::string>& urls, std::string_view what) {
    std::string why;
    for (const auto& url : urls) {
      try {
        auto r = call(url, {.ca_file = opts.ca_file, .headers = {{"Accept", "application/json"}}});
        if (r.status == 200) return Doc::parse(r.body);
        why = url + ": HTTP " + std::to_string(r.status);
      } catch (const std::exception& e) {
        why = url + ": " + e.what();
      }
    }
    throw std::runtime_error("no " + std::string(what) + " found (last tried " + why + ")");
  }

  /// Adds the client's authentication to a token request (RFC 6749 §2.3.1).
  void authenticate(const oauth_credentials& c, params& body, detail::http_call& req) {
    const auto& method = c.token_endpoint_auth_method;
    if (method == "client_secret_basic") {
      req.headers.emplace_back("Authorization",
                               "Basic " + base64_encode(detail::form_encode(c.client_id) + ":" +
                                                        detail::form_encode(c.client_secret)));
      return;
    }
    body.emplace_back("client_id", c.client_id);
    if (method == "client_secret_post") body.emplace_back("client_secret", c.client_secret);
  }

  /// POSTs a token request; the new credentials (on top of `c`) or an exception.
  oauth_credentials token_request(const server_metadata& as, oauth_credentials c, params body,
                                  const std::string& asked_scope) {
    detail::http_call req{.method = "POST", .ca_file = opts.ca_file};
    req.headers = {{"Content-Type", "application/x-www-form-urlencoded"},
                   {"Accept", "application/json"}};
    authenticate(c, body, req);
    req.body = encode(body);
    const auto r = call(as.token_endpoint, req);
    if (r.status != 200) throw std::runtime_error("the token endpoint refused: " + oauth_error(r));
    const auto o = answer_object(r, "the token endpoint");
    const auto* tok = o.if_contains("access_token");
    if (tok == nullptr || !tok->is_string() || !b64token(tok->get_string())) {
      throw std::runtime_error(
          "the token endpoint's answer has no access_token a Bearer header can carry");
    }
    const auto* type = o.if_contains("token_type");
    if (type != nullptr && type->is_string()) {
      std::string t(type->get_string());
      std::transform(t.begin(), t.end(), t.begin(), [](char ch) {
        return static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      });
      if (t != "bearer") throw std::runtime_error("the token endpoint issued a " + t + " token");
    }
    c.access_token = std::string(tok->get_string());
    if (const auto* rt = o.if_contains("refresh_token"); rt != nullptr && rt->is_string()) {
      c.refresh_token = std::string(rt->get_string());
    }
    c.scope = asked_scope;
    if (const auto* s = o.if_contains("scope"); s != nullptr && s->is_string()) {
      c.scope = std::string(s->get_string());
    }
    c.expires_at = 0;
    if (const auto* e = o.if_contains("expires_in"); e != nullptr && e->is_number()) {
      const double secs =
          e->is_int64() ? static_cast<double>(e->get_int64()) : e->to_number<double>();
      if (secs > 0 && secs < 1e9)
        c.expires_at = detail::unix_now() + static_cast<std::int64_t>(secs);
    }
    return c;
  }

  /// This client's identity at `as`: stored, pre-registered, a metadata document, or a dynamic
  /// registration (RFC 7591), in that order.
  oauth_credentials identify(const server_metadata& as, oauth_credentials c) {
    if (!c.client_id.empty() && c.authorization_server == as.issuer &&
        (opts.client_id.empty() || opts.client_id == c.client_id)) {
      return c;
    }
    c = {};
    c.authorization_server = as.issuer;
    const auto& supported = as.token_endpoint_auth_methods_supported;
    if (!opts.client_id.empty()) {
      c.client_id = opts.client_id;
      c.client_secret = opts.client_secret;
      c.token_endpoint_auth_method = opts.token_endpoint_auth_method;
      if (c.token_endpoint_auth_method.empty()) {
        c.token_endpoint_auth_method =
            c.client_secret.empty() ? "none"
            : supported.empty() || contains(supported, "client_secret_basic")
                ? "client_secret_basic"
                : "client_secret_post";
      }
      return c;
    }
    if (as.client_id_metadata_document_supported && !opts.client_metadata_url.empty()) {
      c.client_id = opts.client_metadata_url;
      c.token_endpoint_auth_method = "none";
      return c;
    }
    if (as.registration_endpoint.empty()) {
      throw std::runtime_error(
          "the authorization server " + as.issuer +
          " offers no client registration: give a pre-registered client id" +
          (as.client_id_metadata_document_supported ? " or a client metadata document URL" : ""));
    }
    json::object reg{{"client_name", opts.client_name},
                     {"redirect_uris", json::array{json::value(opts.agent->redirect_uri())}},
                     {"grant_types", json::array{"authorization_code", "refresh_token"}},
                     {"response_types", json::array{"code"}},
                     {"token_endpoint_auth_method", "none"}};
    if (!supported.empty() && !contains(supported, "none")) {
      reg["token_endpoint_auth_method"] =
          contains(supported, "client_secret_basic") ? "client_secret_basic" : supported.front();
    }
    detail::http_call req{.method = "POST", .ca_file = opts.ca_file};
    req.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
    req.body = json::serialize(reg);
    const auto r = call(as.registration_endpoint, req);
    if (r.status != 200 && r.status != 201) {
      throw std::runtime_error("client registration refused: " + oauth_error(r));
    }
    const auto o = answer_object(r, "the registration endpoint");
    auto get = [&o](std::string_view k) {
      const auto* v = o.if_contains(k);
      return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
    };
    c.client_id = get("client_id");
    if (c.client_id.empty()) throw std::runtime_error("client registration returned no client_id");
    c.client_secret = get("client_secret");
    c.token_endpoint_auth_method = get("token_endpoint_auth_method");
    if (c.token_endpoint_auth_method.empty()) {
      c.token_endpoint_auth_method =
          c.client_secret.empty() ? "none"
                                  : json::value_to<std::string>(reg["token_endpoint_auth_method"]);
      if (c.token_endpoint_auth_method == "none" && !c.client_secret.empty()) {
        c.token_endpoint_auth_method = "client_secret_basic";
      }
    }
    return c;
  }

  /// Discovery: the resource's metadata, its authorization server's metadata, and the
  /// resource identifier to ask tokens for.
  std::pair<server_metadata, std::string> discover_servers(const bearer_challenge& ch,
                                                           resource_metadata* prm_out) {
    const auto urls = ch.resource_metadata.empty() ? resource_metadata_urls(opts.resource_url)
                                                   : std::vector{ch.resource_metadata};
    auto prm = discover<resource_metadata>(urls, "protected resource metadata");
    // The metadata must be about this server (RFC 9728 §3.3, §7.3): same origin, and the
    // resource's path a prefix of the server's.
    const std::string res = without_trailing_slash(prm.resource);
    const std::string mine = without_trailing_slash(opts.resource_url);
    if (mine != res && !mine.starts_with(res + "/")) {
      throw std::runtime_error("the protected resource metadata is for " + prm.resource +
                               ", not for " + opts.resource_url);
    }
    const auto& issuer = prm.authorization_servers.front();
    auto as = discover<server_metadata>(server_metadata_urls(issuer),
                                        "authorization server metadata for " + issuer);
    if (without_trailing_slash(as.issuer) != without_trailing_slash(issuer)) {
      throw std::runtime_error("the authorization server metadata names issuer " + as.issuer +
                               ", not " + issuer);
    }
    if (!contains(as.code_challenge_methods_supported, "S256")) {
      throw std::runtime_error("the authorization server " + issuer +
                               " does not announce PKCE with S256: refusing to authorize");
    }
    if (prm_out != nullptr) *prm_out = prm;
    return {std::move(as), prm.resource};
  }

  std::string choose_scope(const bearer_challenge& ch, const resource_metadata& prm) {
    if (!opts.scopes.empty()) return join_scopes({opts.scopes.begin(), opts.scopes.end()});
    if (!ch.scope.empty()) return ch.scope;
    return join_scopes({prm.scopes_supported.begin(), prm.scopes_supported.end()});
  }

  /// The authorization code flow with PKCE; the new credentials.
  oauth_credentials authorize(const server_metadata& as, const std::string& resource,
                              oauth_credentials c, const std::string& scope) {
    if (!opts.agent) throw std::runtime_error("authorization needed, and no user agent is set");
    c = identify(as, std::move(c));
    const std::string verifier = random_text(32);
    const auto digest = mcp::detail::sha256(verifier);
    const std::string challenge = detail::base64url_encode(
        std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
    const std::string state = random_text(16);
    const std::string redirect = opts.agent->redirect_uri();
    params q{{"response_type", "code"},
             {"client_id", c.client_id},
             {"redirect_uri", redirect},
             {"code_challenge", challenge},
             {"code_challenge_method", "S256"},
             {"state", state},
             {"resource", resource}};
    if (!scope.empty()) q.emplace_back("scope", scope);
    const auto& ep = as.authorization_endpoint;
    check_url(ep, "the authorization endpoint");
    const std::string back =
        opts.agent->authorize(ep + (ep.find('?') == std::string::npos ? "?" : "&") + encode(q));
    auto u = boost::urls::parse_uri_reference(back);
    if (!u) throw std::runtime_error("the redirect is not a URL");
    std::string code, got_state, err, err_desc;
    std::optional<std::string> iss;
    for (const auto& p : u->params()) {
      if (p.key == "iss") iss = p.value;
      if (p.key == "code") code = p.value;
      if (p.key == "state") got_state = p.value;
      if (p.key == "error") err = p.value;
      if (p.key == "error_description") err_desc = p.value.substr(0, 200);
    }
    if (got_state != state) throw std::runtime_error("the redirect's state is not the one sent");
    // RFC 9207: the issuer of the answer, when given or promised, must be this server.
    if ((iss || as.authorization_response_iss_parameter_supported) && iss != as.issuer) {
      throw std::runtime_error("the redirect comes from issuer " + iss.value_or("(none)") +
                               ", not " + as.issuer);
    }
    if (!err.empty()) {
      throw std::runtime_error("authorization refused: " + err +
                               (err_desc.empty() ? "" : " (" + err_desc + ")"));
    }
    if (code.empty()) throw std::runtime_error("the redirect carries no authorization code");
    return token_request(as, std::move(c),
                         {{"grant_type", "authorization_code"},
                          {"code", code},
                          {"redirect_uri", redirect},
                          {"code_verifier", verifier},
                          {"resource", resource}},
                         scope);
  }

  /// A refresh_token grant at the server that issued `c`, for the resource its tokens are for
  /// (stored; else discovered from `ch`); nullopt when it fails (the caller authorizes again).
  std::optional<oauth_credentials> refresh(oauth_credentials c, const bearer_challenge* ch) {
    if (c.refresh_token.empty() || c.authorization_server.empty()) return std::nullopt;
    try {
      std::string resource = c.resource;
      if (resource.empty() && ch != nullptr) resource = discover_servers(*ch, nullptr).second;
      if (resource.empty()) return std::nullopt;
      auto as = discover<server_metadata>(server_metadata_urls(c.authorization_server),
                                          "authorization server metadata");
      if (without_trailing_slash(as.issuer) != without_trailing_slash(c.authorization_server)) {
        return std::nullopt;
      }
      const std::string scope = c.scope;
      params body{{"grant_type", "refresh_token"},
                  {"refresh_token", c.refresh_token},
                  {"resource", resource}};
      auto next = token_request(as, std::move(c), std::move(body), scope);
      next.resource = resource;
      return next;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

  bool handle(int status, const bearer_challenge& ch, std::string_view sent) {
    if (auto why = detail::unusable_url(opts.resource_url)) {
      throw std::runtime_error("no token is sent to this server: " + *why);
    }
    auto c = current();
    const std::string now_auth = c.access_token.empty() ? "" : "Bearer " + c.access_token;
    // Another request obtained a new token meanwhile: try that one.
    if (!now_auth.empty() && now_auth != sent) return true;
    std::string scope;
    if (status == 403) {
      if (ch.error != "insufficient_scope") {
        throw std::runtime_error("the server refused the token (HTTP 403" +
                                 (ch.error.empty() ? std::string() : ", " + ch.error) + ")");
      }
      // Step-up: what the challenge names, on top of what was granted. When the token already
      // has all of it, asking again cannot help.
      auto granted = split_scopes(c.scope);
      const auto wanted = split_scopes(ch.scope);
      if (std::includes(granted.begin(), granted.end(), wanted.begin(), wanted.end())) {
        throw std::runtime_error("the server refused a token that has the scopes it asks for (" +
                                 ch.scope + ")");
      }
      granted.insert(wanted.begin(), wanted.end());
      scope = join_scopes(granted);
    } else if (!sent.empty() && sent == user_token) {
      // A token the user just authorized, refused as invalid: this authorization server's
      // tokens are not what the resource takes. Ask the user a few times at most. A token that
      // served for a while before it was refused (it expired) starts the count again.
      if (std::chrono::steady_clock::now() - user_token_at > std::chrono::minutes(1)) {
        user_refusals = 0;
      } else if (++user_refusals >= opts.max_attempts) {
        user_refusals = 0;
        throw std::runtime_error("the server refused " + std::to_string(opts.max_attempts) +
                                 " newly authorized tokens in a row; giving up");
      }
    }
    if (status == 401 && !sent.empty()) {
      if (auto r = refresh(c, &ch)) {
        keep(*r);
        return true;
      }
    }
    resource_metadata prm;
    auto [as, resource] = discover_servers(ch, &prm);
    if (scope.empty()) scope = choose_scope(ch, prm);
    auto next = authorize(as, resource, std::move(c), scope);
    next.resource = resource;
    keep(next);
    user_token = "Bearer " + next.access_token;
    user_token_at = std::chrono::steady_clock::now();
    return true;
  }
};

oauth_client::oauth_client(oauth_client_options opts) : impl_(std::make_unique<impl>()) {
  if (!opts.store) opts.store = std::make_shared<memory_token_store>();
  impl_->opts = std::move(opts);
}

oauth_client::~oauth_client() = default;

std::string oauth_client::authorization() {
  try {
    auto c = impl_->current();
    if (c.expires_at != 0 && detail::unix_now() >= c.expires_at && !c.refresh_token.empty()) {
      // Expired by its own account: refresh before sending rather than after a 401. Not while a
      // flow runs (it may wait for the user): the request then goes with what there is.
      std::unique_lock flow(impl_->flow_mu, std::try_to_lock);
      if (flow.owns_lock()) {
        c = impl_->current();  // another thread may have refreshed meanwhile
        if (detail::unix_now() >= c.expires_at) {
          if (auto r = impl_->refresh(c, nullptr)) {
            impl_->keep(*r);
            c = std::move(*r);
          } else {
            c.expires_at = 0;  // not again for every request: the server's 401 decides now
            std::lock_guard lock(impl_->mu);
            impl_->creds.expires_at = 0;
          }
        }
      }
    }
    return c.access_token.empty() ? std::string() : "Bearer " + c.access_token;
  } catch (...) {  // a token store that fails: send without a token, the server answers 401
    return {};
  }
}

bool oauth_client::refused(int status, std::string_view challenge, std::string_view sent) {
  const auto generation = impl_->flows.load();
  std::lock_guard flow(impl_->flow_mu);
  std::string why;
  try {
    // A flow that failed while this request waited for it: the same answer, not another flow.
    if (impl_->flows.load() != generation && !impl_->last_flow_ok) return false;
    const auto ch = parse_bearer_challenge(challenge).value_or(bearer_challenge{});
    const bool ok = impl_->handle(status, ch, sent);
    impl_->last_flow_ok = ok;
    ++impl_->flows;
    return ok;
  } catch (const std::exception& e) {
    why = e.what();
  } catch (...) {
    why = "the authorization failed (an unknown exception)";
  }
  impl_->last_flow_ok = false;
  ++impl_->flows;
  std::lock_guard lock(impl_->mu);
  impl_->error = std::move(why);
  return false;
}

std::string oauth_client::last_error() const {
  std::lock_guard lock(impl_->mu);
  return impl_->error;
}

void oauth_client::sign_out() {
  std::lock_guard lock(impl_->mu);
  impl_->load_locked();
  impl_->creds.access_token.clear();
  impl_->creds.refresh_token.clear();
  impl_->creds.scope.clear();
  impl_->creds.expires_at = 0;
  impl_->opts.store->save(impl_->opts.resource_url, impl_->creds);
}

}  // namespace mcp::auth
