// make_http_client_connection, and connect_http: a client session over Streamable HTTP,
// initialized, with the event stream opening in the background.
#include <mcp/http_client.hpp>

#include <exception>

namespace mcp {

result<std::shared_ptr<http_client_connection>> make_http_client_connection(
    http_client_options opts) {
  try {  // the constructor refuses what it cannot use by throwing; no exception leaves here
    return std::shared_ptr<http_client_connection>(new http_client_connection(std::move(opts)));
  } catch (const std::exception& e) {
    return error{errc::invalid_params, e.what()};
  }
}

result<http_server_link> connect_http(http_client_options http, client_options client,
                                      const request_options& init) {
  const std::string url = http.url;
  auto made = make_http_client_connection(std::move(http));
  if (!made) return error{made.error().code, url + ": " + made.error().message};
  auto conn = std::move(*made);
  if (client.origin.empty()) {  // what the verdict and shared results are remembered under
    client.origin = url.substr(0, url.find_first_of("?#"));
  }
  auto session = std::make_shared<client_session>(conn, std::move(client));
  std::weak_ptr<client_session> weak = session;
  conn->on_receive([weak](std::string_view m) {
    if (auto c = weak.lock()) c->receive(m);
  });
  auto r = session->initialize(init);
  if (!r) {
    session->close();
    auto e = r.error();
    e.message = url + ": " + e.message;
    return e;
  }
  // The stream on which the server sends what is not an answer to a request (its own requests,
  // such as elicitation, and notifications). A server without one says 405. 2026-07-28 has
  // none (subscriptions/listen takes its place). Opened in the background: a server may hold
  // back the GET's response headers until it has something to send, and no call waits for it.
  if (session->era() == protocol_era::legacy) conn->open_event_stream_in_background();
  return http_server_link{std::move(conn), std::move(session)};
}

}  // namespace mcp
