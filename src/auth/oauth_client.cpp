// OAuth 2.1 for an MCP client: when a flow runs (a 401 or 403, a DPoP nonce), discovery from
// the challenge, the scopes to ask for, the client's identity at the authorization server, and
// the authorization code flow with PKCE S256, `state`, the resource parameter and RFC 9207 `iss`.
// The token endpoint side is oauth_grants.cpp. The exchanges with the servers are
// `detail::http_request` (https, or http to a loopback host).
#include <boost/json/serialize.hpp>
#include <boost/json/value_to.hpp>
#include <boost/url/parse.hpp>

#include <algorithm>
#include <sstream>

#include "auth/oauth_client_impl.hpp"
#include "detail/sha256.hpp"

namespace mcp::auth {
namespace detail {

std::string form_body(const form_params& ps) {
  std::string out;
  for (const auto& [k, v] : ps) {
    if (!out.empty()) out += '&';
    out += form_encode(k) + "=" + form_encode(v);
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

bool contains(const std::vector<std::string>& v, std::string_view x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

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

namespace {

json::object error_object(const http_response& r) {
  auto v = parse_json(r.body, {.max_size = max_oauth_answer, .max_depth = 16});
  if (!v || !v->is_object()) return {};
  return std::move(v->get_object());
}

}  // namespace

std::string oauth_error_code(const http_response& r) {
  const auto o = error_object(r);
  const auto* e = o.if_contains("error");
  return e != nullptr && e->is_string() ? std::string(e->get_string()).substr(0, 200) : "";
}

std::string oauth_error(const http_response& r) {
  std::string why = "HTTP " + std::to_string(r.status);
  const auto o = error_object(r);
  if (const auto* e = o.if_contains("error"); e != nullptr && e->is_string()) {
    why += ": " + std::string(e->get_string()).substr(0, 200);
  }
  if (const auto* d = o.if_contains("error_description"); d != nullptr && d->is_string()) {
    why += " (" + std::string(d->get_string()).substr(0, 200) + ")";
  }
  return why;
}

}  // namespace detail

using detail::contains;
using detail::join_scopes;
using detail::split_scopes;

void oauth_client::impl::load_locked() {
  if (loaded) return;
  loaded = true;
  if (auto c = opts.store->load(opts.resource_url)) creds = std::move(*c);
  // A DPoP-bound token is of no use without its key (another process made it, or DPoP is off
  // now): the next request goes without it, and the server's 401 starts a flow.
  if (creds.token_type == "DPoP" && (!dpop || creds.dpop_jkt != dpop->jkt())) {
    creds.access_token.clear();
    creds.refresh_token.clear();
    creds.token_type.clear();
    creds.dpop_jkt.clear();
    creds.expires_at = 0;
  }
}

oauth_credentials oauth_client::impl::current() {
  std::lock_guard lock(mu);
  load_locked();
  return creds;
}

void oauth_client::impl::keep(const oauth_credentials& c) {
  {
    std::lock_guard lock(mu);
    creds = c;
    error.clear();
  }
  // Inside a flow, whose failures are exceptions that `refused` turns into `last_error()`.
  if (auto kept = opts.store->save(opts.resource_url, c); !kept) {
    throw std::runtime_error(kept.error().message);
  }
}

std::string oauth_client::impl::agent_redirect_uri() {
  auto uri = opts.agent->redirect_uri();
  if (!uri) throw std::runtime_error(uri.error().message);
  return std::move(*uri);
}

void oauth_client::impl::check_url(const std::string& url, std::string_view what) const {
  if (auto why = detail::unusable_url(url)) {
    throw std::runtime_error(std::string(what) + ": " + *why);
  }
  // A remote server's metadata cannot point the client at this machine's own services.
  if (detail::loopback_url(url) && !detail::loopback_url(opts.resource_url)) {
    throw std::runtime_error(std::string(what) + " " + url +
                             " is on this machine, the MCP server is not: refused");
  }
}

detail::http_response oauth_client::impl::call(const std::string& url, const detail::http_call& c) {
  check_url(url, "a URL of the authorization");
  return detail::http_request(url, c, opts.timeout, detail::max_oauth_answer);
}

server_metadata oauth_client::impl::server_metadata_of(const std::string& issuer) {
  auto urls = server_metadata_urls(issuer);
  if (!urls) throw std::runtime_error("the authorization server: " + urls.error().message);
  auto as = discover<server_metadata>(*urls, "authorization server metadata for " + issuer);
  // RFC 8414 §3.3: identical to the issuer the URL was made from (no normalization at all).
  if (as.issuer != issuer) {
    throw std::runtime_error("the authorization server metadata names issuer " + as.issuer +
                             ", not " + issuer);
  }
  return as;
}

std::pair<server_metadata, std::string> oauth_client::impl::discover_servers(
    const bearer_challenge& ch, resource_metadata* prm_out) {
  std::vector<std::string> urls{ch.resource_metadata};
  if (ch.resource_metadata.empty()) {
    auto wk = resource_metadata_urls(opts.resource_url);
    if (!wk) throw std::runtime_error("the MCP server's URL: " + wk.error().message);
    urls = std::move(*wk);
  }
  auto prm = discover<resource_metadata>(urls, "protected resource metadata");
  // The metadata must be about this server (RFC 9728 §3.3, §7.3): same origin, and the
  // resource's path a prefix of the server's.
  auto trimmed = [](std::string s) {
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
  };
  const std::string res = trimmed(prm.resource);
  const std::string mine = trimmed(opts.resource_url);
  if (mine != res && !mine.starts_with(res + "/")) {
    throw std::runtime_error("the protected resource metadata is for " + prm.resource +
                             ", not for " + opts.resource_url);
  }
  auto as = server_metadata_of(prm.authorization_servers.front());
  if (opts.grant == oauth_grant::authorization_code &&
      !contains(as.code_challenge_methods_supported, "S256")) {
    throw std::runtime_error("the authorization server " + as.issuer +
                             " does not announce PKCE with S256: refusing to authorize");
  }
  if (prm_out != nullptr) *prm_out = prm;
  return {std::move(as), prm.resource};
}

std::string oauth_client::impl::choose_scope(const bearer_challenge& ch,
                                             const resource_metadata& prm,
                                             const server_metadata& as) const {
  if (!opts.scopes.empty()) {
    std::set<std::string> s(opts.scopes.begin(), opts.scopes.end());
    if (opts.offline_access && opts.grant == oauth_grant::authorization_code &&
        contains(as.scopes_supported, "offline_access")) {
      s.insert("offline_access");
    }
    return join_scopes(s);
  }
  auto s = !ch.scope.empty()
               ? split_scopes(ch.scope)
               : std::set<std::string>(prm.scopes_supported.begin(), prm.scopes_supported.end());
  // offline_access is the client's to ask for (a refresh token), and only of an authorization
  // server that lists it; the resource should not name it, and is not followed when it does.
  const bool offline = opts.offline_access && opts.grant == oauth_grant::authorization_code &&
                       contains(as.scopes_supported, "offline_access");
  if (offline) {
    s.insert("offline_access");
  } else {
    s.erase("offline_access");
  }
  return join_scopes(s);
}

oauth_credentials oauth_client::impl::pre_registered(const server_metadata& as) const {
  // Pre-registered credentials belong to one authorization server: used with no other.
  if (!opts.client_issuer.empty() && opts.client_issuer != as.issuer) {
    throw std::runtime_error("the client " + opts.client_id + " is registered with " +
                             opts.client_issuer + ", but the server's authorization server is " +
                             as.issuer + ": its credentials are not sent there");
  }
  oauth_credentials c;
  c.authorization_server = as.issuer;
  c.client_id = opts.client_id;
  c.client_secret = opts.client_secret;
  c.token_endpoint_auth_method = opts.token_endpoint_auth_method;
  if (c.token_endpoint_auth_method.empty()) {
    const auto& supported = as.token_endpoint_auth_methods_supported;
    if (client_key) {
      c.token_endpoint_auth_method = "private_key_jwt";
    } else if (c.client_secret.empty()) {
      c.token_endpoint_auth_method = "none";
    } else {
      c.token_endpoint_auth_method = supported.empty() ||
                                             contains(supported, "client_secret_basic") ||
                                             !contains(supported, "client_secret_post")
                                         ? "client_secret_basic"
                                         : "client_secret_post";
    }
  }
  return c;
}

oauth_credentials oauth_client::impl::identify(const server_metadata& as, oauth_credentials c) {
  // Stored credentials are bound to the issuer that gave them (MCP 2026-07-28): another
  // authorization server means another registration.
  if (!c.client_id.empty() && c.authorization_server == as.issuer &&
      (opts.client_id.empty() || opts.client_id == c.client_id)) {
    return c;
  }
  if (!opts.client_id.empty()) return pre_registered(as);
  c = {};
  c.authorization_server = as.issuer;
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
  const std::string redirect = agent_redirect_uri();
  std::string app_type = opts.application_type;
  if (app_type.empty()) {
    // OpenID Connect Registration §2: a redirect to this machine (RFC 8252 loopback) or to a
    // private-use scheme is a native application's; anything else a web one's.
    auto u = boost::urls::parse_absolute_uri(redirect);
    const bool web_scheme = u && (u->scheme() == "https" || u->scheme() == "http");
    app_type = !web_scheme || detail::loopback_url(redirect) ? "native" : "web";
  }
  json::object reg{{"client_name", opts.client_name},
                   {"redirect_uris", json::array{json::value(redirect)}},
                   {"grant_types", json::array{"authorization_code", "refresh_token"}},
                   {"response_types", json::array{"code"}},
                   {"application_type", app_type},
                   {"token_endpoint_auth_method", "none"}};
  const auto& supported = as.token_endpoint_auth_methods_supported;
  if (!supported.empty() && !contains(supported, "none")) {
    reg["token_endpoint_auth_method"] =
        contains(supported, "client_secret_basic") ? "client_secret_basic" : supported.front();
  }
  if (dpop) reg["dpop_bound_access_tokens"] = true;  // RFC 9449 §5.2
  detail::http_call req{.method = "POST", .ca_file = opts.ca_file};
  req.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
  req.body = json::serialize(reg);
  const auto r = call(as.registration_endpoint, req);
  if (r.status != 200 && r.status != 201) {
    throw std::runtime_error("client registration refused: " + detail::oauth_error(r));
  }
  auto v = parse_json(r.body, {.max_size = detail::max_oauth_answer, .max_depth = 16});
  if (!v || !v->is_object()) {
    throw std::runtime_error("the registration endpoint answered with something not a JSON object");
  }
  const auto& o = v->get_object();
  auto get = [&o](std::string_view k) {
    const auto* m = o.if_contains(k);
    return m != nullptr && m->is_string() ? std::string(m->get_string()) : std::string();
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

oauth_credentials oauth_client::impl::authorize(const server_metadata& as,
                                                const std::string& resource, oauth_credentials c,
                                                const std::string& scope) {
  if (!opts.agent) throw std::runtime_error("authorization needed, and no user agent is set");
  c = identify(as, std::move(c));
  const std::string verifier = detail::random_base64url(32);
  const auto digest = mcp::detail::sha256(verifier);
  const std::string challenge = detail::base64url_encode(
      std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
  const std::string state = detail::random_base64url(16);
  // RFC 9207: the issuer this request goes to, recorded with the verifier and state (`as` was
  // validated against the identifier it was fetched for).
  const std::string expected_issuer = as.issuer;
  const std::string redirect = agent_redirect_uri();
  detail::form_params q{
      {"response_type", "code"},     {"client_id", c.client_id},        {"redirect_uri", redirect},
      {"code_challenge", challenge}, {"code_challenge_method", "S256"}, {"state", state},
      {"resource", resource}};
  if (!scope.empty()) q.emplace_back("scope", scope);
  const auto& ep = as.authorization_endpoint;
  check_url(ep, "the authorization endpoint");
  auto answer = opts.agent->authorize(ep + (ep.find('?') == std::string::npos ? "?" : "&") +
                                      detail::form_body(q));
  if (!answer) throw std::runtime_error(answer.error().message);
  const std::string back = std::move(*answer);
  auto u = boost::urls::parse_uri_reference(back);
  if (!u) throw std::runtime_error("the redirect is not a URL");
  std::string code, got_state, err, err_desc;
  std::optional<std::string> iss;
  for (const auto& p : u->params()) {  // values decoded (RFC 9207 §2.4), nothing else done
    if (p.key == "iss") iss = p.value;
    if (p.key == "code") code = p.value;
    if (p.key == "state") got_state = p.value;
    if (p.key == "error") err = p.value;
    if (p.key == "error_description") err_desc = p.value.substr(0, 200);
  }
  if (got_state != state) throw std::runtime_error("the redirect's state is not the one sent");
  // RFC 9207 §2.4 as MCP 2026-07-28 applies it: an `iss` that is present must be the recorded
  // issuer, by simple string comparison, whether or not the server promised it; an absent one
  // is refused only when promised. Checked before anything else of the answer is used, errors
  // included (a mix-up attacker's error text is not shown).
  if (iss ? *iss != expected_issuer : as.authorization_response_iss_parameter_supported) {
    throw std::runtime_error("the redirect comes from issuer " + iss.value_or("(none)") + ", not " +
                             expected_issuer);
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

bool oauth_client::impl::handle(int status, std::string_view challenge, std::string_view sent) {
  if (!config_error.empty()) throw std::runtime_error(config_error);
  if (auto why = detail::unusable_url(opts.resource_url)) {
    throw std::runtime_error("no token is sent to this server: " + *why);
  }
  auto parsed = parse_bearer_challenge(challenge);
  if (!parsed) parsed = parse_challenge(challenge, "DPoP");
  const auto ch = parsed.value_or(bearer_challenge{});
  // RFC 9449 §9: the server wants its nonce in the proof (answered() kept it): send again.
  if (status == 401 && ch.error == "use_dpop_nonce" && dpop) {
    if (dpop->nonce_for(opts.resource_url).empty()) {
      throw std::runtime_error("the server asks for a DPoP nonce and gives none");
    }
    return true;
  }
  auto c = current();
  const std::string now_auth = auth_value(c);
  // Another request obtained a new token meanwhile: try that one.
  if (!now_auth.empty() && now_auth != sent) return true;
  std::string scope;
  if (status == 403) {
    if (ch.error != "insufficient_scope") {
      throw std::runtime_error("the server refused the token (HTTP 403" +
                               (ch.error.empty() ? std::string() : ", " + ch.error) + ")");
    }
    // Step-up: what the challenge names, on top of what was asked for and granted before
    // (MCP 2026-07-28: the union). When the token already has all of it, asking again cannot
    // help.
    const auto granted = split_scopes(c.scope);
    const auto wanted = split_scopes(ch.scope);
    if (std::includes(granted.begin(), granted.end(), wanted.begin(), wanted.end())) {
      throw std::runtime_error("the server refused a token that has the scopes it asks for (" +
                               ch.scope + ")");
    }
    auto all = split_scopes(c.requested_scope);
    all.insert(granted.begin(), granted.end());
    all.insert(wanted.begin(), wanted.end());
    scope = join_scopes(all);
  } else if (!sent.empty() && sent == fresh_token) {
    // A token just obtained, refused as invalid: this authorization server's tokens are not
    // what the resource takes. Try a few times at most. A token that served for a while before
    // it was refused (it expired) starts the count again.
    if (std::chrono::steady_clock::now() - fresh_at > std::chrono::minutes(1)) {
      fresh_refusals = 0;
    } else if (++fresh_refusals >= opts.max_attempts) {
      fresh_refusals = 0;
      throw std::runtime_error("the server refused " + std::to_string(opts.max_attempts) +
                               " newly obtained tokens in a row; giving up");
    }
  }
  resource_metadata prm;
  auto [as, resource] = discover_servers(ch, &prm);
  // A refresh goes to the server that issued the token, and only while the resource still
  // names it (when it moved, the old server's tokens are of no use).
  if (status == 401 && !sent.empty() && c.authorization_server == as.issuer) {
    if (auto r = refresh(c, as, resource)) {
      keep(*r);
      return true;
    }
  }
  if (scope.empty()) scope = choose_scope(ch, prm, as);
  auto next = obtain(as, resource, std::move(c), scope);
  next.resource = resource;
  next.requested_scope = scope;
  keep(next);
  fresh_token = auth_value(next);
  fresh_at = std::chrono::steady_clock::now();
  return true;
}

oauth_client::oauth_client(oauth_client_options opts) : impl_(std::make_unique<impl>()) {
  if (!opts.store) opts.store = std::make_shared<memory_token_store>();
  impl_->opts = std::move(opts);
  impl_->configure();
  impl_->error = impl_->config_error;
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
          if (auto r = impl_->refresh_stored(c)) {
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
    return impl::auth_value(c);
  } catch (...) {  // a token store that fails: send without a token, the server answers 401
    return {};
  }
}

http_header_list oauth_client::request_headers(std::string_view method, std::string_view url) {
  try {
    auto value = authorization();
    if (value.empty()) return {};
    if (!impl_->dpop || !value.starts_with("DPoP ")) return {{"Authorization", std::move(value)}};
    auto proof = impl_->dpop->proof(method, url, std::string_view(value).substr(5));
    return {{"Authorization", std::move(value)}, {"DPoP", std::move(proof)}};
  } catch (...) {  // no proof can be signed: the server refuses the request and says why
    return {};
  }
}

void oauth_client::answered(int status, const http_header_reader& header) {
  (void)status;
  if (!impl_->dpop) return;
  try {
    if (const auto nonce = header("DPoP-Nonce"); !nonce.empty()) {
      impl_->dpop->remember_nonce(impl_->opts.resource_url, nonce);
    }
  } catch (...) {  // not kept: the server asks again
  }
}

bool oauth_client::refused(int status, std::string_view challenge, std::string_view sent) {
  const auto generation = impl_->flows.load();
  std::lock_guard flow(impl_->flow_mu);
  std::string why;
  try {
    // A flow that failed while this request waited for it: the same answer, not another flow.
    if (impl_->flows.load() != generation && !impl_->last_flow_ok) return false;
    const bool ok = impl_->handle(status, challenge, sent);
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

result<void> oauth_client::sign_out() {
  std::lock_guard lock(impl_->mu);
  impl_->load_locked();
  auto& c = impl_->creds;
  c.access_token.clear();
  c.token_type.clear();
  c.dpop_jkt.clear();
  c.refresh_token.clear();
  c.scope.clear();
  c.requested_scope.clear();
  c.expires_at = 0;
  return impl_->opts.store->save(impl_->opts.resource_url, c);
}

result<std::shared_ptr<oauth_client>> make_oauth_client(oauth_client_options opts) {
  auto client = std::make_shared<oauth_client>(std::move(opts));
  if (auto why = client->last_error(); !why.empty()) return error{errc::invalid_params, why};
  return client;
}

}  // namespace mcp::auth
