// Package test: a program built against the installed mcp::redis. With a Redis URL it writes
// and reads a key and opens a task store there; without one it makes a client (nothing is
// connected before the first command) and checks that a bad URL is refused.
#include <mcp/redis.hpp>
#include <mcp/server.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  if (mcp::make_redis_client({.url = "http://127.0.0.1"})) return 1;  // not a Redis URL
  auto client = mcp::make_redis_client({.url = argc > 1 ? argv[1] : "redis://127.0.0.1:1"});
  if (!client) return 1;
  if (argc < 2) {
    std::puts("redis: client made (no server asked), a bad URL refused");
    return 0;
  }
  auto set = (*client)->command({"SET", "package-test", "stored"});
  auto got = (*client)->command({"GET", "package-test"});
  if (!set || !got || got->str != "stored") return 1;
  auto tasks = mcp::make_redis_task_store(*client);
  if (!tasks) return 1;
  mcp::server server({.info = {.name = "redis-backed", .version = "1"}, .task_store = *tasks});
  std::printf("redis: GET package-test = %s; task store ready\n", got->str.c_str());
  return 0;
}
