#include <mcp/jsonrpc.hpp>

#include <gtest/gtest.h>

#include "jsonrpc_text.hpp"

namespace {

namespace rpc = mcp::jsonrpc;

rpc::message decode_ok(std::string_view text) {
  auto v = mcp::parse_json(text);
  EXPECT_TRUE(v);
  auto m = rpc::decode(std::move(*v));
  EXPECT_TRUE(m) << text;
  return m ? *m : rpc::message{rpc::orphan_error{}};
}

rpc::decode_error decode_bad(std::string_view text) {
  auto v = mcp::parse_json(text);
  EXPECT_TRUE(v);
  auto m = rpc::decode(std::move(*v));
  EXPECT_FALSE(m) << text;
  return m ? rpc::decode_error{} : m.error();
}

TEST(jsonrpc, decodes_the_four_kinds) {
  auto r = decode_ok(R"({"jsonrpc":"2.0","id":"a","method":"m","params":{"x":1}})");
  ASSERT_TRUE(std::holds_alternative<rpc::request>(r));
  EXPECT_EQ(std::get<rpc::request>(r).id, rpc::request_id{std::string("a")});
  EXPECT_EQ(std::get<rpc::request>(r).params.at("x"), 1);
  auto n = decode_ok(R"({"jsonrpc":"2.0","method":"n"})");
  EXPECT_TRUE(std::holds_alternative<rpc::notification>(n));
  auto ok = decode_ok(R"({"jsonrpc":"2.0","id":3,"result":{}})");
  ASSERT_TRUE(std::holds_alternative<rpc::response>(ok));
  EXPECT_TRUE(std::get<rpc::response>(ok).result);
  auto err = decode_ok(R"({"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no","data":5}})");
  ASSERT_TRUE(std::holds_alternative<rpc::response>(err));
  EXPECT_EQ(std::get<rpc::response>(err).err->code, -1);
  EXPECT_EQ(std::get<rpc::response>(err).err->data, mcp::json::value(5));
  auto orphan = decode_ok(R"({"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}})");
  EXPECT_TRUE(std::holds_alternative<rpc::orphan_error>(orphan));
}

TEST(jsonrpc, rejects_invalid_messages_keeping_readable_ids) {
  EXPECT_EQ(decode_bad(R"({"jsonrpc":"2.0","id":null,"method":"m"})").id, std::nullopt);
  EXPECT_EQ(decode_bad(R"({"jsonrpc":"2.0","id":1.5,"method":"m"})").id, std::nullopt);
  EXPECT_EQ(decode_bad(R"({"jsonrpc":"2.0","id":{},"method":"m"})").id, std::nullopt);
  EXPECT_EQ(decode_bad(R"({"jsonrpc":"2.1","id":7,"method":"m"})").id, rpc::request_id{7});
  EXPECT_EQ(decode_bad(R"({"id":7,"method":"m"})").err.code, -32600);
  EXPECT_EQ(decode_bad(R"({"jsonrpc":"2.0","id":7,"method":"m","params":"x"})").id,
            rpc::request_id{7});
  EXPECT_EQ(decode_bad(R"({"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":""}})")
                .err.code,
            -32600);
  EXPECT_EQ(decode_bad(R"({"jsonrpc":"2.0","id":7})").err.code, -32600);
  EXPECT_EQ(decode_bad("[1]").err.code, -32600);
}

TEST(jsonrpc, encodes_a_batch_answer_as_one_array_or_nothing) {
  const std::vector<std::string> two{R"({"jsonrpc":"2.0","id":1,"result":{}})",
                                     R"({"jsonrpc":"2.0","id":2,"result":{}})"};
  EXPECT_EQ(rpc::encode_batch(two),
            R"([{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}])");
  EXPECT_EQ(rpc::encode_batch(std::span(two).first(1)), "[" + two[0] + "]");
  EXPECT_EQ(rpc::encode_batch({}), "");
}

TEST(jsonrpc, encodes_compactly) {
  EXPECT_EQ(rpc::encode_result(rpc::request_id{1}, mcp::json::object{{"a", "b"}}),
            R"({"jsonrpc":"2.0","id":1,"result":{"a":"b"}})");
  EXPECT_EQ(rpc::encode_result(rpc::request_id{std::string("x\"y")}, mcp::json::object{}),
            R"({"jsonrpc":"2.0","id":"x\"y","result":{}})");
  EXPECT_EQ(rpc::encode_error(std::nullopt, mcp::error{mcp::errc::parse_error, "Parse error"}),
            R"({"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}})");
  EXPECT_EQ(rpc::encode_error(rpc::request_id{2}, mcp::error{-32602, "bad", mcp::json::value(1)}),
            R"({"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad","data":1}})");
  EXPECT_EQ(rpc::encode_request(rpc::request_id{9}, "ping", {}),
            R"({"jsonrpc":"2.0","id":9,"method":"ping","params":{}})");
  EXPECT_EQ(rpc::encode_notification("notifications/initialized"),
            R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
}

TEST(jsonrpc, large_integer_ids_round_trip) {
  auto r = decode_ok(R"({"jsonrpc":"2.0","id":9007199254740993,"method":"m"})");
  EXPECT_EQ(rpc::to_string(std::get<rpc::request>(r).id), "9007199254740993");
  decode_bad(R"({"jsonrpc":"2.0","id":18446744073709551615,"method":"m"})");
}

TEST(jsonrpc, a_cancellation_names_the_request_it_gives_up) {
  const std::string_view cancelled = "notifications/cancelled";
  EXPECT_EQ(rpc::cancelled_request(cancelled, {{"requestId", 7}, {"reason", "stop"}}),
            rpc::request_id{std::int64_t{7}});
  EXPECT_EQ(rpc::cancelled_request(cancelled, {{"requestId", "a"}}), rpc::request_id{"a"});
  // No id, an id that is not one, or another notification: nothing.
  EXPECT_FALSE(rpc::cancelled_request(cancelled, {}));
  EXPECT_FALSE(rpc::cancelled_request(cancelled, {{"requestId", nullptr}}));
  EXPECT_FALSE(rpc::cancelled_request(cancelled, {{"requestId", 1.5}}));
  EXPECT_FALSE(rpc::cancelled_request("notifications/progress", {{"requestId", 7}}));
}

// The head of an encoded answer (jsonrpc_text.hpp), read in place: what every encoder writes,
// and shapes it does not write, which the callers search instead.
TEST(jsonrpc, an_encoded_answer_is_told_by_what_follows_its_id) {
  using kind = rpc::answer_head::kind;
  const auto ok = rpc::encode_result(rpc::request_id{std::int64_t{-42}}, mcp::json::value(7));
  auto h = rpc::read_answer_head(ok);
  EXPECT_EQ(h.what, kind::result);
  EXPECT_EQ(ok.substr(h.member, 9), R"("result":)");
  // A string id with escaped quotes, commas and a `"result":` inside it.
  const auto tricky = rpc::request_id{std::string(R"(a\",\"result\":1,")")};
  const mcp::error failed{mcp::errc::method_not_found, "no"};
  const auto err = rpc::encode_error(tricky, failed);
  h = rpc::read_answer_head(err);
  EXPECT_EQ(h.what, kind::error) << err;
  EXPECT_EQ(h.code, -32601);
  EXPECT_EQ(err.substr(h.member, 8), R"("error":)");
  h = rpc::read_answer_head(rpc::encode_result(tricky, mcp::json::object{}));
  EXPECT_EQ(h.what, kind::result);
  h = rpc::read_answer_head(
      rpc::encode_error(std::nullopt, mcp::error{mcp::errc::parse_error, "x"}));
  EXPECT_EQ(h.what, kind::error);
  EXPECT_EQ(h.code, -32700);
  // Other shapes, and every prefix of an answer: never a misreading, never past the end.
  for (std::string_view other :
       {R"({"id":1,"jsonrpc":"2.0","result":{}})", R"({"jsonrpc":"2.0","id":,"result":{}})",
        R"({"jsonrpc":"2.0","id":1 ,"result":{}})",
        R"({"jsonrpc":"2.0","id":1,"error":{"message":"m","code":1}})", ""}) {
    EXPECT_EQ(rpc::read_answer_head(other).what, kind::other) << other;
  }
  for (const auto& whole : {ok, err}) {
    for (std::size_t n = 0; n < whole.size(); ++n) {
      const auto part = whole.substr(0, n);
      h = rpc::read_answer_head(part);
      EXPECT_LE(h.member, part.size());
    }
  }
}

}  // namespace
