// The parts of `mcp-cpp tools`: connecting to a server (connect.cpp), turning KEY=VALUE words
// into arguments typed by a tool's inputSchema (args.cpp), and showing tools and results to a
// person (render.cpp). tools_command.cpp puts them together.
#pragma once

#include <mcp/client.hpp>
#include <mcp/json.hpp>
#include <mcp/oauth.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace mcp::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_failed = 1;  ///< the command ran and found a problem
inline constexpr int exit_usage = 2;   ///< bad arguments, unreadable input, schema error

// ---- connect.cpp ----

/// OAuth for an HTTP server that asks for it (401): how tokens are obtained, who this client
/// is, where its tokens are kept, how the user's browser comes back (oauth_options.cpp).
struct oauth_settings {
  std::string grant = "code";  ///< code | client-credentials | jwt-bearer | enterprise
  std::string client_id{};     ///< a pre-registered client (empty: register)
  std::string client_secret{};
  std::string client_key_file{};      ///< private_key_jwt: the client's PEM private key
  std::string client_key_alg{};       ///< empty: the key's own
  std::string client_issuer{};        ///< the authorization server the client is registered with
  std::string client_metadata_url{};  ///< a Client ID Metadata Document URL (empty: none)
  std::vector<std::string> scopes{};  ///< empty: as the server says
  std::string assertion{};            ///< jwt-bearer: the JWT itself
  std::string assertion_file{};       ///< jwt-bearer: a file holding it, read at each use
  std::string idp_token_endpoint{};   ///< enterprise: the identity provider
  std::string idp_issuer{};
  std::string idp_client_id{};
  std::string idp_client_secret{};
  std::string id_token{};           ///< enterprise: the user's ID token
  std::string id_token_file{};      ///< enterprise: a file holding it, read at each use
  bool dpop = false;                ///< bind tokens to a key (DPoP)
  std::string dpop_key_file{};      ///< empty: a key made for this run
  std::string token_store{};        ///< empty: auth::file_token_store::default_path()
  std::uint16_t redirect_port = 0;  ///< 0: any free port
  double login_seconds = 300;       ///< how long the user has to authorize in the browser
};

/// Where the server is: a command to launch (`-- CMD ARGS...`) or a Streamable HTTP URL.
struct server_target {
  std::vector<std::string> command{};  ///< after `--`
  std::string url{};
  std::vector<std::string> headers{};  ///< "Name: value", HTTP only
  std::string ca_file{};               ///< https: trust these certificates (and for OAuth)
  double timeout_seconds = 60;         ///< every request
  oauth_settings oauth{};              ///< HTTP only, unless an Authorization header is given
  std::string elicit = "ask";          ///< ask | accept-defaults | decline (elicit.cpp)
  std::string sampling = "none";       ///< none (not offered) | ask (elicit.cpp)
  std::vector<std::string> roots{};    ///< directories offered as roots (roots/list)
  std::string otlp{};                  ///< an OTLP/HTTP collector for the client's spans
  /// How the revision is negotiated: "legacy", "auto" or a revision (mcp::parse_negotiation).
  std::string protocol = "legacy";
};

/// A client session initialized against the server; closing it ends the server or the HTTP
/// session.
struct connected_server {
  std::shared_ptr<client_session> client;
  std::string description;          ///< the command line or URL, for messages and the audit log
  std::shared_ptr<void> transport;  ///< keeps the transport alive with the session
  /// The OAuth client of an HTTP connection (null: stdio, or an Authorization header given).
  std::shared_ptr<auth::oauth_client> oauth{};
};

/// The client's options for `target`: its name, the request timeout, the elicitation handler
/// (`target.elicit`) and, with `target.roots`, the roots capability and its roots/list answer
/// (each directory as a file:// URI of its absolute path) and, with `target.otlp`, a tracer
/// whose spans go to that collector (flushed when the program ends), and the negotiation
/// `target.protocol` names. Throws `std::invalid_argument` when `target.otlp` is not a usable
/// URL or `target.protocol` is not a form `mcp::parse_negotiation` reads.
client_options client_options_for(const server_target& target);

/// The token store `o` names (its `token_store`, else the default file).
std::shared_ptr<auth::token_store> token_store_for(const oauth_settings& o);

/// The OAuth client for `target.url` as `target.oauth` asks (oauth_options.cpp): the grant, the
/// keys and files read. Errors: `errc::invalid_params` for a file that cannot be read, options
/// that do not go together, or what `auth::make_oauth_client` refuses.
result<std::shared_ptr<auth::oauth_client>> oauth_client_for(const server_target& target);

/// A Streamable HTTP connection to `target.url` with its headers, CA file and (unless an
/// Authorization header is given) an OAuth client.
struct http_link {
  std::shared_ptr<http_client_connection> conn;
  std::shared_ptr<auth::oauth_client> oauth;  ///< null with an Authorization header
  /// How long the first request may take (a user authorizing in the browser); 0: no OAuth.
  std::chrono::milliseconds first_request_timeout{0};
};
/// Errors: a malformed --header, an unusable URL or CA file.
result<http_link> open_http(const server_target& target);

/// Launches or connects, then initializes. Errors: a usage error (no server, both kinds, a bad
/// header), a spawn or connection error, the initialize error; each message is one line.
result<connected_server> connect(const server_target& target);
/// `connect` with the client's options given (`client_options_for(target)` with hooks added:
/// confirmation, audit).
result<connected_server> connect(const server_target& target, client_options opts);

/// The command line as one shell-like string, for display.
std::string join_command(const std::vector<std::string>& argv);

// ---- elicit.cpp ----

/// Answers elicitation/create: `mode` "ask" asks on the terminal (form fields one by one with
/// their defaults; a URL shown) and declines when stdin is not a terminal; "accept-defaults"
/// accepts a form with the schema's defaults (declining when a required field has none, and
/// every URL); "decline" declines all.
elicitation_handler ask_elicitation(const std::string& mode);
/// Answers sampling/createMessage on the terminal: the request is shown and the reply typed;
/// refused (-1) on an empty reply, without a terminal, or while a command prompt reads stdin.
sampling_handler ask_sampling();
/// Tells the "ask" handlers that a command prompt is reading stdin (true) or not: while it is,
/// a server's request for input (not tied to a running call) is declined rather than read
/// from the same stdin.
void set_prompt_reading(bool reading);
/// Waits up to `at_most` for a question on the terminal to end. Closing a session ends its
/// questions (each says so on the terminal, within 100 ms); the command waits for that before
/// it exits, so that the last thing printed is not cut off.
void wait_for_prompts(std::chrono::milliseconds at_most);

// ---- args.cpp ----

/// Builds a tools/call `arguments` object: `args_json` (a JSON object, may be empty) with each
/// `KEY=VALUE` applied on top, VALUE typed by the property's schema in `input_schema` (numbers,
/// booleans, null, arrays and objects parsed as JSON where the schema allows them; otherwise
/// the text as a string). Errors: `errc::invalid_params` for a word without '=' or `args_json`
/// that is not a JSON object.
result<json::object> build_arguments(const json::object& input_schema, const std::string& args_json,
                                     const std::vector<std::string>& key_values);

/// Checks `arguments` against `input_schema` with the project's validator. Errors:
/// `errc::invalid_params` with the schema's reason ("/days: 99 is greater than the maximum
/// 16"); a schema that does not compile is not an error here (`warning` says so).
result<void> check_arguments(const json::object& input_schema, const json::object& arguments,
                             std::string& warning);

// ---- render.cpp ----

/// The tool's annotation badges ("read-only", "destructive", "idempotent", "open-world"), as the
/// spec's defaults read them: a tool without hints is presumed destructive and open-world.
std::vector<std::string> badges(const tool_info& tool);
/// True when the tool says readOnlyHint: true.
bool read_only(const tool_info& tool);
/// "forbidden", "optional" or "required" (execution.taskSupport; forbidden when unknown).
std::string task_support(const tool_info& tool);

/// A table of the tools: name, badges, task support, first line of the description.
void print_tool_table(std::ostream& out, const std::vector<tool_info>& tools);
/// A tool's title, description, badges and every argument with its type, whether it is
/// required, its default, range, length, pattern and enum.
void print_tool_description(std::ostream& out, const tool_info& tool);

/// Writes a CallToolResult for a person: text blocks as text, structuredContent pretty-printed
/// (a text block that only repeats it is skipped), images, audio and binary resources saved
/// under `out_dir` (named on screen), links and text resources named. Errors: a file that
/// cannot be written.
result<void> print_call_result(std::ostream& out, const json::object& result,
                               const std::string& tool, const std::string& out_dir);

/// A string member of something the server sent, made safe to show (`terminal_safe`); empty
/// when absent or not a string.
std::string string_at(const json::object& o, std::string_view key);

/// Says why on stderr ("mcp-cpp: ...", terminal-safe: it may quote the server) and returns the
/// exit status of a usage, connection or protocol error.
int fail(std::string_view message);

/// `v` as indented JSON (two spaces), for people.
std::string pretty_json(const json::value& v);

/// `text` (from the server) made harmless for a terminal: control characters other than newline
/// and tab as `\xNN`, C1 controls and bidirectional overrides as `\uNNNN`, so that no escape
/// sequence reaches the terminal and no text hides other text. Everything render.cpp shows of
/// the server goes through it; `--json` output is raw.
std::string terminal_safe(std::string_view text);

}  // namespace mcp::cli
