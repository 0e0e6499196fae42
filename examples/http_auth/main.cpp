// Streamable HTTP with a bearer token check and a policy file. Every request must carry
// `Authorization: Bearer <token>` naming a caller in the token file (else 401); the policy file
// (mcp/policy.hpp) says who may call what: here only the role "editor" may call the
// destructive notes.clear, and the file grants that role to alice. Tokens in a table keep the
// example self-contained; with an OAuth authorization server, set
// `http_server_options::protected_resource` with an `auth::jwt_verifier` (docs/auth.md).
//
//   echo '{"alice-secret": "alice", "bob-secret": "bob"}' > tokens.json
//   build/ci/examples/http_auth tokens.json examples/http_auth/policy.json 127.0.0.1:8080
//   mcp-cpp tools call notes.clear --yes --url http://127.0.0.1:8080/mcp
//           --header 'Authorization: Bearer alice-secret'  # bob-secret: not his to call
#include <mcp/http_server.hpp>
#include <mcp/policy.hpp>
#include <mcp/server.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
  mcp::http_server_options http{.handle_signals = true};
  if (argc < 3 || (argc > 3 && !mcp::set_listen_address(http, argv[3]))) {
    std::fprintf(stderr, "usage: http_auth TOKENS.json POLICY.json [HOST:PORT]\n");
    return 2;
  }
  std::stringstream text;
  text << std::ifstream(argv[1]).rdbuf();
  auto tokens = mcp::parse_json(text.str());  // {"token": "subject", ...}
  auto policy = mcp::make_tool_policy(argv[2]);
  if (!tokens || !tokens->is_object() || !policy) {
    std::fprintf(stderr, "http_auth: bad token or policy file: %s\n",
                 policy ? argv[1] : policy.error().message.c_str());
    return 1;
  }
  http.authenticate = [table = tokens->as_object()](
                          const mcp::http_request_view& req) -> std::optional<mcp::principal> {
    const std::string_view auth = req.header("Authorization");
    if (!auth.starts_with("Bearer ")) return std::nullopt;  // 401
    const auto* subject = table.if_contains(auth.substr(7));
    if (subject == nullptr || !subject->is_string()) return std::nullopt;
    return mcp::principal{.subject = std::string(subject->as_string())};
  };

  mcp::server server({.info = {.name = "notes-http", .version = "1.0.0"}});
  server.use(*policy);
  server.add_tool({.name = "notes.read", .annotations = {.read_only_hint = true}},
                  [](mcp::tool_context& ctx) { return "notes for " + ctx.caller().subject; });
  server.add_tool({.name = "notes.clear", .annotations = {.destructive_hint = true}},
                  [] { return std::string("cleared"); });
  mcp::http_server listener(server, http);
  if (auto started = listener.start(); !started) {
    std::fprintf(stderr, "http_auth: %s\n", started.error().message.c_str());
    return 1;
  }
  std::printf("listening on %s\n", listener.url().c_str());  // the port, when 0 was asked
  std::fflush(stdout);
  return listener.serve();
}
