// The OAuth options of `mcp-cpp` (--grant, --client-id, --client-key, --dpop, ...) and the
// `auth::oauth_client` they make: which grant obtains tokens, the client's identity and keys,
// assertions and ID tokens read from files at each use (platforms renew those files).
#include <mcp/oauth.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "commands.hpp"
#include "tools_cli.hpp"

namespace mcp::cli {
namespace {

constexpr std::uintmax_t max_file = 64 * 1024;

/// The text of a small file (a key, a JWT), or why not.
result<std::string> read_small_file(const std::string& path, std::string_view what) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return error{errc::invalid_params, std::string(what) + " " + path + ": " + ec.message()};
  if (size > max_file) {
    return error{errc::invalid_params, std::string(what) + " " + path + " is larger than 64 KiB"};
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) return error{errc::invalid_params, std::string(what) + " " + path + " cannot be read"};
  return text.str();
}

/// A JWT given as text or as a file read at each use (surrounding white space dropped); an
/// unreadable file yields "" (the flow then fails and says there is nothing to present).
std::function<std::string()> jwt_source(const std::string& text, const std::string& file) {
  auto trim = [](std::string s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    const auto e = s.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  };
  if (!file.empty()) {
    return [file, trim] {
      auto t = read_small_file(file, "the file");
      return t ? trim(*t) : std::string();
    };
  }
  return [value = trim(text)] { return value; };
}

}  // namespace

result<std::shared_ptr<auth::oauth_client>> oauth_client_for(const server_target& target) {
  const auto& o = target.oauth;
  const auto login = std::chrono::seconds(static_cast<std::int64_t>(o.login_seconds));
  auth::oauth_client_options opts{
      .resource_url = target.url,
      .agent = std::make_shared<auth::loopback_agent>(
          auth::loopback_options{.port = o.redirect_port, .timeout = login}),
      .store = token_store_for(o),
      .client_id = o.client_id,
      .client_secret = o.client_secret,
      .client_key_algorithm = o.client_key_alg,
      .client_issuer = o.client_issuer,
      .client_metadata_url = o.client_metadata_url,
      .scopes = o.scopes,
      .ca_file = target.ca_file};
  if (o.grant == "client-credentials") {
    opts.grant = auth::oauth_grant::client_credentials;
  } else if (o.grant == "jwt-bearer") {
    opts.grant = auth::oauth_grant::jwt_bearer;
  } else if (o.grant == "enterprise") {
    opts.grant = auth::oauth_grant::enterprise;
  }
  if (!o.client_key_file.empty()) {
    auto pem = read_small_file(o.client_key_file, "--client-key");
    if (!pem) return pem.error();
    opts.client_key_pem = std::move(*pem);
  }
  if (!o.assertion.empty() && !o.assertion_file.empty()) {
    return error{errc::invalid_params, "give --assertion or --assertion-file, not both"};
  }
  if (!o.assertion.empty() || !o.assertion_file.empty()) {
    opts.assertion = jwt_source(o.assertion, o.assertion_file);
  }
  if (!o.id_token.empty() && !o.id_token_file.empty()) {
    return error{errc::invalid_params, "give --id-token or --id-token-file, not both"};
  }
  opts.enterprise = {.token_endpoint = o.idp_token_endpoint,
                     .issuer = o.idp_issuer,
                     .client_id = o.idp_client_id,
                     .client_secret = o.idp_client_secret};
  if (!o.id_token.empty() || !o.id_token_file.empty()) {
    opts.enterprise.id_token = jwt_source(o.id_token, o.id_token_file);
  }
  opts.dpop.enabled = o.dpop || !o.dpop_key_file.empty();
  if (!o.dpop_key_file.empty()) {
    auto pem = read_small_file(o.dpop_key_file, "--dpop-key");
    if (!pem) return pem.error();
    opts.dpop.key_pem = std::move(*pem);
  }
  auto client = auth::make_oauth_client(std::move(opts));
  if (!client) return error{errc::invalid_params, client.error().message};
  return std::move(*client);
}

void add_oauth_options(CLI::App* cmd, oauth_settings& o) {
  // OAuth, when an HTTP server answers 401 and no Authorization header is given.
  cmd->add_option(
         "--grant", o.grant,
         "OAuth: how tokens are obtained. code: you sign in in the browser (at a terminal). "
         "client-credentials: no person, the client acts for itself with --client-id and "
         "--client-secret or --client-key (a service, a scheduled job). jwt-bearer: present a "
         "JWT your platform issued the workload, --assertion-file (workload identity: no "
         "secret stored anywhere). enterprise: your ID token from the company identity provider "
         "(--id-token-file, --idp-token-endpoint, --idp-client-id) is exchanged there for a "
         "grant the server's authorization server takes from --client-id/--client-secret (the "
         "company decides access, no consent screen)")
      ->check(CLI::IsMember({"code", "client-credentials", "jwt-bearer", "enterprise"}))
      ->capture_default_str()
      ->group("OAuth");
  cmd->add_option("--client-id", o.client_id, "OAuth: a pre-registered client id")->group("OAuth");
  cmd->add_option("--client-secret", o.client_secret,
                  "OAuth: its secret (better in $MCP_CPP_CLIENT_SECRET: a command line is "
                  "visible to other users)")
      ->envname("MCP_CPP_CLIENT_SECRET")
      ->group("OAuth");
  cmd->add_option("--client-key", o.client_key_file,
                  "OAuth: the client authenticates with a JWT signed by this PEM private key "
                  "(EC P-256, RSA, Ed25519; private_key_jwt) instead of a secret: the server "
                  "holds only the public key. For --grant client-credentials or enterprise")
      ->group("OAuth");
  cmd->add_option("--client-key-alg", o.client_key_alg,
                  "OAuth: the --client-key signature algorithm (default: ES256 for EC, RS256 "
                  "for RSA, EdDSA for Ed25519)")
      ->check(CLI::IsMember({"ES256", "RS256", "PS256", "EdDSA"}))
      ->group("OAuth");
  cmd->add_option("--client-issuer", o.client_issuer,
                  "OAuth: the authorization server (issuer) the --client-id is registered with; "
                  "a server that points elsewhere gets no request with these credentials")
      ->group("OAuth");
  cmd->add_option("--client-metadata-url", o.client_metadata_url,
                  "OAuth: an https URL of this client's metadata document, used as its client id "
                  "where the authorization server supports that")
      ->group("OAuth");
  cmd->add_option("--scope", o.scopes,
                  "OAuth: a scope to ask for (repeatable; default: what "
                  "the server names)")
      ->group("OAuth");
  cmd->add_option("--assertion", o.assertion,
                  "OAuth, --grant jwt-bearer: the JWT to present (better in $MCP_CPP_ASSERTION "
                  "or --assertion-file)")
      ->envname("MCP_CPP_ASSERTION")
      ->group("OAuth");
  cmd->add_option("--assertion-file", o.assertion_file,
                  "OAuth, --grant jwt-bearer: a file holding the JWT, read each time a token is "
                  "needed (e.g. a projected service account token the platform renews)")
      ->group("OAuth");
  cmd->add_option("--idp-token-endpoint", o.idp_token_endpoint,
                  "OAuth, --grant enterprise: the identity provider's token endpoint")
      ->group("OAuth");
  cmd->add_option("--idp-issuer", o.idp_issuer,
                  "OAuth, --grant enterprise: the identity provider's issuer, to find its token "
                  "endpoint when --idp-token-endpoint is not given")
      ->group("OAuth");
  cmd->add_option("--idp-client-id", o.idp_client_id,
                  "OAuth, --grant enterprise: this client's id at the identity provider")
      ->group("OAuth");
  cmd->add_option("--idp-client-secret", o.idp_client_secret,
                  "OAuth, --grant enterprise: its secret there (better in "
                  "$MCP_CPP_IDP_CLIENT_SECRET)")
      ->envname("MCP_CPP_IDP_CLIENT_SECRET")
      ->group("OAuth");
  cmd->add_option("--id-token", o.id_token,
                  "OAuth, --grant enterprise: your ID token from the identity provider (better "
                  "in $MCP_CPP_ID_TOKEN or --id-token-file)")
      ->envname("MCP_CPP_ID_TOKEN")
      ->group("OAuth");
  cmd->add_option("--id-token-file", o.id_token_file,
                  "OAuth, --grant enterprise: a file holding your ID token, read at each use")
      ->group("OAuth");
  cmd->add_flag("--dpop", o.dpop,
                "OAuth: bind tokens to a key of this client (DPoP): a token that leaks is "
                "useless without the key. Works with any --grant where the authorization server "
                "supports it (else tokens stay Bearer)")
      ->group("OAuth");
  cmd->add_option("--dpop-key", o.dpop_key_file,
                  "OAuth: the DPoP key (PEM; implies --dpop), so that stored tokens serve later "
                  "runs too (default: a key made for each run)")
      ->group("OAuth");
  cmd->add_option("--token-store", o.token_store,
                  "OAuth: the file keeping tokens (mode 0600; default "
                  "$XDG_STATE_HOME/mcp-cpp/oauth-tokens.json)")
      ->group("OAuth");
  cmd->add_option("--redirect-port", o.redirect_port,
                  "OAuth: the port of the loopback redirect on 127.0.0.1 (default: any free one)")
      ->group("OAuth");
}

}  // namespace mcp::cli
