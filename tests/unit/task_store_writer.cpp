// A process that writes into a SQLite task store until it is killed, for the kill -9 test in
// task_store_sqlite_test.cpp. Usage: mcp_task_store_writer DB normal|full PREFIX
//
// Eight threads each loop: create a task (ids start with PREFIX), print "created <id>",
// complete it with a payload naming the id, print "completed <id>". A line is printed only
// after the store acknowledged the write, so every id printed must be in the file however the
// process ends. Several of them may write into one file at once.
#include <mcp/task_store.hpp>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <unistd.h>

namespace {

std::mutex out_mu;

/// Writes `line` and a newline to stdout in one write (a pipe: whole lines only).
void say(std::string_view what, const std::string& id) {
  std::string line;
  line.append(what).append(" ").append(id).append("\n");
  const std::lock_guard lock(out_mu);
  std::size_t off = 0;
  while (off < line.size()) {
    const ssize_t n = ::write(STDOUT_FILENO, line.data() + off, line.size() - off);
    if (n <= 0) std::_Exit(3);  // the reader went away
    off += static_cast<std::size_t>(n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: mcp_task_store_writer DB normal|full PREFIX\n");
    return 2;
  }
  const bool full = std::strcmp(argv[2], "full") == 0;
  const std::string prefix = argv[3];
  auto store =
      mcp::make_sqlite_task_store({.path = argv[1],
                                   .durability = full ? mcp::sqlite_durability::power_loss
                                                      : mcp::sqlite_durability::process_crash});
  if (!store) {
    std::fprintf(stderr, "%s\n", store.error().message.c_str());
    return 1;
  }
  std::vector<std::thread> writers;
  for (int w = 0; w < 8; ++w) {
    writers.emplace_back([&, w] {
      for (long i = 0;; ++i) {
        const auto now = std::chrono::system_clock::now();
        const std::string id = prefix + std::to_string(w) + "-" + std::to_string(i);
        if (!(*store)->create({.id = id,
                               .owner = "alice",
                               .created_at = now,
                               .last_updated_at = now,
                               .method = "tools/call"})) {
          std::_Exit(4);
        }
        say("created", id);
        const mcp::json::object payload{
            {"result", mcp::json::object{{"content", mcp::json::array{mcp::json::object{
                                                         {"type", "text"}, {"text", id}}}}}}};
        auto u = (*store)->update(id, "alice",
                                  {.status = mcp::task_status::completed, .payload = payload});
        if (!u || !*u || (*u)->status != mcp::task_status::completed) std::_Exit(5);
        say("completed", id);
      }
    });
  }
  for (auto& t : writers) t.join();  // never: the test kills the process
}
