// src/http/session.hpp: a connection's routes from the requests in flight to their response
// streams (a few kept in place, a hash map once there are more).
#include "http/session.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace {

using mcp::http_detail::response_stream;
using mcp::http_detail::routing_connection;
using mcp::jsonrpc::request_id;

std::shared_ptr<response_stream> one_answer_stream() {
  response_stream::config c;
  c.expected_finals = 1;
  return std::make_shared<response_stream>(std::move(c));
}

/// Request `i`'s id: numbers and strings mixed.
request_id id_of(std::size_t i) {
  if (i % 2 == 0) return request_id{static_cast<std::int64_t>(i)};
  return request_id{"r" + std::to_string(i)};
}

TEST(routing_connection, each_answer_reaches_its_request_however_many_are_in_flight) {
  for (const std::size_t n : {1U, 4U, 5U, 12U}) {
    routing_connection conn;
    std::vector<request_id> ids;
    std::vector<std::shared_ptr<response_stream>> streams;
    for (std::size_t i = 0; i < n; ++i) {
      ids.push_back(id_of(i));
      streams.push_back(one_answer_stream());
      ASSERT_TRUE(conn.register_requests({&ids.back(), 1}, streams.back())) << n << " " << i;
    }
    EXPECT_FALSE(conn.register_requests({&ids.front(), 1}, one_answer_stream()));  // in flight
    const request_id unknown{"nobody"};
    conn.send("dropped", mcp::send_context{.related_request = &unknown, .is_final_response = true});
    // Answered in another order than asked: every third, then the rest.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < n; i += 3) order.push_back(i);
    for (std::size_t i = 0; i < n; ++i) {
      if (i % 3 != 0) order.push_back(i);
    }
    for (const auto i : order) {
      EXPECT_TRUE(conn.busy());
      const auto text = "answer " + std::to_string(i);
      conn.send(text, mcp::send_context{.related_request = &ids[i], .is_final_response = true});
      EXPECT_EQ(streams[i]->take_json_answer(), text) << n << " " << i;
    }
    EXPECT_FALSE(conn.busy());
    // Fewer again after many: still routed, and a forgotten one leaves it idle.
    const request_id again{std::int64_t{1000}};
    auto s = one_answer_stream();
    ASSERT_TRUE(conn.register_requests({&again, 1}, s));
    EXPECT_TRUE(conn.busy());
    conn.forget_request(again);
    EXPECT_FALSE(conn.busy());
    ASSERT_TRUE(conn.register_requests({&again, 1}, s = one_answer_stream()));
    conn.send("late", mcp::send_context{.related_request = &again, .is_final_response = true});
    EXPECT_EQ(s->take_json_answer(), "late");
  }
}

TEST(routing_connection, closing_finishes_every_stream_in_flight) {
  routing_connection conn;
  std::vector<request_id> ids;
  std::vector<std::shared_ptr<response_stream>> streams;
  for (std::size_t i = 0; i < 7; ++i) {
    ids.push_back(id_of(i));
    streams.push_back(one_answer_stream());
    ASSERT_TRUE(conn.register_requests({&ids.back(), 1}, streams.back()));
  }
  conn.close();
  for (const auto& s : streams) EXPECT_TRUE(s->finished());
  EXPECT_FALSE(conn.busy());
  EXPECT_FALSE(conn.register_requests({&ids.front(), 1}, one_answer_stream()));
}

}  // namespace
