// mcp/client_types.hpp and the typed calls of mcp/client.hpp: the InitializeResult, listings,
// reads and prompts decoded against a real server in process; what a server adds is ignored
// and what it leaves out is refused (a scripted server); the typed handlers of elicitation,
// sampling and roots declare their capabilities and answer a real server's tools.
#include <mcp/client.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using mcp::json::array;
using mcp::json::object;
using namespace std::chrono_literals;

struct weather_in {
  std::string city;
};
MCP_FIELDS(weather_in, (city))
struct weather_out {
  double high = 0;
};
MCP_FIELDS(weather_out, (high))

/// A server with five tools (pages of two), a resource, a template and a prompt.
std::unique_ptr<mcp::server> make_server() {
  auto s = std::make_unique<mcp::server>(mcp::server_options{
      .info = {.name = "typed", .version = "2.1"}, .instructions = "Be brief.", .page_size = 2});
  s->add_tool({.name = "weather",
               .title = "Weather",
               .description = "Today's high",
               .annotations = {.read_only_hint = true, .open_world_hint = false},
               .task_support_mode = mcp::task_support::optional},
              [](const weather_in&) { return weather_out{.high = 21}; });
  for (const char* name : {"a", "b", "c", "d"}) {
    s->add_tool({.name = name, .description = "d"}, [] { return std::string("ok"); });
  }
  s->add_resource({.uri = "config://app",
                   .name = "app",
                   .description = "settings",
                   .mime_type = "text/plain",
                   .size = 5},
                  [](const mcp::resource_request& r) -> mcp::result<mcp::read_resource_result> {
                    return mcp::read_resource_result{
                        {mcp::resource_contents::text_of(r.uri, "a=1\n", "text/plain"),
                         mcp::resource_contents::blob_of(r.uri + "#bin", {}, "image/png")}};
                  });
  s->add_resource_template(
      {.uri_template = "file:///{path}", .name = "files", .mime_type = "text/plain"},
      [](const mcp::resource_request& r) -> mcp::result<mcp::read_resource_result> {
        return mcp::read_resource_result{{mcp::resource_contents::text_of(r.uri, "x")}};
      });
  s->add_prompt(
      {.name = "greet",
       .title = "Greeting",
       .arguments = {{.name = "who", .description = "whom", .required = true}, {.name = "tone"}}},
      [](const mcp::prompt_request& p) -> mcp::result<mcp::get_prompt_result> {
        return mcp::get_prompt_result{.description = "a greeting",
                                      .messages = {mcp::prompt_message::user(
                                          mcp::text_content("Hello " + p.arguments.at("who")))}};
      });
  return s;
}

mcp::in_process_client connect(mcp::server& s, mcp::client_options o = {}) {
  auto c = mcp::connect_in_process(s, std::move(o));
  EXPECT_TRUE(c) << (c ? "" : c.error().message);
  return std::move(*c);
}

TEST(client_types, server_info_decodes_the_initialize_result) {
  auto s = make_server();
  auto c = connect(*s);
  auto info = c.client->server_info();
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->server_info.name, "typed");
  EXPECT_EQ(info->server_info.version, "2.1");
  EXPECT_EQ(info->instructions, "Be brief.");
  EXPECT_EQ(info->protocol_version, c.client->server_result().at("protocolVersion").as_string());
  ASSERT_TRUE(info->capabilities.tools);
  ASSERT_TRUE(info->capabilities.resources);
  ASSERT_TRUE(info->capabilities.prompts);
  EXPECT_FALSE(info->capabilities.experimental);
}

TEST(client_types, server_info_before_initialize_is_an_error) {
  auto [server_end, client_end] = mcp::make_memory_pair();
  mcp::client_session client(client_end);
  auto info = client.server_info();
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().code, -32600);
}

TEST(client_types, list_tools_reads_every_page_into_tool_info) {
  auto s = make_server();
  auto c = connect(*s);
  auto tools = c.client->list_tools();
  ASSERT_TRUE(tools) << tools.error().message;
  ASSERT_EQ(tools->size(), 5u);  // three pages of two
  const auto& w = tools->front();
  EXPECT_EQ(w.name, "weather");
  EXPECT_EQ(w.title, "Weather");
  EXPECT_EQ(w.display_name(), "Weather");
  EXPECT_EQ(w.description, "Today's high");
  EXPECT_EQ(w.input_schema.at("type"), "object");
  ASSERT_TRUE(w.output_schema);
  EXPECT_TRUE(w.output_schema->at("properties").as_object().contains("high"));
  ASSERT_TRUE(w.annotations);
  EXPECT_EQ(w.annotations->read_only_hint, true);
  EXPECT_EQ(w.annotations->open_world_hint, false);
  EXPECT_FALSE(w.annotations->destructive_hint);
  EXPECT_EQ(w.task_mode(), mcp::task_support::optional);
  EXPECT_EQ((*tools)[1].name, "a");
  EXPECT_EQ((*tools)[1].display_name(), "a");
  EXPECT_EQ((*tools)[1].task_mode(), mcp::task_support::forbidden);
  // The listing taught the client the outputSchema, as list_all_tools does.
  auto r = c.client->call_tool<weather_out>("weather", weather_in{.city = "Oslo"});
  ASSERT_TRUE(r && r->ok());
  EXPECT_EQ(r->value().high, 21);
}

TEST(client_types, resources_templates_and_prompts_are_listed_typed) {
  auto s = make_server();
  auto c = connect(*s);
  auto resources = c.client->list_resources();
  ASSERT_TRUE(resources) << resources.error().message;
  ASSERT_EQ(resources->size(), 1u);
  EXPECT_EQ((*resources)[0].uri, "config://app");
  EXPECT_EQ((*resources)[0].name, "app");
  EXPECT_EQ((*resources)[0].description, "settings");
  EXPECT_EQ((*resources)[0].mime_type, "text/plain");
  EXPECT_EQ((*resources)[0].size, 5);

  auto templates = c.client->list_resource_templates();
  ASSERT_TRUE(templates) << templates.error().message;
  ASSERT_EQ(templates->size(), 1u);
  EXPECT_EQ((*templates)[0].uri_template, "file:///{path}");
  EXPECT_EQ((*templates)[0].name, "files");

  auto prompts = c.client->list_prompts();
  ASSERT_TRUE(prompts) << prompts.error().message;
  ASSERT_EQ(prompts->size(), 1u);
  const auto& p = (*prompts)[0];
  EXPECT_EQ(p.name, "greet");
  EXPECT_EQ(p.title, "Greeting");
  ASSERT_EQ(p.arguments.size(), 2u);
  EXPECT_EQ(p.arguments[0].name, "who");
  EXPECT_EQ(p.arguments[0].description, "whom");
  EXPECT_TRUE(p.arguments[0].required);
  EXPECT_FALSE(p.arguments[1].required);  // absent on the wire
}

TEST(client_types, read_and_get_prompt_decode_their_results) {
  auto s = make_server();
  auto c = connect(*s);
  auto read = c.client->read_resource_contents("config://app");
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_EQ(read->contents.size(), 2u);
  EXPECT_EQ(read->contents[0].uri, "config://app");
  EXPECT_EQ(read->contents[0].mime_type, "text/plain");
  EXPECT_EQ(read->contents[0].text, "a=1\n");
  EXPECT_FALSE(read->contents[0].blob);
  EXPECT_EQ(read->contents[1].uri, "config://app#bin");
  EXPECT_EQ(read->contents[1].blob, "");
  EXPECT_FALSE(read->contents[1].text);

  auto unknown = c.client->read_resource_contents("config://nope");
  ASSERT_FALSE(unknown);  // the server's error, unchanged

  auto prompt = c.client->get_prompt_messages("greet", object{{"who", "Ada"}});
  ASSERT_TRUE(prompt) << prompt.error().message;
  EXPECT_EQ(prompt->description, "a greeting");
  ASSERT_EQ(prompt->messages.size(), 1u);
  EXPECT_EQ(prompt->messages[0].role, "user");
  EXPECT_EQ(prompt->messages[0].content.at("text"), "Hello Ada");
}

/// A server that answers initialize and the listings with what the test scripts, and records
/// the client's messages (its answers to requests this server sends, too).
struct scripted_server {
  scripted_server() {
    auto [server_end, client_end] = mcp::make_memory_pair();
    end = server_end;
    server_end->on_receive([this](std::string_view text) {
      auto msg = mcp::json::parse(text).as_object();
      const auto* id = msg.if_contains("id");
      const auto* method = msg.if_contains("method");
      if (method == nullptr || id == nullptr) {  // a notification, or an answer to us
        std::lock_guard lock(mu);
        seen.push_back(std::move(msg));
        cv.notify_all();
        return;
      }
      object result;
      if (*method == "initialize") {
        std::lock_guard lock(mu);
        init_params = msg.at("params").as_object();
        result = initialize_result;
      } else if (*method == "tools/list") {
        result = object{{"tools", tools}};
      }
      end->send(mcp::json::serialize(object{{"jsonrpc", "2.0"}, {"id", *id}, {"result", result}}),
                {});
    });
    client_end_ = client_end;
  }
  void start(mcp::client_options o = {}) {
    client = std::make_unique<mcp::client_session>(client_end_, std::move(o));
    client_end_->on_receive([c = client.get()](std::string_view m) { c->receive(m); });
    EXPECT_TRUE(client->initialize());
  }
  /// Waits (up to 5 s) for the client's message with `id`, or with `method`.
  object wait_for(const mcp::json::value& key) {
    std::unique_lock lock(mu);
    object found;
    cv.wait_for(lock, 5s, [&] {
      for (const auto& m : seen) {
        const auto* k = m.if_contains(key.is_string() ? "method" : "id");
        if (k != nullptr && *k == key) {
          found = m;
          return true;
        }
      }
      return false;
    });
    return found;
  }
  std::shared_ptr<mcp::memory_connection> end;
  std::shared_ptr<mcp::memory_connection> client_end_;
  std::unique_ptr<mcp::client_session> client;
  object initialize_result{{"protocolVersion", "2025-11-25"},
                           {"capabilities", object{{"tools", object{}}}},
                           {"serverInfo", object{{"name", "scripted"}, {"version", "1"}}}};
  array tools;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<object> seen;
  object init_params;
};

TEST(client_types, what_a_server_adds_is_ignored) {
  scripted_server s;
  s.initialize_result["futureField"] = object{{"x", 1}};
  s.initialize_result["capabilities"].as_object()["someday"] = object{};
  s.initialize_result["serverInfo"].as_object()["vendor"] = "acme";
  s.tools = array{object{{"name", "t"},
                         {"inputSchema", object{{"type", "object"}}},
                         {"execution", object{{"taskSupport", "sometimes"}, {"more", true}}},
                         {"annotations", object{{"futureHint", true}}},
                         {"x-extra", array{1, 2}}}};
  s.start();
  auto info = s.client->server_info();
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->server_info.name, "scripted");
  auto tools = s.client->list_tools();
  ASSERT_TRUE(tools) << tools.error().message;
  ASSERT_EQ(tools->size(), 1u);
  EXPECT_EQ((*tools)[0].task_mode(), mcp::task_support::forbidden);  // an unknown value
}

TEST(client_types, a_missing_required_member_is_an_error_naming_it) {
  scripted_server s;
  s.initialize_result.erase("serverInfo");
  s.tools = array{object{{"name", "ok"}, {"inputSchema", object{}}}, object{{"name", "bad"}}};
  s.start();  // the JSON initialize accepts what it gets
  auto info = s.client->server_info();
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().code, -32602);
  EXPECT_NE(info.error().message.find("initialize: /serverInfo"), std::string::npos)
      << info.error().message;
  auto tools = s.client->list_tools();
  ASSERT_FALSE(tools);
  EXPECT_EQ(tools.error().code, -32602);
  EXPECT_NE(tools.error().message.find("tools/list: /tools/1/inputSchema"), std::string::npos)
      << tools.error().message;
  EXPECT_NE(tools.error().message.find("missing"), std::string::npos) << tools.error().message;
  // The JSON listing still has both.
  auto raw = s.client->list_all_tools();
  ASSERT_TRUE(raw);
  EXPECT_EQ(raw->size(), 2u);
}

// ---- typed handlers ----

TEST(client_types, typed_handlers_declare_their_capabilities) {
  scripted_server s;
  s.start({.on_elicitation = [](const mcp::elicitation_request&,
                                std::stop_token) -> mcp::result<mcp::elicitation_answer> {
             return mcp::elicitation_answer::decline();
           },
           .elicitation_url = true,
           .on_sampling = [](const mcp::sampling_request&,
                             std::stop_token) -> mcp::result<mcp::sampling_answer> {
             return mcp::error{mcp::errc::user_rejected, "no"};
           },
           .roots = std::vector<mcp::root_info>{}});
  std::lock_guard lock(s.mu);
  const auto& caps = s.init_params.at("capabilities").as_object();
  EXPECT_EQ(caps.at("elicitation"), (object{{"form", object{}}, {"url", object{}}}));
  EXPECT_EQ(caps.at("sampling"), object{});
  EXPECT_EQ(caps.at("roots"), (object{{"listChanged", true}}));
}

TEST(client_types, a_capability_given_by_hand_is_kept_and_a_method_handled_twice_throws) {
  scripted_server s;
  s.start({.capabilities = object{{"elicitation", object{}}},
           .on_elicitation = [](const mcp::elicitation_request&, std::stop_token) {
             return mcp::result<mcp::elicitation_answer>(mcp::elicitation_answer::cancel());
           }});
  {
    std::lock_guard lock(s.mu);
    EXPECT_EQ(s.init_params.at("capabilities").at("elicitation"), object{});
  }
  auto [server_end, client_end] = mcp::make_memory_pair();
  mcp::client_options both{
      .request_handlers = {{"roots/list",
                            [](const object&, std::stop_token) -> mcp::result<object> {
                              return object{{"roots", array{}}};
                            }}},
      .roots = std::vector<mcp::root_info>{}};
  EXPECT_THROW(mcp::client_session(client_end, std::move(both)), std::invalid_argument);
}

TEST(client_types, a_request_that_does_not_decode_is_answered_invalid_params) {
  scripted_server s;
  bool called = false;
  s.start({.on_elicitation = [&called](const mcp::elicitation_request&, std::stop_token) {
    called = true;
    return mcp::result<mcp::elicitation_answer>(mcp::elicitation_answer::cancel());
  }});
  s.end->send(R"({"jsonrpc":"2.0","id":77,"method":"elicitation/create","params":{"mode":1}})", {});
  auto answer = s.wait_for(77);
  ASSERT_TRUE(answer.contains("error")) << mcp::json::serialize(answer);
  EXPECT_EQ(answer.at("error").at("code"), -32602);
  EXPECT_NE(std::string(answer.at("error").at("message").as_string()).find("elicitation/create"),
            std::string::npos);
  EXPECT_FALSE(called);
}

TEST(client_types, a_url_elicitation_reaches_the_typed_handler) {
  scripted_server s;
  std::mutex mu;
  mcp::elicitation_request seen;
  s.start({.on_elicitation =
               [&](const mcp::elicitation_request& q, std::stop_token) {
                 std::lock_guard lock(mu);
                 seen = q;
                 return mcp::result<mcp::elicitation_answer>(mcp::elicitation_answer::accept());
               },
           .elicitation_url = true});
  s.end->send(R"({"jsonrpc":"2.0","id":78,"method":"elicitation/create","params":{"mode":"url",
      "message":"Sign in","url":"https://example.com/login","elicitationId":"e-1","extra":1}})",
              {});
  auto answer = s.wait_for(78);
  EXPECT_EQ(answer.at("result"), (object{{"action", "accept"}})) << mcp::json::serialize(answer);
  std::lock_guard lock(mu);
  EXPECT_TRUE(seen.is_url());
  EXPECT_EQ(seen.message, "Sign in");
  EXPECT_EQ(seen.url, "https://example.com/login");
  EXPECT_EQ(seen.elicitation_id, "e-1");
  EXPECT_FALSE(seen.requested_schema);
}

/// A server whose tools ask the client: elicitation, sampling, roots.
std::unique_ptr<mcp::server> make_asking_server() {
  auto s =
      std::make_unique<mcp::server>(mcp::server_options{.info = {.name = "ask", .version = "1"}});
  s->add_tool({.name = "ask", .description = "d"}, [](mcp::tool_context& ctx) -> std::string {
    auto r =
        ctx.elicit(object{{"message", "Name?"}, {"requestedSchema", object{{"type", "object"}}}});
    if (!r) return "error: " + r.error().message;
    return mcp::json::serialize(*r);
  });
  s->add_tool({.name = "sample", .description = "d"}, [](mcp::tool_context& ctx) -> std::string {
    auto r = ctx.sample("Say hi", {.system_prompt = "be kind", .max_tokens = 42});
    return r ? *r : "error: " + r.error().message;
  });
  s->add_tool({.name = "roots", .description = "d"}, [](mcp::tool_context& ctx) -> std::string {
    auto r = ctx.list_roots();
    return r ? mcp::json::serialize(r->at("roots")) : "error: " + r.error().message;
  });
  return s;
}

std::string text_of(const mcp::result<object>& r) {
  if (!r) return "protocol error: " + r.error().message;
  return mcp::client_session::joined_text(*r);
}

TEST(client_types, typed_handlers_answer_a_real_server) {
  auto s = make_asking_server();
  std::mutex mu;
  mcp::sampling_request seen_sampling;
  auto c =
      connect(*s, {.on_elicitation = [](const mcp::elicitation_request& q,
                                        std::stop_token) -> mcp::result<mcp::elicitation_answer> {
                     if (q.message != "Name?" || q.is_url() || !q.requested_schema) {
                       return mcp::error{mcp::errc::invalid_params, "unexpected request"};
                     }
                     return mcp::elicitation_answer::accept(object{{"name", "Ada"}});
                   },
                   .on_sampling = [&](const mcp::sampling_request& q,
                                      std::stop_token) -> mcp::result<mcp::sampling_answer> {
                     {
                       std::lock_guard lock(mu);
                       seen_sampling = q;
                     }
                     return mcp::sampling_answer{.content = mcp::text_content("hi!"),
                                                 .model = "test-model"};
                   },
                   .roots = std::vector<mcp::root_info>{{.uri = "file:///work", .name = "work"}}});
  EXPECT_EQ(text_of(c.client->call_tool("ask")), R"({"action":"accept","content":{"name":"Ada"}})");
  EXPECT_EQ(text_of(c.client->call_tool("sample")), "hi!");
  {
    std::lock_guard lock(mu);
    EXPECT_EQ(seen_sampling.max_tokens, 42);
    EXPECT_EQ(seen_sampling.system_prompt, "be kind");
    ASSERT_EQ(seen_sampling.messages.size(), 1u);
    EXPECT_EQ(seen_sampling.messages[0].role, "user");
    EXPECT_EQ(seen_sampling.messages[0].content.at("text"), "Say hi");
  }
  EXPECT_EQ(text_of(c.client->call_tool("roots")), R"([{"uri":"file:///work","name":"work"}])");
  ASSERT_TRUE(c.client->set_roots({{.uri = "file:///other"}}));
  EXPECT_EQ(text_of(c.client->call_tool("roots")), R"([{"uri":"file:///other"}])");
}

TEST(client_types, set_roots_sends_list_changed_and_needs_roots) {
  scripted_server s;
  s.start({.roots = std::vector<mcp::root_info>{}});
  ASSERT_TRUE(s.client->set_roots({{.uri = "file:///a"}}));
  EXPECT_FALSE(s.wait_for("notifications/roots/list_changed").empty());

  auto owner = make_asking_server();
  auto c = connect(*owner);
  auto refused = c.client->set_roots({});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, -32600);
}

}  // namespace
