// File: mcp/transport/memory.hpp
//
// An in-memory transport: two connected ends, for tests and for embedding a server and a client
// in one process. A message sent on one end is handed, synchronously and on the sender's
// thread, to the receiver installed on the other end. No copies beyond the message string, no
// threads, no serialisation of its own: what the session sends is what the peer receives.
//
// `connect_in_process` does all of it: a client session on a server of this process, ready.
//
// Example:
//
//   auto c = mcp::connect_in_process(server, {.info = {.name = "test", .version = "1"}});
//   if (!c) return fail(c.error().message);
//   auto r = c->client->call_tool("echo", {{"text", "hi"}});
//
// By hand, the same:
//
//   auto [server_end, client_end] = mcp::make_memory_pair();
//   auto session = server.open_session(server_end);
//   server_end->on_receive([session](std::string_view m) { session->receive(m); });
//   mcp::client_session client(client_end);
//   client_end->on_receive([&client](std::string_view m) { client.receive(m); });
#pragma once

#include <mcp/client.hpp>
#include <mcp/transport.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <utility>

namespace mcp {

/// One end of an in-memory pair. Thread-safe. Once either end is closed, sends in both
/// directions are dropped, the other end's close callback runs, and both receivers are
/// released (so a receiver may hold the session that holds this connection).
class memory_connection final : public connection,
                                public std::enable_shared_from_this<memory_connection> {
 public:
  /// Installs what is done with messages arriving at this end (called on the sender's thread).
  void on_receive(std::function<void(std::string_view)> receiver);
  /// Installs what is done when the pair is closed (called once).
  void on_close(std::function<void()> closed);

  void send(std::string message, const send_context& ctx) override;
  void close() override;

  /// Messages sent through this end so far.
  [[nodiscard]] std::size_t sent_count() const;

 private:
  friend std::pair<std::shared_ptr<memory_connection>, std::shared_ptr<memory_connection>>
  make_memory_pair();
  void deliver(std::string_view message);
  void closed_by_peer();

  mutable std::mutex mu_;
  std::weak_ptr<memory_connection> peer_;
  std::shared_ptr<std::function<void(std::string_view)>> receiver_;
  std::function<void()> on_close_;
  bool closed_ = false;
  std::size_t sent_ = 0;
};

/// Two connected ends.
[[nodiscard]] std::pair<std::shared_ptr<memory_connection>, std::shared_ptr<memory_connection>>
make_memory_pair();

class server;
class server_session;

/// A client session connected to a server of this process through a memory pair.
struct in_process_client {
  std::shared_ptr<server_session> session;  ///< the server's side
  std::shared_ptr<client_session> client;   ///< initialized
};
/// Opens a session on `srv`, connects a client with `opts` to it and initializes it. `srv` must
/// outlive the result. Errors: those of initialize.
[[nodiscard]] result<in_process_client> connect_in_process(server& srv, client_options opts = {});

}  // namespace mcp
