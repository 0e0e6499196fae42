// The HTTP server's read path and protocol handler, sans sockets: the input is a byte stream
// on one connection (pipelined requests) read by the request_reader with the server's limits
// (Beast's parser: headers, chunked bodies, trailers; one reader reset per request), each complete
// request handled by the request_handler (sessions, Last-Event-ID, methods, content types). The
// literal text SESSION in the input is replaced by the id of a session the target opened, so that
// session paths are reachable. The first byte chooses stateful or stateless mode (bit 0) and
// whether the server is an OAuth protected resource (bit 1: bearer tokens "good" and "admin" are
// valid, the tool "code" needs scope admin; the metadata document and the 401/403 challenges are
// reachable).
#include <mcp/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"
#include "http/handler.hpp"
#include "http/request_reader.hpp"

namespace {

using namespace mcp::http_detail;

struct fixture {
  std::shared_ptr<mcp_fuzz::queue_executor> exec = std::make_shared<mcp_fuzz::queue_executor>();
  std::unique_ptr<mcp::server> server = mcp_fuzz::make_server(exec);
};

http_response handle(request_handler& h, request_reader& r) {
  http_request req;
  req.method = r.method();
  req.target = r.target();
  req.headers = r.headers();
  req.body = r.body();
  auto res = h.handle(req);
  (void)r.keep_alive();
  r.trim(res.stream != nullptr);  // as a connection does once the request is handled
  return res;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fixture f;
  if (size == 0) return 0;
  mcp::http_server_options opts;
  opts.stateless = (data[0] & 1U) != 0;
  opts.max_header_bytes = 4096;
  opts.max_body_bytes = 32768;
  const bool guarded = (data[0] & 2U) != 0;
  if (guarded) {
    opts.protected_resource =
        mcp::
            protected_resource_options{.resource = "https://mcp.fuzz/mcp?x=1",
                                       .authorization_servers = {"https://auth.fuzz"},
                                       .scopes_supported = {"mcp", "admin"},
                                       .required_scopes = {"mcp"},
                                       .verify = [](std::string_view
                                                        token) -> mcp::
                                                                   token_verdict {
                                                                     if (token != "good" &&
                                                                         token != "admin")
                                                                       return {
                                                                           .reason =
                                                                               "bad \"token\"\r\n"};
                                                                     mcp::principal p{
                                                                         .subject = "fuzz",
                                                                         .issuer =
                                                                             "https://auth.fuzz"};
                                                                     p.scopes = token == "admin" ? std::vector<std::string>{"mcp", "admin", "a\"b\r\n"}
                                      : std::vector<std::string>{"mcp"};
                                                                     return {.who = std::move(p)};
                                                                   }};
  }
  request_handler h({.srv = f.server.get(), .limits = f.server->options().limits}, opts,
                    [&](std::function<void()> work) { f.exec->post(work); });
  h.set_bound(true);
  std::string session;
  if (!opts.stateless) {
    const std::string init =
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}})";
    const std::string head =
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\n" +
        std::string(guarded ? "Authorization: Bearer good\r\n" : "") +
        "Content-Length: " + std::to_string(init.size()) + "\r\n\r\n";
    request_reader r({opts.max_header_bytes, opts.max_body_bytes});
    const std::string whole = head + init;
    (void)r.feed(whole);
    if (r.state() == request_reader::status::complete) {
      auto res = handle(h, r);
      for (const auto& [k, v] : res.headers) {
        if (k == "Mcp-Session-Id") session = v;
      }
    }
    f.exec->drain();
  }
  std::string input(reinterpret_cast<const char*>(data + 1), size - 1);
  for (std::size_t at = 0;
       !session.empty() && (at = input.find("SESSION", at)) != std::string::npos;) {
    input.replace(at, 7, session);
    at += session.size();
  }
  std::string_view rest = input;
  request_reader r({opts.max_header_bytes, opts.max_body_bytes});  // reset per request, as a
                                                                   // connection does
  for (int requests = 0; requests < 64 && !rest.empty(); ++requests) {
    if (requests != 0) r.reset();
    rest.remove_prefix(r.feed(rest));
    if (r.state() == request_reader::status::need_more) r.end_of_input();
    if (r.state() != request_reader::status::complete) break;
    auto res = handle(h, r);
    if (res.stream) {
      f.exec->drain();
      const auto generation = res.stream->attach([] {});
      (void)res.stream->take(generation, 0);
      res.stream->detach(generation);
    }
    f.exec->drain();
  }
  h.sessions().clear();
  f.exec->drain();
  return 0;
}
