#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>

namespace mcp {

void memory_connection::on_receive(std::function<void(std::string_view)> receiver) {
  std::lock_guard lock(mu_);
  receiver_ = std::make_shared<std::function<void(std::string_view)>>(std::move(receiver));
}

void memory_connection::on_close(std::function<void()> closed) {
  std::lock_guard lock(mu_);
  on_close_ = std::move(closed);
}

void memory_connection::send(std::string message, const send_context& /*ctx*/) {
  std::shared_ptr<memory_connection> peer;
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    peer = peer_.lock();
    ++sent_;
  }
  if (peer) peer->deliver(message);
}

void memory_connection::deliver(std::string_view message) {
  std::shared_ptr<std::function<void(std::string_view)>> r;
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    r = receiver_;
  }
  if (r && *r) (*r)(message);
}

void memory_connection::close() {
  std::shared_ptr<memory_connection> peer;
  std::function<void()> cb;
  std::shared_ptr<std::function<void(std::string_view)>> receiver;
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    closed_ = true;
    peer = peer_.lock();
    cb = std::move(on_close_);
    // The receiver usually holds the session that holds this connection: dropping it breaks
    // that cycle. It is destroyed outside the lock.
    receiver = std::move(receiver_);
  }
  if (cb) cb();
  if (peer) peer->closed_by_peer();
}

void memory_connection::closed_by_peer() { close(); }

std::size_t memory_connection::sent_count() const {
  std::lock_guard lock(mu_);
  return sent_;
}

std::pair<std::shared_ptr<memory_connection>, std::shared_ptr<memory_connection>>
make_memory_pair() {
  auto a = std::make_shared<memory_connection>();
  auto b = std::make_shared<memory_connection>();
  a->peer_ = b;
  b->peer_ = a;
  return {a, b};
}

result<in_process_client> connect_in_process(server& srv, client_options opts) {
  auto [server_end, client_end] = make_memory_pair();
  in_process_client c;
  c.session = srv.open_session(server_end);
  server_end->on_receive([s = c.session](std::string_view m) { s->receive(m); });
  c.client = std::make_shared<client_session>(client_end, std::move(opts));
  // A message a server thread delivers while the client is being destroyed finds it gone.
  client_end->on_receive([weak = std::weak_ptr<client_session>(c.client)](std::string_view m) {
    if (auto cl = weak.lock()) cl->receive(m);
  });
  if (auto init = c.client->initialize(); !init) return init.error();
  return c;
}

}  // namespace mcp
