// Wire-level tests of resources, resource templates, prompts and completion (mcp/resource.hpp,
// mcp/prompt.hpp): capabilities, listing and pagination, reads, -32002, subscriptions and
// notifications, prompt arguments, completion, and -32042 from a tool.
#include <mcp/server.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <memory>
#include <thread>

#include "support/wire.hpp"

namespace {

using mcp::json::array;
using mcp::json::object;
using mcp::json::value;
using mcp::test::j;
using mcp::test::wire;
using namespace std::chrono_literals;

auto text_reader(std::string text) {
  return [text](const mcp::resource_request& r) -> mcp::result<mcp::read_resource_result> {
    return mcp::read_resource_result{{mcp::resource_contents::text_of(r.uri, text, "text/plain")}};
  };
}

/// A server with the fixtures (a server is pinned: it is handed around by pointer).
/// `debounce`: list_changed_debounce (a test of debouncing widens it, so that changes made on a
/// loaded machine still fall in one window).
std::unique_ptr<mcp::server> make_server(
    std::size_t page_size = 100,
    std::chrono::milliseconds debounce = mcp::server_options{}.list_changed_debounce) {
  auto owner =
      std::make_unique<mcp::server>(mcp::server_options{.info = {.name = "res", .version = "1"},
                                                        .page_size = page_size,
                                                        .list_changed_debounce = debounce});
  auto& s = *owner;
  s.add_resource({.uri = "test://a",
                  .name = "a",
                  .title = "Resource A",
                  .description = "The first",
                  .mime_type = "text/plain",
                  .size = 5},
                 text_reader("alpha"));
  s.add_resource({.uri = "test://b", .name = "b", .mime_type = "image/png"},
                 [](const mcp::resource_request& r) -> mcp::result<mcp::read_resource_result> {
                   const std::string bytes = "\x89PNG";
                   return mcp::read_resource_result{{mcp::resource_contents::blob_of(
                       r.uri, std::as_bytes(std::span(bytes.data(), bytes.size())), "image/png")}};
                 });
  s.add_resource({.uri = "test://c", .name = "c"}, text_reader("gamma"));
  s.add_resource_template(
      {.uri_template = "users://{id}/profile",
       .name = "profile",
       .mime_type = "application/json",
       .complete =
           [](const mcp::completion_request& c) {
             mcp::completion_result out;
             for (const char* v : {"alice", "albert", "bob"}) {
               if (std::string_view(v).starts_with(c.value)) out.values.emplace_back(v);
             }
             return out;
           }},
      [](const mcp::resource_request& r) -> mcp::result<mcp::read_resource_result> {
        const auto& id = r.variables.at("id");
        if (id == "nobody") return mcp::resource_not_found(r.uri);
        return mcp::read_resource_result{
            {mcp::resource_contents::text_of(r.uri, "profile of " + id, "application/json")}};
      });
  s.add_prompt({.name = "greet",
                .title = "Greeting",
                .description = "Greets someone",
                .arguments = {{.name = "name", .description = "Who", .required = true},
                              {.name = "style", .required = false}},
                .complete =
                    [](const mcp::completion_request& c) {
                      mcp::completion_result out;
                      if (c.argument == "style") out.values = {"formal", "casual"};
                      if (c.argument == "name" && c.context.contains("style")) out.values = {"Sir"};
                      out.total = 1000;
                      out.has_more = true;
                      return out;
                    }},
               [](const mcp::prompt_request& r) -> mcp::result<mcp::get_prompt_result> {
                 const auto style =
                     r.arguments.contains("style") ? r.arguments.at("style") : "plain";
                 return mcp::get_prompt_result{
                     .description = "A greeting",
                     .messages = {mcp::prompt_message::user(mcp::text_content(
                                      "Hello " + r.arguments.at("name") + " (" + style + ")")),
                                  mcp::prompt_message::assistant(mcp::embedded_text_resource(
                                      "test://a", "alpha", "text/plain"))}};
               });
  return owner;
}

TEST(resources, capabilities_are_declared_only_for_what_is_registered) {
  mcp::server empty(mcp::server_options{});
  wire w0(empty);
  EXPECT_EQ(w0.initialize().at("result").at("capabilities"), j(R"({"logging":{}})"));

  auto owner = make_server();
  auto& s = *owner;
  wire w(s);
  EXPECT_EQ(w.initialize().at("result").at("capabilities"),
            j(R"({"logging":{},"resources":{"subscribe":true,"listChanged":true},
                  "prompts":{"listChanged":true},"completions":{}})"));

  mcp::server tools_only(mcp::server_options{});
  tools_only.add_tool({.name = "t", .description = "T", .run_inline = true},
                      [](mcp::tool_context&, const object&) { return mcp::call_tool_result{}; });
  wire w2(tools_only);
  EXPECT_EQ(w2.initialize().at("result").at("capabilities"),
            j(R"({"tools":{"listChanged":true},"logging":{}})"));
  // Methods of features the session was not offered are not found.
  EXPECT_EQ(w2.call("prompts/list", {}, 2).at("error").at("code"), -32601);
  EXPECT_EQ(w2.call("resources/read", object{{"uri", "x"}}, 3).at("error").at("code"), -32601);
  EXPECT_EQ(w2.call("completion/complete", {}, 4).at("error").at("code"), -32601);
}

TEST(resources, list_has_exact_wire_form_and_pages_with_opaque_cursors) {
  auto owner = make_server(2);
  auto& s = *owner;
  wire w(s);
  w.initialize();
  auto p1 = w.call("resources/list", {}, 1);
  EXPECT_EQ(p1.at("result").at("resources"),
            j(R"([{"uri":"test://a","name":"a","title":"Resource A","description":"The first",
                   "mimeType":"text/plain","size":5},
                  {"uri":"test://b","name":"b","mimeType":"image/png"}])"));
  const auto cursor = p1.at("result").at("nextCursor");
  ASSERT_TRUE(cursor.is_string());
  auto p2 = w.call("resources/list", object{{"cursor", cursor}}, 2);
  EXPECT_EQ(p2.at("result"), j(R"({"resources":[{"uri":"test://c","name":"c"}]})"));
  auto bad = w.call("resources/list", object{{"cursor", "bm90LWEtY3Vyc29y"}}, 3);
  EXPECT_EQ(bad.at("error").at("code"), -32602);

  // Older eras do not get fields they lack.
  wire old(s);
  old.initialize("2025-03-26");
  auto o = old.call("resources/list", {}, 4);
  EXPECT_FALSE(o.at("result").at("resources").at(0).as_object().contains("title"));
}

TEST(resources, read_text_blob_template_and_missing) {
  auto owner = make_server();
  auto& s = *owner;
  wire w(s);
  w.initialize();
  EXPECT_EQ(w.call("resources/read", object{{"uri", "test://a"}}, 1),
            j(R"({"jsonrpc":"2.0","id":1,"result":{"contents":[
                  {"uri":"test://a","mimeType":"text/plain","text":"alpha"}]}})"));
  EXPECT_EQ(w.call("resources/read", object{{"uri", "test://b"}}, 2).at("result").at("contents"),
            j(R"([{"uri":"test://b","mimeType":"image/png","blob":"iVBORw=="}])"));
  EXPECT_EQ(w.call("resources/read", object{{"uri", "users://ann/profile"}}, 3)
                .at("result")
                .at("contents")
                .at(0)
                .at("text"),
            "profile of ann");
  EXPECT_EQ(w.call("resources/read", object{{"uri", "test://missing"}}, 4),
            j(R"({"jsonrpc":"2.0","id":4,"error":{"code":-32002,
                  "message":"Resource not found: test://missing","data":{"uri":"test://missing"}}})"));
  EXPECT_EQ(w.call("resources/read", object{{"uri", "users://nobody/profile"}}, 5).at("error"),
            j(R"({"code":-32002,"message":"Resource not found: users://nobody/profile",
                  "data":{"uri":"users://nobody/profile"}})"));
  EXPECT_EQ(w.call("resources/read", object{}, 6).at("error").at("code"), -32602);
}

TEST(resources, a_slow_read_does_not_hold_up_the_session) {
  auto owner = make_server();
  auto& s = *owner;
  std::atomic<bool> release{false};
  s.add_resource({.uri = "test://slow", .name = "slow"},
                 [&](const mcp::resource_request& r) -> mcp::result<mcp::read_resource_result> {
                   for (int i = 0; i < 500 && !release; ++i) std::this_thread::sleep_for(10ms);
                   return mcp::read_resource_result{
                       .contents = {mcp::resource_contents::text_of(r.uri, "done")}};
                 });
  wire w(s);
  w.initialize();
  w.send(
      R"({"jsonrpc":"2.0","id":"slow","method":"resources/read","params":{"uri":"test://slow"}})");
  // The read runs on the executor: the session answers the next request meanwhile.
  EXPECT_EQ(w.call("ping", {}, 2), j(R"({"jsonrpc":"2.0","id":2,"result":{}})"));
  release = true;
  auto r = w.next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->at("id"), "slow");
  EXPECT_EQ(r->at("result").at("contents").at(0).at("text"), "done");
}

TEST(resources, templates_list) {
  auto owner = make_server();
  auto& s = *owner;
  wire w(s);
  w.initialize();
  EXPECT_EQ(w.call("resources/templates/list", {}, 1).at("result"),
            j(R"({"resourceTemplates":[{"uriTemplate":"users://{id}/profile","name":"profile",
                  "mimeType":"application/json"}]})"));
}

TEST(resources, subscribers_get_updated_and_unsubscribed_do_not) {
  auto owner = make_server();
  auto& s = *owner;
  wire a(s);
  wire b(s);
  a.initialize();
  b.initialize();
  EXPECT_EQ(a.call("resources/subscribe", object{{"uri", "test://a"}}, 1),
            j(R"({"jsonrpc":"2.0","id":1,"result":{}})"));
  s.notify_resource_updated("test://a");
  s.notify_resource_updated("test://c");  // nobody subscribed
  auto n = a.next(2s);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, j(R"({"jsonrpc":"2.0","method":"notifications/resources/updated",
                      "params":{"uri":"test://a"}})"));
  EXPECT_EQ(a.call("resources/unsubscribe", object{{"uri", "test://a"}}, 2).at("result"), object{});
  s.notify_resource_updated("test://a");
  EXPECT_FALSE(a.next(100ms));
  EXPECT_FALSE(b.next(50ms));
  EXPECT_EQ(a.call("resources/subscribe", object{}, 3).at("error").at("code"), -32602);
}

TEST(resources, list_changed_after_initialize_only) {
  auto owner = make_server(100, 500ms);
  auto& s = *owner;
  wire w(s);
  w.initialize();
  EXPECT_FALSE(
      w.next(700ms));  // registrations before initialize are not announced (debounce 500 ms)
  s.add_resource({.uri = "test://d", .name = "d"}, text_reader("delta"));
  s.add_resource({.uri = "test://e", .name = "e"}, text_reader("eps"));  // debounced: one
  auto n = w.next(2s);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->at("method"), "notifications/resources/list_changed");
  EXPECT_FALSE(w.next(100ms));
  EXPECT_TRUE(s.remove_prompt("greet"));
  auto p = w.next(2s);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->at("method"), "notifications/prompts/list_changed");
  EXPECT_FALSE(s.remove_prompt("greet"));
  EXPECT_TRUE(s.remove_resource("test://d"));
  EXPECT_TRUE(s.remove_resource_template("users://{id}/profile"));
}

TEST(resources, registration_errors_throw) {
  auto owner = make_server();
  auto& s = *owner;
  EXPECT_THROW(s.add_resource({.uri = "test://a", .name = "dup"}, text_reader("x")),
               std::invalid_argument);
  EXPECT_THROW(s.add_resource({.uri = "", .name = "x"}, text_reader("x")), std::invalid_argument);
  EXPECT_THROW(s.add_resource({.uri = "test://z", .name = ""}, text_reader("x")),
               std::invalid_argument);
  EXPECT_THROW(s.add_resource({.uri = "test://z", .name = "z"}, nullptr), std::invalid_argument);
  EXPECT_THROW(s.add_resource_template({.uri_template = "bad://{", .name = "b"}, text_reader("x")),
               std::invalid_argument);
  EXPECT_THROW(s.add_prompt({.name = "greet"},
                            [](const mcp::prompt_request&) {
                              return mcp::result<mcp::get_prompt_result>(mcp::get_prompt_result{});
                            }),
               std::invalid_argument);
  EXPECT_THROW(s.add_prompt({.name = "p", .arguments = {{.name = "x"}, {.name = "x"}}},
                            [](const mcp::prompt_request&) {
                              return mcp::result<mcp::get_prompt_result>(mcp::get_prompt_result{});
                            }),
               std::invalid_argument);
}

TEST(prompts, list_and_get_with_arguments) {
  auto owner = make_server();
  auto& s = *owner;
  wire w(s);
  w.initialize();
  EXPECT_EQ(w.call("prompts/list", {}, 1).at("result"),
            j(R"({"prompts":[{"name":"greet","title":"Greeting","description":"Greets someone",
                  "arguments":[{"name":"name","description":"Who","required":true},
                               {"name":"style"}]}]})"));
  EXPECT_EQ(
      w.call("prompts/get", object{{"name", "greet"}, {"arguments", object{{"name", "Ann"}}}}, 2)
          .at("result"),
      j(R"json({"description":"A greeting","messages":[
                  {"role":"user","content":{"type":"text","text":"Hello Ann (plain)"}},
                  {"role":"assistant","content":{"type":"resource","resource":
                    {"uri":"test://a","mimeType":"text/plain","text":"alpha"}}}]})json"));
  auto missing = w.call("prompts/get", object{{"name", "greet"}}, 3);
  EXPECT_EQ(missing.at("error").at("code"), -32602);
  EXPECT_NE(std::string(missing.at("error").at("message").as_string()).find("name"),
            std::string::npos);
  EXPECT_EQ(w.call("prompts/get", object{{"name", "nope"}}, 4).at("error").at("code"), -32602);
  EXPECT_EQ(w.call("prompts/get", object{{"name", "greet"}, {"arguments", object{{"name", 5}}}}, 5)
                .at("error")
                .at("code"),
            -32602);
}

TEST(prompts, messages_a_client_version_lacks_are_left_out) {
  auto owner = make_server();
  auto& s = *owner;
  const std::array<std::byte, 2> pcm{std::byte{1}, std::byte{2}};
  s.add_prompt({.name = "media"}, [&](const mcp::prompt_request&) {
    return mcp::get_prompt_result{
        .messages = {
            mcp::prompt_message::user(mcp::text_content("see")),
            mcp::prompt_message::user(mcp::resource_link_content({.uri = "test://a", .name = "a"})),
            mcp::prompt_message::user(mcp::audio_content(pcm, "audio/wav"))}};
  });
  auto types = [&](std::string_view version) {
    wire w(s);
    w.initialize(version);
    std::vector<std::string> out;
    const auto r = w.call("prompts/get", object{{"name", "media"}}, 2);
    for (const auto& m : r.at("result").at("messages").as_array()) {
      out.emplace_back(m.at("content").at("type").as_string());
    }
    return out;
  };
  EXPECT_EQ(types("2025-11-25"), (std::vector<std::string>{"text", "resource_link", "audio"}));
  EXPECT_EQ(types("2025-06-18"), (std::vector<std::string>{"text", "resource_link", "audio"}));
  EXPECT_EQ(types("2025-03-26"), (std::vector<std::string>{"text", "audio"}));
  EXPECT_EQ(types("2024-11-05"), (std::vector<std::string>{"text"}));
}

TEST(prompts, pagination) {
  mcp::server s({.page_size = 1});
  for (const char* n : {"p1", "p2", "p3"}) {
    s.add_prompt({.name = n}, [](const mcp::prompt_request&) {
      return mcp::result<mcp::get_prompt_result>(mcp::get_prompt_result{});
    });
  }
  wire w(s);
  w.initialize();
  std::vector<std::string> names;
  value cursor;
  for (int page = 0; page < 5; ++page) {
    object params;
    if (cursor.is_string()) params["cursor"] = cursor;
    auto r = w.call("prompts/list", params, page + 1).at("result").as_object();
    for (const auto& p : r.at("prompts").as_array()) names.emplace_back(p.at("name").as_string());
    if (!r.contains("nextCursor")) break;
    cursor = r.at("nextCursor");
  }
  EXPECT_EQ(names, (std::vector<std::string>{"p1", "p2", "p3"}));
}

TEST(completion, prompt_arguments_and_template_variables) {
  auto owner = make_server();
  auto& s = *owner;
  wire w(s);
  w.initialize();
  auto t = w.call("completion/complete",
                  object{{"ref", object{{"type", "ref/resource"}, {"uri", "users://{id}/profile"}}},
                         {"argument", object{{"name", "id"}, {"value", "al"}}}},
                  1);
  EXPECT_EQ(t.at("result"), j(R"({"completion":{"values":["alice","albert"]}})"));
  auto p = w.call("completion/complete",
                  object{{"ref", object{{"type", "ref/prompt"}, {"name", "greet"}}},
                         {"argument", object{{"name", "name"}, {"value", ""}}},
                         {"context", object{{"arguments", object{{"style", "formal"}}}}}},
                  2);
  EXPECT_EQ(p.at("result"), j(R"({"completion":{"values":["Sir"],"total":1000,"hasMore":true}})"));
  auto unknown = w.call("completion/complete",
                        object{{"ref", object{{"type", "ref/prompt"}, {"name", "nope"}}},
                               {"argument", object{{"name", "x"}, {"value", ""}}}},
                        3);
  EXPECT_EQ(unknown.at("error").at("code"), -32602);
  auto bad_ref = w.call("completion/complete",
                        object{{"ref", object{{"type", "ref/other"}}},
                               {"argument", object{{"name", "x"}, {"value", ""}}}},
                        4);
  EXPECT_EQ(bad_ref.at("error").at("code"), -32602);
}

TEST(completion, caps_values_at_100) {
  mcp::server s(mcp::server_options{});
  s.add_prompt({.name = "many",
                .complete =
                    [](const mcp::completion_request&) {
                      mcp::completion_result r;
                      for (int i = 0; i < 150; ++i) r.values.push_back(std::to_string(i));
                      return r;
                    }},
               [](const mcp::prompt_request&) {
                 return mcp::result<mcp::get_prompt_result>(mcp::get_prompt_result{});
               });
  wire w(s);
  w.initialize();
  auto r = w.call("completion/complete",
                  object{{"ref", object{{"type", "ref/prompt"}, {"name", "many"}}},
                         {"argument", object{{"name", "a"}, {"value", ""}}}},
                  1);
  EXPECT_EQ(r.at("result").at("completion").at("values").as_array().size(), 100U);
  EXPECT_EQ(r.at("result").at("completion").at("hasMore"), true);
}

TEST(elicitation, a_tool_can_answer_url_elicitation_required) {
  mcp::server s(mcp::server_options{});
  s.add_async_tool(
      {.name = "needs_auth", .description = "Needs auth", .run_inline = true},
      [](mcp::tool_context&, const object&, const mcp::responder& done) {
        done.fail(mcp::url_elicitation_required(array{object{{"mode", "url"},
                                                             {"elicitationId", "e1"},
                                                             {"url", "https://example.com/auth"},
                                                             {"message", "Authorize"}}}));
      });
  s.add_tool({.name = "throws_it", .description = "Throws", .run_inline = true},
             [](mcp::tool_context&, const object&) -> mcp::call_tool_result {
               throw mcp::protocol_error(mcp::url_elicitation_required(array{}, "Go there"));
             });
  // Thrown as a plain error_exception (what result<T>::value() throws), it is a tool failure.
  s.add_tool({.name = "throws_plain", .description = "Throws", .run_inline = true},
             [](mcp::tool_context&, const object&) -> mcp::call_tool_result {
               throw mcp::error_exception(mcp::url_elicitation_required(array{}, "Go there"));
             });
  wire w(s);
  w.initialize();
  auto r = w.call("tools/call", object{{"name", "needs_auth"}}, 1);
  EXPECT_EQ(r.at("error"), j(R"({"code":-32042,"message":"This request requires more information.",
      "data":{"elicitations":[{"mode":"url","elicitationId":"e1",
              "url":"https://example.com/auth","message":"Authorize"}]}})"));
  auto t = w.call("tools/call", object{{"name", "throws_it"}}, 2);
  EXPECT_EQ(t.at("error").at("code"), -32042);
  EXPECT_EQ(t.at("error").at("data"), j(R"({"elicitations":[]})"));
  auto plain = w.call("tools/call", object{{"name", "throws_plain"}}, 3);
  EXPECT_EQ(plain.at("result"),
            j(R"({"content":[{"type":"text","text":"Go there"}],"isError":true})"))
      << mcp::to_json_string(plain);
}

TEST(elicitation, form_schemas_with_defaults_and_every_enum_style_pass_through_unchanged) {
  const auto schema = j(R"({"type":"object","properties":{
    "name":{"type":"string","default":"John Doe"},
    "age":{"type":"integer","default":30},
    "score":{"type":"number","default":95.5},
    "verified":{"type":"boolean","default":true},
    "untitled":{"type":"string","enum":["a","b"],"default":"a"},
    "titled":{"type":"string","oneOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]},
    "legacy":{"type":"string","enum":["a","b"],"enumNames":["A","B"]},
    "multi":{"type":"array","items":{"type":"string","enum":["a","b"]},"default":["a"]},
    "titledMulti":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}}},
    "required":["name"]})");
  mcp::server s(mcp::server_options{});
  s.add_tool({.name = "form", .description = "Form elicitation"},
             [schema](mcp::tool_context& ctx, const object&) {
               auto r = ctx.elicit(object{{"message", "Fill in"}, {"requestedSchema", schema}});
               if (!r) return mcp::tool_error_result(r.error().message);
               return mcp::call_tool_result{
                   .content = {mcp::text_content(mcp::to_json_string(r->at("action")))}};
             });
  wire w(s);
  w.initialize("2025-11-25", object{{"elicitation", object{}}});
  w.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"form"}})");
  auto req = w.next(2s);
  ASSERT_TRUE(req);
  EXPECT_EQ(req->at("method"), "elicitation/create");
  EXPECT_EQ(req->at("params"), (object{{"message", "Fill in"}, {"requestedSchema", schema}}));
  w.send(
      object{{"jsonrpc", "2.0"}, {"id", req->at("id")}, {"result", object{{"action", "decline"}}}});
  auto done = w.next_response(2s);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->at("result").at("content").at(0).at("text"), "\"decline\"");
}

TEST(elicitation, url_mode_needs_the_client_capability) {
  mcp::server s(mcp::server_options{});
  s.add_tool({.name = "ask_url", .description = "URL elicitation"},
             [](mcp::tool_context& ctx, const object&) {
               auto r = ctx.elicit(object{{"mode", "url"},
                                          {"elicitationId", "e2"},
                                          {"url", "https://example.com/x"},
                                          {"message", "Visit"}});
               if (!r) return mcp::tool_error_result(r.error().message);
               return mcp::call_tool_result{.content = {mcp::text_content("accepted")}};
             });
  wire form_only(s);
  form_only.initialize("2025-11-25", object{{"elicitation", object{}}});
  auto r = form_only.call("tools/call", object{{"name", "ask_url"}}, 1);
  EXPECT_EQ(r.at("result").at("isError"), true);
  EXPECT_NE(std::string(r.at("result").at("content").at(0).at("text").as_string())
                .find("elicitation.url"),
            std::string::npos);

  wire with_url(s);
  with_url.initialize("2025-11-25", object{{"elicitation", object{{"url", object{}}}}});
  with_url.send(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask_url"}})");
  auto req = with_url.next(2s);
  ASSERT_TRUE(req);
  EXPECT_EQ(req->at("method"), "elicitation/create");
  EXPECT_EQ(req->at("params").at("mode"), "url");
  with_url.send(
      object{{"jsonrpc", "2.0"}, {"id", req->at("id")}, {"result", object{{"action", "accept"}}}});
  auto done = with_url.next_response(2s);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->at("result").at("content").at(0).at("text"), "accepted");
}

}  // namespace

namespace {

TEST(resources, a_template_variable_that_decodes_to_invalid_utf8_is_refused_with_32602) {
  auto owner = make_server();
  auto& s = *owner;
  bool called = false;
  s.add_resource_template(
      {.uri_template = "file:///{name}", .name = "files"},
      [&](const mcp::resource_request&) -> mcp::result<mcp::read_resource_result> {
        called = true;
        return mcp::read_resource_result{};
      });
  wire w(s);
  w.initialize();
  auto r = w.call("resources/read", object{{"uri", "file:///a%95b"}}, 1);
  ASSERT_TRUE(r.as_object().contains("error")) << mcp::json::serialize(r);
  EXPECT_EQ(r.at("error").at("code"), -32602);
  EXPECT_NE(std::string(r.at("error").at("message").as_string()).find("\"name\""),
            std::string::npos);
  EXPECT_FALSE(called);
  // Valid UTF-8, percent-encoded, still reaches the handler.
  auto ok = w.call("resources/read", object{{"uri", "file:///%C3%A9t%C3%A9"}}, 2);
  EXPECT_TRUE(ok.as_object().contains("result")) << mcp::json::serialize(ok);
  EXPECT_TRUE(called);
  // The session still serves.
  EXPECT_EQ(w.call("ping", {}, 3), j(R"({"jsonrpc":"2.0","id":3,"result":{}})"));
}

}  // namespace
