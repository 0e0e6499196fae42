// Built by the consumer tests: registers a typed tool and calls it over the in-memory pair, and
// links the token verifier (mcp::auth, which brings OpenSSL).
#include <mcp/auth.hpp>
#include <mcp/client.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>

#include <cstdio>

struct add_in {
  double a;
  double b;
};
BOOST_DESCRIBE_STRUCT(add_in, (), (a, b))
struct add_out {
  double sum;
};
BOOST_DESCRIBE_STRUCT(add_out, (), (sum))

int main() {
  mcp::server server({.info = {.name = "consumer", .version = "1"}});
  server.add_tool({.name = "add", .description = "Add two numbers"},
                  [](const add_in& in) { return add_out{in.a + in.b}; });
  auto [server_end, client_end] = mcp::make_memory_pair();
  auto session = server.open_session(server_end);
  server_end->on_receive([session](std::string_view m) { session->receive(m); });
  mcp::client_session client(client_end);
  client_end->on_receive([&client](std::string_view m) { client.receive(m); });
  if (!client.initialize()) return 1;
  auto r = client.call_tool("add", {{"a", 2}, {"b", 3}});
  if (!r) return 1;
  if (mcp::auth::key_set::parse(R"({"keys":[]})").value().size() != 0) return 1;
  const double sum = r->at("structuredContent").at("sum").to_number<double>();
  std::printf("sum=%g\n", sum);
  return sum == 5 ? 0 : 1;
}
