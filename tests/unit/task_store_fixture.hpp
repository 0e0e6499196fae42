// Shared by the task store tests (task_store_test.cpp, task_store_sqlite_test.cpp): a database
// path removed with its companions, task records, and a field-by-field comparison.
#pragma once

#include <mcp/json.hpp>
#include <mcp/task_store.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include <unistd.h>

namespace mcp::test {

/// A fresh database path in the temp directory; the file and its WAL companions are removed
/// when it goes.
class temp_db {
 public:
  temp_db() {
    static std::atomic<int> counter{0};
    path_ =
        (std::filesystem::temp_directory_path() /
         ("mcp_task_store_" + std::to_string(::getpid()) + "_" + std::to_string(++counter) + ".db"))
            .string();
    remove();
  }
  temp_db(const temp_db&) = delete;
  temp_db& operator=(const temp_db&) = delete;
  ~temp_db() { remove(); }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  void remove() const {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      std::filesystem::remove(path_ + suffix, ec);
    }
  }
  std::string path_;
};

inline std::chrono::system_clock::time_point now_ms() {
  return std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now());
}

inline mcp::task_record make_task(std::string id, std::string owner = "alice") {
  mcp::task_record t;
  t.id = std::move(id);
  t.owner = std::move(owner);
  t.created_at = now_ms();
  t.last_updated_at = t.created_at;
  t.method = "tools/call";
  return t;
}

inline void expect_same(const mcp::task_record& a, const mcp::task_record& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.owner, b.owner);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.status_message, b.status_message);
  EXPECT_EQ(a.created_at, b.created_at);
  EXPECT_EQ(a.last_updated_at, b.last_updated_at);
  EXPECT_EQ(a.ttl, b.ttl);
  EXPECT_EQ(a.poll_interval, b.poll_interval);
  EXPECT_EQ(a.method, b.method);
  EXPECT_EQ(a.payload, b.payload);
  EXPECT_EQ(a.input_request, b.input_request);
  EXPECT_EQ(a.input_response, b.input_response);
  EXPECT_EQ(a.rerun, b.rerun);
}

inline mcp::json::object result_payload(std::string_view text) {
  return mcp::parse_json(R"({"result":{"content":[{"type":"text","text":")" + std::string(text) +
                         R"("}]}})")
      .value()
      .as_object();
}

}  // namespace mcp::test
