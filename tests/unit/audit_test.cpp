// mcp/audit.hpp: one line per call with its outcome, at the wire, and the rotating file sink.
#include <mcp/audit.hpp>
#include <mcp/policy.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <mutex>

#include "detail/sha256.hpp"
#include "support/wire.hpp"

namespace {

using mcp::json::object;
using mcp::test::wire;

struct lines {
  std::mutex mu;
  std::vector<mcp::json::object> got;
  std::function<void(std::string_view)> sink() {
    return [this](std::string_view l) {
      std::lock_guard lock(mu);
      got.push_back(mcp::json::parse(l).as_object());
    };
  }
};

TEST(sha256, KnownDigests) {
  EXPECT_EQ(mcp::detail::sha256_hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(mcp::detail::sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(mcp::detail::sha256_hex(
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),  // two blocks
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(mcp::detail::sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(audit, OneLinePerCallWithItsOutcome) {
  lines out;
  mcp::server s;
  s.use(mcp::audit({.sink = out.sink()}));
  s.use(mcp::make_tool_policy(*mcp::parse_policy(R"({"tools": {"secret": {"deny": true}}})")));
  s.add_tool({.name = "echo", .description = "d", .run_inline = true},
             [](mcp::tool_context&, const object& args) {
               mcp::call_tool_result r;
               r.content.push_back(mcp::text_content(mcp::json::serialize(args)));
               return r;
             });
  s.add_tool({.name = "fail", .description = "d", .run_inline = true},
             [](mcp::tool_context&, const object&) { return mcp::tool_error_result("it broke"); });
  s.add_tool({.name = "secret", .description = "d", .run_inline = true},
             [](mcp::tool_context&, const object&) { return mcp::call_tool_result{}; });
  s.add_tool({.name = "typed",
              .description = "d",
              .input_schema = object{{"type", "object"}, {"required", mcp::json::array{"x"}}},
              .run_inline = true},
             [](mcp::tool_context&, const object&) { return mcp::call_tool_result{}; });
  mcp::principal who{.subject = "alice", .issuer = "https://auth.test", .client_id = "cli"};
  who.claims["secret"] = "never logged";
  wire w(s, {.who = who});
  w.initialize();
  w.call("tools/call", object{{"name", "echo"}, {"arguments", object{{"a", 1}}}});
  w.call("tools/call", object{{"name", "fail"}});
  w.call("tools/call", object{{"name", "secret"}});
  w.call("tools/call", object{{"name", "typed"}});
  std::lock_guard lock(out.mu);
  ASSERT_EQ(out.got.size(), 4U);
  const auto& ok = out.got[0];
  EXPECT_EQ(ok.at("tool"), "echo");
  EXPECT_EQ(ok.at("subject"), "alice");
  EXPECT_EQ(ok.at("issuer"), "https://auth.test");
  EXPECT_EQ(ok.at("client_id"), "cli");
  EXPECT_EQ(ok.at("outcome"), "ok");
  EXPECT_EQ(std::string(ok.at("arguments_sha256").as_string()),
            mcp::detail::sha256_hex(R"({"a":1})"));
  EXPECT_FALSE(ok.contains("arguments"));
  EXPECT_GE(ok.at("duration_ms").as_double(), 0.0);
  EXPECT_EQ(ok.at("time").as_string().size(), 24U);  // 2026-11-25T15:20:01.123Z
  EXPECT_EQ(mcp::json::serialize(ok).find("never logged"), std::string::npos);
  EXPECT_EQ(out.got[1].at("outcome"), "tool_error");
  EXPECT_EQ(out.got[1].at("message"), "it broke");
  EXPECT_EQ(out.got[2].at("outcome"), "denied");
  EXPECT_EQ(out.got[2].at("message"),
            "Access denied: \"alice\" may not call tool \"secret\": the policy denies it");
  // Arguments that fail the inputSchema pass the interceptors: the handler's side refused them.
  EXPECT_EQ(out.got[3].at("outcome"), "tool_error");
}

TEST(audit, FullArgumentsOrNoneByOption) {
  lines full, none;
  mcp::server s;
  s.use(mcp::audit({.sink = full.sink(), .arguments = mcp::audit_arguments::full}));
  s.use(mcp::audit({.sink = none.sink(), .arguments = mcp::audit_arguments::none}));
  s.add_tool({.name = "t", .description = "d", .run_inline = true},
             [](mcp::tool_context&, const object&) { return mcp::call_tool_result{}; });
  wire w(s);
  w.initialize();
  w.call("tools/call", object{{"name", "t"}, {"arguments", object{{"k", "v"}}}});
  ASSERT_EQ(full.got.size(), 1U);
  ASSERT_EQ(none.got.size(), 1U);
  EXPECT_EQ(full.got[0].at("arguments"), (object{{"k", "v"}}));
  EXPECT_FALSE(none.got[0].contains("arguments"));
  EXPECT_FALSE(none.got[0].contains("arguments_sha256"));
  EXPECT_THROW((void)mcp::audit({}), std::invalid_argument);
}

TEST(audit_file, AppendsAndRotates) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("mcp-audit-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "audit.jsonl";
  {
    auto sink = mcp::make_audit_file({.path = path, .max_bytes = 100, .keep = 2});
    ASSERT_TRUE(sink) << sink.error().message;
    for (int i = 0; i < 10; ++i) (*sink)(std::string(40, static_cast<char>('a' + i)));
  }
  auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  // 41 bytes a line, two lines a file: i, j now; g, h in .1; e, f in .2; older ones gone.
  EXPECT_EQ(read(path), std::string(40, 'i') + "\n" + std::string(40, 'j') + "\n");
  EXPECT_EQ(read(path.string() + ".1"), std::string(40, 'g') + "\n" + std::string(40, 'h') + "\n");
  EXPECT_EQ(read(path.string() + ".2"), std::string(40, 'e') + "\n" + std::string(40, 'f') + "\n");
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".3"));
  EXPECT_EQ(std::filesystem::status(path).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  const auto missing = mcp::make_audit_file({.path = dir / "no" / "such" / "dir"});
  ASSERT_FALSE(missing);
  EXPECT_TRUE(missing.error().is(mcp::errc::invalid_params));
  EXPECT_NE(missing.error().message.find("no/such/dir"), std::string::npos)
      << missing.error().message;
  std::filesystem::remove_all(dir);
}

}  // namespace
