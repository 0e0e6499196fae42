// Connecting `mcp-cpp` to a server: a command launched over stdio (mcp/transport/process.hpp)
// or a Streamable HTTP URL (mcp/http_client.hpp, with OAuth from mcp/oauth.hpp when the server
// asks for it and no Authorization header is given), then initialize.
#include <mcp/http_client.hpp>
#include <mcp/oauth.hpp>
#include <mcp/observe/otlp.hpp>
#include <mcp/observe/tracing.hpp>
#include <mcp/transport/process.hpp>

#include <boost/url/url.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "tools_cli.hpp"

namespace mcp::cli {

client_options client_options_for(const server_target& target) {
  client_options opts;
  opts.info = {.name = "mcp-cpp", .version = "0.1.0"};
  const double ms = std::max(1.0, std::round(target.timeout_seconds * 1000.0));
  opts.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(ms));
  opts.on_elicitation = ask_elicitation(target.elicit);  // declares elicitation (form, url)
  opts.elicitation_url = true;
  if (target.sampling == "ask") opts.on_sampling = ask_sampling();  // declares sampling
  if (!target.roots.empty()) {
    // roots/list: each --root as a file:// URI of its absolute path (percent-encoded).
    opts.roots.emplace();
    for (const auto& r : target.roots) {
      std::error_code ec;
      auto path = std::filesystem::absolute(r, ec).lexically_normal().string();
      while (path.size() > 1 && path.back() == '/') path.pop_back();  // "." → its directory
      boost::urls::url u;
      u.set_scheme("file");
      u.set_host("");
      u.set_path(path);
      opts.roots->push_back({.uri = std::string(u.buffer()),
                             .name = std::filesystem::path(path).filename().string()});
    }
  }
  opts.on_warning = [](std::string_view warning) {
    std::cerr << "mcp-cpp: warning: " << terminal_safe(warning) << "\n";
  };
  auto negotiation = parse_negotiation(target.protocol);
  if (!negotiation) throw std::invalid_argument("--protocol: " + negotiation.error().message);
  opts.negotiate = negotiation->first;
  if (!negotiation->second.empty()) opts.protocol_version = negotiation->second;
  if (!target.otlp.empty()) {
    // One exporter for the program's life: its destructor, at exit, sends what is queued.
    static std::shared_ptr<observe::otlp_exporter> exporter;
    if (!exporter) {
      observe::otlp_options o{.endpoint = target.otlp, .resource = {{"service.name", "mcp-cpp"}}};
      for (const auto& why : observe::apply_otel_environment(o)) {
        std::cerr << "mcp-cpp: warning: " << terminal_safe(why) << "\n";
      }
      auto made = observe::make_otlp_exporter(std::move(o));
      if (!made) throw std::invalid_argument("--otlp: " + made.error().message);
      exporter = std::move(*made);
    }
    opts.observer = observe::make_tracer({.sink = exporter->span_sink()});
  }
  return opts;
}

result<http_link> open_http(const server_target& target) {
  http_client_options opts;
  opts.url = target.url;
  opts.ca_file = target.ca_file;
  for (const auto& h : target.headers) {
    const auto colon = h.find(':');
    if (colon == std::string::npos || colon == 0) {
      return error{errc::invalid_params, "--header expects 'Name: value', got '" + h + "'"};
    }
    std::string value = h.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    opts.headers.emplace_back(h.substr(0, colon), std::move(value));
  }
  if (target.timeout_seconds > 60) {
    opts.read_timeout = std::chrono::milliseconds(
        static_cast<std::int64_t>(std::ceil(target.timeout_seconds * 1000.0)));
  }
  const bool own_authorization =
      std::any_of(opts.headers.begin(), opts.headers.end(), [](const auto& h) {
        std::string n = h.first;
        std::transform(n.begin(), n.end(), n.begin(), [](char c) { return std::tolower(c); });
        return n == "authorization";
      });
  http_link link;
  if (!own_authorization) {
    auto oauth = oauth_client_for(target);
    if (!oauth) return error{oauth.error().code, target.url + ": " + oauth.error().message};
    link.oauth = std::move(*oauth);
    opts.authorizer = link.oauth;
    // The first request may wait for the user to authorize in a browser.
    const auto login = std::chrono::seconds(static_cast<std::int64_t>(target.oauth.login_seconds));
    link.first_request_timeout = std::chrono::milliseconds(login) + std::chrono::seconds(30);
  }
  auto conn = make_http_client_connection(std::move(opts));
  if (!conn) return error{conn.error().code, target.url + ": " + conn.error().message};
  link.conn = std::move(*conn);
  return link;
}

namespace {

result<connected_server> connect_http(const server_target& target, client_options opts) {
  auto link = open_http(target);
  if (!link) return link.error();
  auto conn = link->conn;
  request_options init_opts;
  init_opts.timeout = std::max(link->first_request_timeout, opts.timeout);
  auto client = std::make_shared<client_session>(conn, std::move(opts));
  std::weak_ptr<client_session> weak = client;
  conn->on_receive([weak](std::string_view m) {
    if (auto c = weak.lock()) c->receive(m);
  });
  auto init = client->initialize(init_opts);
  if (!init) {
    client->close();
    return error{init.error().code, target.url + ": " + init.error().message};
  }
  // The stream on which the server sends what is not an answer to a request (its own
  // requests, such as elicitation, and notifications). A server without one says 405;
  // 2026-07-28 has none. Opened in the background: nothing waits for the server's answer.
  if (client->era() == protocol_era::legacy) conn->open_event_stream_in_background();
  return connected_server{std::move(client), target.url, std::move(conn), std::move(link->oauth)};
}

}  // namespace

std::shared_ptr<auth::token_store> token_store_for(const oauth_settings& o) {
  return std::make_shared<auth::file_token_store>(o.token_store.empty()
                                                      ? auth::file_token_store::default_path()
                                                      : std::filesystem::path(o.token_store));
}

std::string join_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    const bool plain =
        !a.empty() && a.find_first_of(" \t\n'\"\\$`*?;&|<>(){}[]!#~") == std::string::npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) {
      if (c == '\'') {
        out += "'\\''";
      } else {
        out += c;
      }
    }
    out += '\'';
  }
  return out;
}

result<connected_server> connect(const server_target& target) {
  return connect(target, client_options_for(target));
}

result<connected_server> connect(const server_target& target, client_options opts) {
  if (!target.url.empty() && !target.command.empty()) {
    return error{errc::invalid_params, "give either --url URL or -- CMD ARGS..., not both"};
  }
  if (!target.url.empty()) return connect_http(target, std::move(opts));
  if (target.command.empty()) {
    return error{errc::invalid_params,
                 "no server given: add -- CMD ARGS... (a server over stdio) or --url URL"};
  }
  if (!target.headers.empty()) {
    return error{errc::invalid_params, "--header applies to --url only"};
  }
  auto launched = launch_server({.argv = target.command}, std::move(opts));
  if (!launched) return launched.error();
  return connected_server{std::move(launched->client), join_command(target.command),
                          std::move(launched->process)};
}

}  // namespace mcp::cli
