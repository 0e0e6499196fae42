// tools/cli/tools_cli.hpp: KEY=VALUE typing by the inputSchema, the check before sending, badges
// and what a person is shown (args.cpp, render.cpp), and answers to elicitation (elicit.cpp).
#include "tools_cli.hpp"

#include <mcp/content.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <sstream>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>

#include <poll.h>
#include <pty.h>
#include <unistd.h>

namespace {

using mcp::json::array;
using mcp::json::object;
using mcp::json::value;

object schema() {
  return mcp::parse_json(R"({
    "type": "object",
    "properties": {
      "days": {"type": "integer", "minimum": 1, "maximum": 16, "default": 3},
      "ratio": {"type": "number", "exclusiveMinimum": 0},
      "zip": {"type": "string", "minLength": 4, "maxLength": 5},
      "on": {"type": "boolean"},
      "tags": {"type": "array", "items": {"type": "string"}},
      "opts": {"type": "object"},
      "where": {"properties": {"street": {"type": "string"}}},
      "maybe": {"type": ["integer", "null"]},
      "unit": {"enum": ["metric", "imperial"]},
      "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    },
    "required": ["days"],
    "additionalProperties": false
  })")
      ->as_object();
}

object build(const std::vector<std::string>& words, const std::string& args_json = {}) {
  auto r = mcp::cli::build_arguments(schema(), args_json, words);
  EXPECT_TRUE(r) << r.error().message;
  return r ? *r : object{};
}

TEST(tools_cli_args, values_are_typed_by_the_property_schema) {
  EXPECT_EQ(build({"days=3"}), (object{{"days", 3}}));
  EXPECT_EQ(build({"ratio=2.5"}), (object{{"ratio", 2.5}}));
  EXPECT_EQ(build({"ratio=2"}), (object{{"ratio", 2}}));
  EXPECT_EQ(build({"zip=0123"}), (object{{"zip", "0123"}}));  // a string stays a string
  EXPECT_EQ(build({"zip=true"}), (object{{"zip", "true"}}));
  EXPECT_EQ(build({"on=true"}), (object{{"on", true}}));
  EXPECT_EQ(build({"tags=[\"a\",\"b\"]"}), (object{{"tags", array{"a", "b"}}}));
  EXPECT_EQ(build({"opts={\"k\":1}"}), (object{{"opts", object{{"k", 1}}}}));
  EXPECT_EQ(build({"maybe=null"}), (object{{"maybe", nullptr}}));
  EXPECT_EQ(build({"maybe=7"}), (object{{"maybe", 7}}));
  EXPECT_EQ(build({"unit=metric"}), (object{{"unit", "metric"}}));
  EXPECT_EQ(build({"either=5"}), (object{{"either", 5}}));
  EXPECT_EQ(build({"either=five"}), (object{{"either", "five"}}));
  EXPECT_EQ(build({"other=12"}), (object{{"other", "12"}}));    // not in the schema: text
  EXPECT_EQ(build({"zip=a=b"}), (object{{"zip", "a=b"}}));      // split at the first '='
  EXPECT_EQ(build({"days=soon"}), (object{{"days", "soon"}}));  // left for the check to refuse
}

TEST(tools_cli_args, words_apply_on_top_of_args_json) {
  EXPECT_EQ(build({"days=5"}, R"({"days":2,"zip":"1234"})"),
            (object{{"days", 5}, {"zip", "1234"}}));
  EXPECT_FALSE(mcp::cli::build_arguments(schema(), "[1]", {}));
  EXPECT_FALSE(mcp::cli::build_arguments(schema(), "{", {}));
  auto no_eq = mcp::cli::build_arguments(schema(), "", {"days"});
  ASSERT_FALSE(no_eq);
  EXPECT_EQ(no_eq.error().message, "expected KEY=VALUE, got 'days'");
  EXPECT_FALSE(mcp::cli::build_arguments(schema(), "", {"=3"}));
}

TEST(tools_cli_args, the_check_gives_the_schemas_reason) {
  std::string warning;
  EXPECT_TRUE(mcp::cli::check_arguments(schema(), build({"days=16"}), warning));
  auto high = mcp::cli::check_arguments(schema(), build({"days=99"}), warning);
  ASSERT_FALSE(high);
  EXPECT_EQ(high.error().message, "/days: 99 is greater than the maximum 16");
  auto text = mcp::cli::check_arguments(schema(), build({"days=soon"}), warning);
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message.find("/days"), std::string::npos) << text.error().message;
  EXPECT_FALSE(mcp::cli::check_arguments(schema(), build({"zip=1"}), warning));
  EXPECT_FALSE(mcp::cli::check_arguments(schema(), object{}, warning));  // days is required
  EXPECT_TRUE(warning.empty());
  // A schema that does not compile: sent unchecked, with a warning.
  EXPECT_TRUE(mcp::cli::check_arguments(object{{"type", 5}}, object{}, warning));
  EXPECT_NE(warning.find("does not compile"), std::string::npos);
}

TEST(tools_cli_connect, usage_errors_come_before_any_connection) {
  auto none = mcp::cli::connect({});
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("no server given"), std::string::npos);
  EXPECT_FALSE(mcp::cli::connect({.command = {"x"}, .url = "http://127.0.0.1:1/mcp"}));
  auto header = mcp::cli::connect({.command = {"x"}, .headers = {"A: b"}});
  ASSERT_FALSE(header);
  EXPECT_EQ(header.error().message, "--header applies to --url only");
  auto bad = mcp::cli::connect({.url = "http://127.0.0.1:1/mcp", .headers = {"no colon"}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "--header expects 'Name: value', got 'no colon'");
}

TEST(tools_cli_connect, command_lines_are_shown_quoted_as_a_shell_would_need) {
  EXPECT_EQ(mcp::cli::join_command({"demo_server", "--task-store", ":memory:"}),
            "demo_server --task-store :memory:");
  EXPECT_EQ(mcp::cli::join_command({"sh", "-c", "echo 'hi' | cat", ""}),
            R"(sh -c 'echo '\''hi'\'' | cat' '')");
}

/// A listed Tool as the client decodes it; `name` and `inputSchema` filled in when the test
/// leaves them out.
mcp::tool_info tool(object o) {
  if (!o.contains("name")) o["name"] = "t";
  if (!o.contains("inputSchema")) o["inputSchema"] = object{{"type", "object"}};
  auto t = mcp::from_json<mcp::tool_info>(o);
  EXPECT_TRUE(t) << (t ? "" : t.error().message);
  return t ? *t : mcp::tool_info{};
}

TEST(tools_cli_render, badges_read_the_hints_with_the_spec_defaults) {
  using v = std::vector<std::string>;
  EXPECT_EQ(mcp::cli::badges(tool(object{{"name", "t"}})), (v{"destructive", "open-world"}));
  EXPECT_EQ(mcp::cli::badges(tool(object{{"annotations", object{{"readOnlyHint", true},
                                                                {"destructiveHint", true},
                                                                {"openWorldHint", false}}}})),
            (v{"read-only"}));
  EXPECT_EQ(mcp::cli::badges(tool(object{
                {"annotations", object{{"destructiveHint", false}, {"idempotentHint", true}}}})),
            (v{"idempotent", "open-world"}));
  // A hint of another type is not a hint: such a Tool does not decode (the listing says why).
  EXPECT_FALSE(mcp::from_json<mcp::tool_info>(object{
      {"name", "t"}, {"inputSchema", object{}}, {"annotations", object{{"readOnlyHint", "yes"}}}}));
  EXPECT_TRUE(mcp::cli::read_only(tool(object{{"annotations", object{{"readOnlyHint", true}}}})));
  EXPECT_EQ(mcp::cli::task_support(tool(object{})), "forbidden");
  EXPECT_EQ(
      mcp::cli::task_support(tool(object{{"execution", object{{"taskSupport", "required"}}}})),
      "required");
}

TEST(tools_cli_render, describe_shows_types_defaults_ranges_and_enums) {
  std::ostringstream out;
  mcp::cli::print_tool_description(out, tool(object{{"name", "t"},
                                                    {"title", "The tool"},
                                                    {"description", "Does things."},
                                                    {"inputSchema", schema()}}));
  std::string s;  // runs of spaces as one: the columns' widths are not the point here
  for (char c : out.str()) {
    if (c != ' ' || s.empty() || s.back() != ' ') s += c;
  }
  EXPECT_NE(s.find("t - The tool\n\nDoes things.\n"), std::string::npos) << s;
  EXPECT_NE(s.find(" days integer required [default 3; range 1..16]\n"), std::string::npos) << s;
  EXPECT_NE(s.find(" ratio number optional [range > 0]\n"), std::string::npos) << s;
  EXPECT_NE(s.find(" zip string optional [length 4..5]\n"), std::string::npos) << s;
  EXPECT_NE(s.find(" on boolean optional\n"), std::string::npos) << s;  // no trailing space
  EXPECT_NE(s.find(" tags array of string optional\n"), std::string::npos) << s;
  EXPECT_NE(s.find(" maybe integer|null optional\n"), std::string::npos) << s;
  EXPECT_NE(s.find(" unit enum optional [one of \"metric\", \"imperial\"]\n"), std::string::npos)
      << s;
  EXPECT_NE(s.find(" either integer|string optional\n"), std::string::npos) << s;
  EXPECT_NE(s.find(" where object optional\n"), std::string::npos) << s;
}

TEST(tools_cli_render, results_print_text_structured_content_and_save_media) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("mcp_cli_render_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  object r{{"content", array{object{{"type", "text"}, {"text", "hello"}},
                             object{{"type", "text"}, {"text", R"({"n":1})"}},
                             object{{"type", "image"},
                                    {"data", mcp::base64_encode(std::string_view("PNG!"))},
                                    {"mimeType", "image/png"}}}},
           {"structuredContent", object{{"n", 1}}}};
  std::ostringstream out;
  ASSERT_TRUE(mcp::cli::print_call_result(out, r, "my tool", dir.string()));
  const auto file = dir / "my_tool-1.png";
  EXPECT_EQ(out.str(), "hello\n[image saved to " + file.string() +
                           " (image/png, 4 bytes)]\nstructured content:\n{\n  \"n\": 1\n}\n");
  EXPECT_EQ(std::filesystem::file_size(file), 4U);
  std::ostringstream again;  // the next one does not overwrite it
  ASSERT_TRUE(mcp::cli::print_call_result(again, r, "my tool", dir.string()));
  EXPECT_TRUE(std::filesystem::exists(dir / "my_tool-2.png"));
  std::filesystem::remove_all(dir);

  object bad{{"content", array{object{{"type", "audio"}, {"data", "%%%"}, {"mimeType", "x"}}}}};
  EXPECT_FALSE(mcp::cli::print_call_result(out, bad, "t", dir.string()));
}

TEST(tools_cli_render, server_text_cannot_drive_the_terminal) {
  using mcp::cli::terminal_safe;
  EXPECT_EQ(terminal_safe("a\x1b[31mb\r\n\tc\x7f"), "a\\x1b[31mb\\x0d\n\tc\\x7f");
  EXPECT_EQ(terminal_safe("x\xc2\x9by"), "x\\u009by");  // C1 CSI
  EXPECT_EQ(terminal_safe("\xe2\x80\xae"
                          "abc"),
            "\\u202eabc");  // right-to-left override
  EXPECT_EQ(terminal_safe("\xe2\x81\xa6"
                          "x"),
            "\\u2066x");  // left-to-right isolate
  EXPECT_EQ(terminal_safe("caf\xc3\xa9 \xe2\x80\x94 ok"),
            "caf\xc3\xa9 \xe2\x80\x94 ok");  // text stays
  std::ostringstream out;
  mcp::cli::print_tool_table(
      out, {tool(object{{"name", "evil\x1b]0;title\x07"}, {"description", "hi\x1b[2J"}})});
  EXPECT_EQ(out.str().find('\x1b'), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("evil\\x1b]0;title\\x07"), std::string::npos) << out.str();
  std::ostringstream result;
  ASSERT_TRUE(mcp::cli::print_call_result(
      result, object{{"content", array{object{{"type", "text"}, {"text", "\x1b[31mred"}}}}}, "t",
      "."));
  EXPECT_EQ(result.str(), "\\x1b[31mred\n");
}

TEST(tools_cli_render, pretty_json_indents_by_two) {
  EXPECT_EQ(mcp::cli::pretty_json(value(object{{"a", array{1, object{}}}, {"b", array{}}})),
            "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": []\n}");
}

template <class T>
T decoded(const char* text) {
  auto v = mcp::from_json<T>(*mcp::parse_json(text));
  EXPECT_TRUE(v) << (v ? "" : v.error().message);
  return v ? *v : T{};
}
mcp::elicitation_request elicitation(const char* text) {
  return decoded<mcp::elicitation_request>(text);
}
std::string wire(const mcp::elicitation_answer& a) { return mcp::json::serialize(mcp::to_json(a)); }

TEST(tools_cli_elicit, accept_defaults_fills_every_default) {
  const auto handler = mcp::cli::ask_elicitation("accept-defaults");
  const auto r = handler(elicitation(R"({"message": "m", "requestedSchema": {"type": "object",
      "properties": {"name": {"type": "string", "default": "John Doe"},
                     "age": {"type": "integer", "default": 30},
                     "score": {"type": "number", "default": 95.5},
                     "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
                     "verified": {"type": "boolean", "default": true},
                     "note": {"type": "string"}}}})"),
                         {});
  ASSERT_TRUE(r);
  EXPECT_EQ(wire(*r), R"({"action":"accept","content":{"name":"John Doe","age":30,"score":9.55E1,)"
                      R"("status":"active","verified":true}})");
}

TEST(tools_cli_elicit, a_required_field_without_default_or_a_url_is_declined) {
  const auto handler = mcp::cli::ask_elicitation("accept-defaults");
  const auto form = handler(elicitation(R"({"message": "m", "requestedSchema": {"type": "object",
      "properties": {"answer": {"type": "string"}}, "required": ["answer"]}})"),
                            {});
  ASSERT_TRUE(form);
  EXPECT_EQ(wire(*form), R"({"action":"decline"})");
  const auto url = handler(
      elicitation(R"({"mode": "url", "message": "m", "url": "https://x", "elicitationId": "e"})"),
      {});
  ASSERT_TRUE(url);
  EXPECT_EQ(wire(*url), R"({"action":"decline"})");
}

TEST(tools_cli_elicit, decline_and_ask_without_a_terminal_decline) {
  const auto schema = elicitation(R"({"message": "m", "requestedSchema": {"type": "object",
      "properties": {"a": {"type": "string", "default": "x"}}}})");
  const auto declined = mcp::cli::ask_elicitation("decline")(schema, {});
  ASSERT_TRUE(declined);
  EXPECT_EQ(wire(*declined), R"({"action":"decline"})");
  if (::isatty(STDIN_FILENO) != 0) GTEST_SKIP() << "stdin is a terminal: ask would ask";
  const auto asked = mcp::cli::ask_elicitation("ask")(schema, {});
  ASSERT_TRUE(asked);
  EXPECT_EQ(wire(*asked), R"({"action":"decline"})");
}

/// For the test's length, stdin and stderr are a fresh pseudo-terminal (the handlers ask only
/// on a terminal): the test reads what is asked and types the answers.
class on_a_terminal {
 public:
  on_a_terminal() {
    if (::openpty(&master_, &slave_, nullptr, nullptr, nullptr) != 0) return;
    saved_in_ = ::dup(STDIN_FILENO);
    saved_err_ = ::dup(STDERR_FILENO);
    ::dup2(slave_, STDIN_FILENO);
    ::dup2(slave_, STDERR_FILENO);
  }
  ~on_a_terminal() {
    if (saved_in_ >= 0) ::dup2(saved_in_, STDIN_FILENO);
    if (saved_err_ >= 0) ::dup2(saved_err_, STDERR_FILENO);
    for (const int fd : {saved_in_, saved_err_, slave_, master_}) {
      if (fd >= 0) ::close(fd);
    }
  }
  on_a_terminal(const on_a_terminal&) = delete;
  on_a_terminal& operator=(const on_a_terminal&) = delete;
  [[nodiscard]] bool ok() const { return saved_in_ >= 0 && saved_err_ >= 0; }
  /// Waits up to 5 s for `text` on the terminal.
  bool shows(std::string_view text) {
    for (int i = 0; i < 50 && shown_.find(text) == std::string::npos; ++i) {
      pollfd p{.fd = master_, .events = POLLIN, .revents = 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char buf[512];
      const auto n = ::read(master_, buf, sizeof buf);
      if (n > 0) shown_.append(buf, static_cast<std::size_t>(n));
    }
    return shown_.find(text) != std::string::npos;
  }
  void type(std::string_view keys) const { (void)!::write(master_, keys.data(), keys.size()); }

 private:
  int master_ = -1;
  int slave_ = -1;
  int saved_in_ = -1;
  int saved_err_ = -1;
  std::string shown_;
};

TEST(tools_cli_elicit, a_request_withdrawn_while_waiting_for_the_terminal_ends_at_once) {
  on_a_terminal term;
  if (!term.ok()) GTEST_SKIP() << "no pseudo-terminal here";
  const auto sampling = mcp::cli::ask_sampling();
  const auto params = decoded<mcp::sampling_request>(R"({"maxTokens": 5, "messages":
      [{"role": "user", "content": {"type": "text", "text": "hi"}}]})");
  std::stop_source first_stop;
  std::stop_source second_stop;
  std::future<mcp::result<mcp::sampling_answer>> first;
  std::future<mcp::result<mcp::sampling_answer>> second;
  struct withdraw_both {  // whatever fails, the questions end before their futures are joined
    std::stop_source& a;
    std::stop_source& b;
    ~withdraw_both() {
      a.request_stop();
      b.request_stop();
    }
  } guard{first_stop, second_stop};
  first = std::async(std::launch::async, [&] { return sampling(params, first_stop.get_token()); });
  ASSERT_TRUE(term.shows("Your reply as the model")) << "the first question was not asked";
  second =
      std::async(std::launch::async, [&] { return sampling(params, second_stop.get_token()); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  second_stop.request_stop();  // the server withdraws the second while the first is asked
  ASSERT_EQ(second.wait_for(std::chrono::seconds(2)), std::future_status::ready)
      << "the withdrawn request waited for the question before it";
  const auto withdrawn = second.get();
  ASSERT_FALSE(withdrawn);
  EXPECT_NE(withdrawn.error().message.find("withdrawn"), std::string::npos)
      << withdrawn.error().message;
  EXPECT_EQ(first.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  term.type("typed\n");
  const auto answered = first.get();
  ASSERT_TRUE(answered) << answered.error().message;
  EXPECT_EQ(answered->content.at("text").as_string(), "typed");
}

TEST(tools_cli_connect, roots_are_offered_as_file_uris) {
  mcp::cli::server_target t;
  EXPECT_FALSE(mcp::cli::client_options_for(t).roots);
  t.roots = {"/tmp/a b", "/srv/data/../work/."};
  const auto opts = mcp::cli::client_options_for(t);
  ASSERT_TRUE(opts.roots);
  EXPECT_EQ(
      mcp::json::serialize(mcp::to_json(*opts.roots)),
      R"([{"uri":"file:///tmp/a%20b","name":"a b"},{"uri":"file:///srv/work","name":"work"}])");
}

}  // namespace
