#include <mcp/jsonrpc.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "detail/call_scan.hpp"
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

// The plain tools/call reader (src/detail/call_scan.hpp) makes the request the general path
// makes of the same text, member for member and in order; anything else it leaves to that path.
TEST(jsonrpc, a_plain_tool_call_is_read_as_the_general_path_reads_it) {
  const mcp::json_limits limits;
  for (
      std::string_view text : {
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}})",
          R"({ "params" : { "arguments" : { "a" : -12, "b" : true, "c" : null, "d" : false, "e" : "" }, "name" : "t" } , "method":"tools/call","id":"s-1","jsonrpc":"2.0" } )",
          R"({"id":9223372036854775807,"jsonrpc":"2.0","method":"tools/call","params":{"name":"","arguments":{}}})",
          R"({"id":-9223372036854775808,"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"n":0},"name":"x"}})",
          R"({"id":"","jsonrpc":"2.0","method":"tools/call","params":{"name":"a b~","arguments":{"k":"v","z":"w"}}})",
          // `_meta` anywhere in `params`, with values and objects of values nested in it.
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{},"_meta":{"progressToken":1}}})",
          R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{},"arguments":{"a":"b"},"name":"e"}})",
          R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{},"_meta":{"a":{"b":{"c":{}}},"d":null},"name":"e"}})",
          R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1.0.0"}}}})",
          R"({ "params" : { "_meta" : { "x" : { "y" : true , "z" : -3 } , "w" : false } , "name" : "t" , "arguments" : { } } , "method":"tools/call","id":5,"jsonrpc":"2.0" })",
      }) {
    rpc::message call;
    ASSERT_TRUE(mcp::detail::scan_tool_call(text, limits, call)) << text;
    const auto* fast = &std::get<rpc::request>(call);
    auto m = decode_ok(text);
    ASSERT_TRUE(std::holds_alternative<rpc::request>(m)) << text;
    const auto& general = std::get<rpc::request>(m);
    EXPECT_EQ(fast->id, general.id) << text;
    EXPECT_EQ(fast->method, general.method);
    EXPECT_EQ(mcp::json::serialize(fast->params), mcp::json::serialize(general.params)) << text;
    EXPECT_EQ(fast->params, general.params) << text;
    const auto& args = fast->params.at("arguments").get_object();
    for (const auto& [key, value] : general.params.at("arguments").get_object()) {
      EXPECT_EQ(args.at(key).kind(), value.kind()) << key;
    }
  }
}

// A 2026-07-28 `_meta` kept as text (scan_tool_call's `lazy`) only when it is last in `params`,
// has no duplicate key and only the revision, the capabilities, the client's info and a log
// level; put back (put_meta_text), the request is the general path's.
TEST(jsonrpc, a_plain_calls_meta_is_kept_as_text_only_where_it_may_be) {
  const std::string v = R"("io.modelcontextprotocol/protocolVersion":"2026-07-28")";
  const std::string c = R"("io.modelcontextprotocol/clientCapabilities":)";
  const std::string i = R"("io.modelcontextprotocol/clientInfo":{"name":"a","n":{"x":1}})";
  const std::string l = R"("io.modelcontextprotocol/logLevel":"debug")";
  const auto call = [](const std::string& params) {
    return R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{)" + params + "}}";
  };
  const auto last = [&](const std::string& meta) {
    return call(R"("name":"e","arguments":{"a":1},"_meta":)" + meta);
  };
  const std::vector<std::pair<std::string, bool>> cases = {
      {last("{" + v + "," + c + "{}}"), true},
      {last("{ " + i + " , " + c + R"({"elicitation":{"form":{}}} ,)" + l + "," + v + "}"), true},
      {last("{" + c + "{}}"), false},                                 // no revision
      {last("{" + v + "}"), false},                                   // no capabilities
      {last("{" + v + "," + c + "null}"), false},                     // capabilities not an object
      {last("{" + v + "," + c + R"({},"progressToken":1})"), false},  // another member
      {last(R"({"io.modelcontextprotocol/protocolVersion":1,)" + c + "{}}"), false},
      {last("{" + v + "," + c + "{}," + R"("io.modelcontextprotocol/logLevel":true})"), false},
      {call(R"("_meta":{)" + v + "," + c + R"({}},"name":"e","arguments":{})"), false},
      // Whitespace between the tokens; the client's info of any kind; the keys byte for byte.
      {last(R"({ "io.modelcontextprotocol/protocolVersion" : "2026-07-28" ,)" + c + " { } }"),
       true},
      {last("{" + c + R"({"a":{"b":true}},"io.modelcontextprotocol/clientInfo":"x",)" + v + "}"),
       true},
      {last("{" + v + "," + c + R"({},"io.modelcontextprotocol/clientInfoX":{}})"), false},
      {last("{" + v + "," + c + R"({},"io.modelcontextprotocol/client":{}})"), false},
      {last(R"({"io.modelcontextprotocol/protocolVersion ":"2026-07-28",)" + c + "{}}"), false},
      {last(R"({"io.modelcontextprotocol/logLevel":"info",)" + c + "{}}"), false},
  };
  for (const auto& [text, kept] : cases) {
    rpc::message m;
    mcp::detail::meta_text lazy;
    ASSERT_TRUE(mcp::detail::scan_tool_call(text, {}, m, &lazy)) << text;
    EXPECT_EQ(!lazy.whole.empty(), kept) << text;
    auto& fast = std::get<rpc::request>(m);
    EXPECT_EQ(fast.params.contains("_meta"), !kept) << text;
    mcp::detail::put_meta_text(fast.params, lazy.whole);
    const auto general = decode_ok(text);
    EXPECT_EQ(mcp::json::serialize(fast.params),
              mcp::json::serialize(std::get<rpc::request>(general).params))
        << text;
    if (kept) {
      const auto& meta = fast.params.at("_meta").get_object();
      EXPECT_EQ(lazy.version, "2026-07-28");
      EXPECT_EQ(mcp::json::value(mcp::detail::meta_object(lazy.caps)),
                meta.at(c.substr(1, c.size() - 3)));
      EXPECT_EQ(lazy.caps_members, meta.at(c.substr(1, c.size() - 3)).get_object().size());
      EXPECT_EQ(lazy.has_level, meta.contains("io.modelcontextprotocol/logLevel"));
    }
  }
  // A duplicate key anywhere in `_meta` leaves the text to the general path, as before.
  rpc::message m;
  mcp::detail::meta_text lazy;
  for (const auto& meta :
       {"{" + v + "," + c + "{}," + v + "}", "{" + v + "," + c + R"({"a":{},"a":{}}})",
        "{" + c + "{}," + v + "," + c + "{}}", "{" + v + "," + c + "{}," + i + "," + i + "}"}) {
    EXPECT_FALSE(mcp::detail::scan_tool_call(last(meta), {}, m, &lazy)) << meta;
    EXPECT_FALSE(mcp::detail::scan_tool_call(last(meta), {}, m)) << meta;
  }
}

bool scanned(std::string_view text, const mcp::json_limits& limits = {}) {
  rpc::message call = rpc::notification{.method = "untouched", .params = {}};
  const bool taken = mcp::detail::scan_tool_call(text, limits, call);
  if (!taken) {  // a text left to the general path leaves the message as it was
    const auto* n = std::get_if<rpc::notification>(&call);
    EXPECT_TRUE(n != nullptr && n->method == "untouched" && n->params.empty()) << text;
  }
  return taken;
}

// The reader looks at a string 16 bytes at a time (8 without SSE2, one by one at the text's
// end): a byte a plain string cannot hold is seen at every place in a block, and DEL (the last
// plain byte) is taken as it is, wherever it is.
TEST(jsonrpc, a_plain_tool_call_reader_sees_every_byte_of_a_long_string) {
  const std::string base(40, 'a');
  for (std::size_t at = 0; at <= base.size(); ++at) {
    for (const char c : {'\x01', '\x1f', '\\', '"', '\x80', '\xff', '\x7f'}) {
      auto value = base;
      value.insert(at, 1, c);
      const auto text =
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{"t":")" +
          value + R"("}}})";
      rpc::message call;
      const bool taken = mcp::detail::scan_tool_call(text, {}, call);
      if (c != '\x7f') {
        EXPECT_FALSE(taken) << at << " " << static_cast<int>(c);
        continue;
      }
      ASSERT_TRUE(taken) << at;
      EXPECT_EQ(std::get<rpc::request>(call).params.at("arguments").at("t").get_string(), value);
    }
  }
}

TEST(jsonrpc, anything_but_a_plain_tool_call_is_left_to_the_general_path) {
  const std::string_view call =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}})";
  ASSERT_TRUE(scanned(call));
  for (
      std::string_view text : {
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{},"task":{}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{},"_meta":1}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{},"_meta":{},"_meta":{}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{},"_meta":{"a":1,"a":1}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{},"_meta":{"a":{"b":1,"b":1}}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{},"_meta":{"a":[]}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{},"_meta":{"a":{"b":[1]}}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{},"_meta":{"a":1.5}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{},"_meta":{"a":"\/"}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{},"_meta":{"a":{"b":{"c":{"d":{}}}}}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{},"_meta":{"a":{},}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{},"_meta":{"a":{}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{}},"x":1})",
          R"({"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"e","arguments":{}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","name":"f","arguments":{}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{"a":1,"a":2}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{"a":"\n"}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\u0065","arguments":{}}})",
          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/"
          "call\",\"params\":{\"name\":\"\xc3\xa9\",\"arguments\":{}}}",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{"a":1.5}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{"a":1e3}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{"a":-0}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{"a":01}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{"a":{}}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{"a":[]}}})",
          R"({"jsonrpc":"2.0","id":9223372036854775808,"method":"tools/call","params":{"name":"e","arguments":{}}})",
          R"({"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"e","arguments":{}}})",
          R"({"jsonrpc":"2.0","id":1.0,"method":"tools/call","params":{"name":"e","arguments":{}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"e","arguments":{}}})",
          R"({"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{}}})",
          R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"e","arguments":{}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e"}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call"})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{"a":tru}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{"a":1,}}})",
          R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{}}} x)",
          R"([{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{}}}])",
          "",
          "{}",
          "{",
      }) {
    EXPECT_FALSE(scanned(text)) << text;
  }
  // Every cut of a call is left to the general parser (which refuses it).
  for (std::size_t n = 0; n < call.size(); ++n) {
    const std::string cut(call.substr(0, n));  // its own buffer: a read past it is seen by ASan
    EXPECT_FALSE(scanned(cut)) << n;
  }
  // At most 16 arguments.
  std::string many =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{)";
  for (int i = 0; i < 16; ++i) {
    many += (i ? ",\"a" : "\"a") + std::to_string(i) + "\":" + std::to_string(i);
  }
  EXPECT_TRUE(scanned(many + "}}}"));
  EXPECT_FALSE(scanned(many + R"(,"b":1}}})"));
  // At most 32 entries in `_meta`, each object's end counted: 31 members and `_meta`'s end.
  std::string meta =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{},"_meta":{)";
  for (int i = 0; i < 31; ++i)
    meta += (i ? ",\"m" : "\"m") + std::to_string(i) + "\":" + std::to_string(i);
  EXPECT_TRUE(scanned(meta + "}}}"));
  EXPECT_FALSE(scanned(meta + R"(,"n":1}}})"));
  EXPECT_FALSE(scanned(meta + R"(,"n":{}}}})"));
  // `_meta`'s objects nest at most four deep (six in the message): the limit leaves one more.
  const std::string_view deep =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{},"_meta":{"a":{"b":{"c":{}}}}}})";
  EXPECT_TRUE(scanned(deep, {.max_size = 1024, .max_depth = 7}));
  EXPECT_FALSE(scanned(deep, {.max_size = 1024, .max_depth = 6}));
  // Every cut of a call with `_meta` is left to the general parser.
  for (std::size_t n = 0; n < deep.size(); ++n) {
    const std::string cut(deep.substr(0, n));
    EXPECT_FALSE(scanned(cut)) << n;
  }
  // Near the limits: the general path's refusals stay its own.
  EXPECT_FALSE(scanned(call, {.max_size = call.size(), .max_depth = 128}));
  EXPECT_TRUE(scanned(call, {.max_size = call.size() + 1, .max_depth = 128}));
  EXPECT_FALSE(scanned(call, {.max_size = 1024, .max_depth = 3}));
}

}  // namespace
