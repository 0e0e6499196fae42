// src/http/request_reader.hpp: one request from bytes, with the server's limits, never throwing.
#include "http/request_reader.hpp"

#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace {

using mcp::http_detail::request_limits;
using mcp::http_detail::request_reader;
using status = request_reader::status;

const request_limits limits{.max_header_bytes = 16384, .max_body_bytes = 1 << 20};

/// Feeds `bytes` in pieces of `step`, as a socket would deliver them, keeping what the reader
/// left unconsumed.
request_reader& feed_all(request_reader& r, const std::string& bytes, std::size_t step) {
  std::string pending;
  for (std::size_t i = 0; i < bytes.size() && r.state() == status::need_more; i += step) {
    pending += bytes.substr(i, step);
    pending.erase(0, r.feed(pending));
  }
  return r;
}

std::string chunked_post(const std::string& trailer) {
  return "POST /mcp HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
         "2\r\n{}\r\n0\r\n" +
         trailer + "\r\n";
}

TEST(request_reader, reads_a_request_in_any_split) {
  const std::string req = "POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 7\r\n\r\n{\"a\":1}";
  for (std::size_t step : {1U, 3U, 17U, 1000U}) {
    request_reader r(limits);
    feed_all(r, req, step);
    ASSERT_EQ(r.state(), status::complete) << step;
    EXPECT_EQ(r.body(), "{\"a\":1}");
    EXPECT_EQ(r.method(), "POST");
    EXPECT_EQ(r.target(), "/mcp");
  }
}

TEST(request_reader, leaves_a_pipelined_request_unconsumed) {
  const std::string one = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n";
  request_reader r(limits);
  const std::string both = one + "GET /b HTTP/1.1\r\nHost: h\r\n\r\n";
  EXPECT_EQ(r.feed(both), one.size());
  EXPECT_EQ(r.state(), status::complete);
}

TEST(request_reader, a_trailer_field_of_64_kib_within_the_limit_is_read_and_dropped) {
  // Beast's own field container throws std::length_error for such a value (the server once
  // died of it); trailer fields are not kept at all.
  request_reader r(request_limits{.max_header_bytes = 1 << 20, .max_body_bytes = 1 << 20});
  feed_all(r, chunked_post("X-T: " + std::string(70000, 'a') + "\r\n"), 70000 + 200);
  ASSERT_EQ(r.state(), status::complete);
  EXPECT_EQ(r.body(), "{}");
  ASSERT_EQ(r.headers().size(), 2U);
  EXPECT_EQ(r.headers()[1].first, "Transfer-Encoding");
}

TEST(request_reader, a_trailer_beyond_the_header_limit_is_431_without_buffering_it) {
  request_reader r(limits);
  const std::string req = chunked_post("X-T: " + std::string(70000, 'a') + "\r\n");
  std::string pending;
  std::size_t most_pending = 0;
  for (std::size_t i = 0; i < req.size() && r.state() == status::need_more; i += 512) {
    pending += req.substr(i, 512);
    pending.erase(0, r.feed(pending));
    most_pending = std::max(most_pending, pending.size());
  }
  EXPECT_EQ(r.state(), status::failed);
  EXPECT_EQ(r.failure_status(), 431U);
  EXPECT_LE(most_pending, limits.max_header_bytes + 512);
  // Many small trailer fields add up the same way.
  std::string many;
  for (int i = 0; i < 2000; ++i) many += "X-" + std::to_string(i) + ": v\r\n";
  request_reader r2(limits);
  feed_all(r2, chunked_post(many), 4096);
  EXPECT_EQ(r2.failure_status(), 431U);
}

TEST(request_reader, a_small_trailer_is_accepted_and_is_not_a_header) {
  request_reader r(limits);
  feed_all(r, chunked_post("X-T: v\r\nMcp-Session-Id: s\r\n"), 5);
  ASSERT_EQ(r.state(), status::complete);
  EXPECT_EQ(r.body(), "{}");
  ASSERT_EQ(r.headers().size(), 2U);  // Host and Transfer-Encoding
  for (const auto& [name, value] : r.headers()) {
    EXPECT_NE(name, "X-T");
    EXPECT_NE(name, "Mcp-Session-Id");
  }
}

TEST(request_reader, gives_the_request_line_and_every_field_as_received) {
  request_reader r(limits);
  feed_all(r,
           "PUT /mcp?x=1 HTTP/1.1\r\nX-Dup: 1\r\nHost: h\r\nx-dup: 2\r\nExpect: 100-Continue\r\n"
           "Content-Length: 2\r\n\r\nab",
           3);
  ASSERT_EQ(r.state(), status::complete);
  EXPECT_EQ(r.method(), "PUT");
  EXPECT_EQ(r.target(), "/mcp?x=1");
  const std::vector<mcp::http_header> want{{"X-Dup", "1"},
                                           {"Host", "h"},
                                           {"x-dup", "2"},
                                           {"Expect", "100-Continue"},
                                           {"Content-Length", "2"}};
  EXPECT_EQ(std::vector<mcp::http_header>(r.headers().begin(), r.headers().end()), want);
  EXPECT_TRUE(r.expects_continue());
  EXPECT_TRUE(r.keep_alive());
  EXPECT_EQ(r.body(), "ab");
}

TEST(request_reader, says_whether_the_connection_stays_open) {
  const std::pair<std::string, bool> cases[] = {
      {"GET / HTTP/1.1\r\nHost: h\r\n\r\n", true},
      {"GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", false},
      {"GET / HTTP/1.0\r\n\r\n", false},
      {"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true},
      // Every Connection field counts (RFC 9110 joins them into one list), trailers too.
      {"GET / HTTP/1.1\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n", false},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nConnection: close\r\n\r\n",
       false},
  };
  for (const auto& [text, open] : cases) {
    request_reader r(limits);
    feed_all(r, text, 1000);
    ASSERT_EQ(r.state(), status::complete) << text;
    EXPECT_EQ(r.keep_alive(), open) << text;
    EXPECT_FALSE(r.expects_continue());
  }
}

TEST(request_reader, joins_a_body_of_many_chunks) {
  request_reader r(limits);
  feed_all(r,
           "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n"
           "1\r\nf\r\n0\r\n\r\n",
           1);
  ASSERT_EQ(r.state(), status::complete);
  EXPECT_EQ(r.body(), "abcdef");
}

TEST(request_reader, storage_kept_between_alike_requests_holds_only_the_current_one) {
  // Below the kept sizes, reset() keeps the storage: each request must still read as itself.
  const std::string requests[] = {
      "POST /first/target HTTP/1.1\r\nHost: one\r\nX-A: 1\r\nX-B: 2\r\nContent-Length: "
      "11\r\n\r\nhello world",
      "GET /b HTTP/1.1\r\nHost: h\r\n\r\n",
      "DELETE /c?q HTTP/1.1\r\nMcp-Session-Id: s\r\nContent-Length: 3\r\n\r\nxyz",
      "GET /b HTTP/1.1\r\nHost: h\r\n\r\n",
  };
  const std::vector<std::vector<mcp::http_header>> fields = {
      {{"Host", "one"}, {"X-A", "1"}, {"X-B", "2"}, {"Content-Length", "11"}},
      {{"Host", "h"}},
      {{"Mcp-Session-Id", "s"}, {"Content-Length", "3"}},
      {{"Host", "h"}},
  };
  const char* const methods[] = {"POST", "GET", "DELETE", "GET"};
  const char* const targets[] = {"/first/target", "/b", "/c?q", "/b"};
  const char* const bodies[] = {"hello world", "", "xyz", ""};
  request_reader r(limits);
  for (int round = 0; round < 2; ++round) {
    for (std::size_t i = 0; i < std::size(requests); ++i) {
      r.reset();
      feed_all(r, requests[i], 5);
      ASSERT_EQ(r.state(), status::complete) << i;
      EXPECT_EQ(r.method(), methods[i]);
      EXPECT_EQ(r.target(), targets[i]);
      EXPECT_EQ(std::vector<mcp::http_header>(r.headers().begin(), r.headers().end()), fields[i]);
      EXPECT_EQ(r.body(), bodies[i]);
      if (i % 2 == 1) r.trim();  // as a connection does once a request is handled
    }
  }
  r.trim(true);
  EXPECT_TRUE(r.headers().empty());
  EXPECT_TRUE(r.method().empty());
  EXPECT_EQ(r.state(), status::complete);  // trim keeps the state: the request was read
}

TEST(request_reader, reset_reads_the_next_request_with_nothing_of_the_last) {
  request_reader r(limits);
  const std::string big = "POST /a HTTP/1.1\r\nX-Big: " + std::string(9000, 'b') +
                          "\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n" +
                          std::string(5000, 'x');
  const std::string small = "GET /b HTTP/1.1\r\nHost: h\r\n\r\n";
  const std::string both = big + small;
  EXPECT_EQ(r.feed(both), big.size());
  ASSERT_EQ(r.state(), status::complete);
  EXPECT_EQ(r.headers()[0].second.size(), 9000U);
  EXPECT_EQ(r.body().size(), 5000U);
  for (int i = 0; i < 3; ++i) {  // storage kept from one request to the next stays right
    r.reset();
    EXPECT_FALSE(r.started());
    EXPECT_FALSE(r.header_done());
    EXPECT_EQ(r.feed(std::string_view(both).substr(big.size())), small.size());
    ASSERT_EQ(r.state(), status::complete);
    EXPECT_EQ(r.method(), "GET");
    EXPECT_EQ(r.target(), "/b");
    ASSERT_EQ(r.headers().size(), 1U);
    EXPECT_EQ(r.headers()[0], mcp::http_header("Host", "h"));
    EXPECT_EQ(r.body(), "");
    EXPECT_FALSE(r.expects_continue());
  }
  r.reset();  // and a failure is gone with the request that failed
  feed_all(r, "GARBAGE\x01 / HTTP/9\r\n\r\n", 100);
  EXPECT_EQ(r.failure_status(), 400U);
  r.reset();
  EXPECT_EQ(r.state(), status::need_more);
  EXPECT_EQ(r.failure_status(), 0U);
  feed_all(r, small, 7);
  EXPECT_EQ(r.state(), status::complete);
}

TEST(request_reader, limits_give_431_and_413) {
  request_reader header(limits);
  feed_all(header, "GET / HTTP/1.1\r\nX: " + std::string(20000, 'a') + "\r\n\r\n", 1000);
  EXPECT_EQ(header.failure_status(), 431U);
  request_reader body(limits);
  feed_all(body, "POST / HTTP/1.1\r\nContent-Length: 2000000\r\n\r\n" + std::string(1000, 'a'),
           100);
  EXPECT_EQ(body.failure_status(), 413U);
  request_reader chunk_line(limits);
  feed_all(chunk_line,
           "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1;" + std::string(40000, 'e'),
           1000);
  EXPECT_EQ(chunk_line.failure_status(), 431U);
}

TEST(request_reader, malformed_and_truncated_requests_are_400) {
  request_reader bad(limits);
  feed_all(bad, "GARBAGE\x01\x02 / HTTP/9\r\n\r\n", 4);
  EXPECT_EQ(bad.failure_status(), 400U);
  request_reader truncated(limits);
  feed_all(truncated, "POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc", 100);
  EXPECT_EQ(truncated.state(), status::need_more);
  truncated.end_of_input();
  EXPECT_EQ(truncated.failure_status(), 400U);
  request_reader nothing(limits);
  nothing.end_of_input();
  EXPECT_EQ(nothing.state(), status::need_more);
  EXPECT_FALSE(nothing.started());
}

}  // namespace
