// `mcp-cpp auth login | logout | status --url URL`: OAuth for a Streamable HTTP server outside a
// tool call. `login` forgets the stored tokens and connects, so that the server's 401 starts a
// new authorization (with --scope, for more than the server asks by default); `logout` forgets
// the tokens and the client's registration; `status` shows what is stored, never a token.
#include <ctime>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "tools_cli.hpp"

namespace mcp::cli {

namespace {

struct auth_args {
  server_target target;
};

void print_status(const std::string& url, const std::optional<auth::oauth_credentials>& c) {
  if (!c || c->access_token.empty()) {
    std::cout << url << ": not signed in\n";
    return;
  }
  std::cout << url << ": signed in\n"
            << "  authorization server: " << terminal_safe(c->authorization_server) << "\n"
            << "  client id:            " << terminal_safe(c->client_id) << "\n"
            << "  scopes:               "
            << (c->scope.empty() ? "(none named)" : terminal_safe(c->scope)) << "\n";
  if (c->expires_at != 0) {
    const auto left = c->expires_at - static_cast<std::int64_t>(std::time(nullptr));
    std::cout << "  access token:         "
              << (left > 0 ? "expires in " + std::to_string(left) + " s" : std::string("expired"))
              << (c->refresh_token.empty() ? "" : " (refreshable)") << "\n";
  }
  if (c->token_type == "DPoP") std::cout << "  bound to a DPoP key:  yes\n";
}

int run_login(const auth_args& a) {
  if (a.target.url.empty()) {
    std::cerr << "mcp-cpp: auth login needs --url URL\n";
    return exit_usage;
  }
  const auto store = token_store_for(a.target.oauth);
  const auto before = store->load(a.target.url);
  if (before) {  // keep the registration, not the tokens: the server's 401 starts a new flow
    auto c = *before;
    c.access_token.clear();
    c.refresh_token.clear();
    c.scope.clear();
    c.expires_at = 0;
    if (auto kept = store->save(a.target.url, c); !kept) {
      std::cerr << "mcp-cpp: " << terminal_safe(kept.error().message) << "\n";
      return exit_failed;
    }
  }
  auto s = connect(a.target);
  if (!s) {
    if (before) {  // a login that failed leaves the tokens that worked
      const auto now = store->load(a.target.url);
      if (!now || now->access_token.empty()) {
        if (auto kept = store->save(a.target.url, *before); !kept) {
          std::cerr << "mcp-cpp: " << terminal_safe(kept.error().message) << "\n";
        }
      }
    }
    std::cerr << "mcp-cpp: " << terminal_safe(s.error().message) << "\n";
    return exit_usage;
  }
  s->client->close();
  const auto c = store->load(a.target.url);
  if (!c || c->access_token.empty()) {
    std::cerr << "mcp-cpp: " << a.target.url << " did not ask for authorization\n";
    return exit_failed;
  }
  print_status(a.target.url, c);
  return exit_ok;
}

}  // namespace

void add_auth_command(CLI::App& app, int& exit_code) {
  auto* group = app.add_subcommand(
      "auth", "OAuth sign-in to a Streamable HTTP server: login, logout, status");
  group->require_subcommand(1);
  auto args = std::make_shared<auth_args>();

  auto* login = group->add_subcommand(
      "login", "Authorize again now (in the browser), e.g. for more scopes with --scope");
  login->add_option("--url", args->target.url, "the server's Streamable HTTP endpoint")->required();
  add_oauth_options(login, args->target.oauth);
  login->callback([args, &exit_code] { exit_code = run_login(*args); });

  auto* logout =
      group->add_subcommand("logout", "Forget the server's tokens and this client's registration");
  logout->add_option("--url", args->target.url, "the server's Streamable HTTP endpoint")
      ->required();
  logout->add_option("--token-store", args->target.oauth.token_store, "the token file")
      ->group("OAuth");
  logout->callback([args, &exit_code] {
    if (auto r = token_store_for(args->target.oauth)->erase(args->target.url); !r) {
      std::cerr << "mcp-cpp: " << terminal_safe(r.error().message) << "\n";
      exit_code = exit_failed;
      return;
    }
    std::cout << args->target.url << ": signed out\n";
    exit_code = exit_ok;
  });

  auto* status = group->add_subcommand(
      "status", "What is stored for the server: issuer, client id, scopes, expiry (no token)");
  status->add_option("--url", args->target.url, "the server's Streamable HTTP endpoint")
      ->required();
  status->add_option("--token-store", args->target.oauth.token_store, "the token file")
      ->group("OAuth");
  status->callback([args, &exit_code] {
    print_status(args->target.url, token_store_for(args->target.oauth)->load(args->target.url));
    exit_code = exit_ok;
  });
}

}  // namespace mcp::cli
