// The mcp-cpp "everything" server: the fixtures of the official MCP conformance suite
// (@modelcontextprotocol/conformance), built from the SDK's public API only.
//
//   everything_server                        serve MCP over stdio
//   everything_server --http 127.0.0.1:3001  serve Streamable HTTP on http://127.0.0.1:3001/mcp
//                                            (port 0: any; the URL is printed on stderr)
//   everything_server --page-size N          list pages of N items (to see pagination)
//
// Tools: test_simple_text, test_image_content, test_audio_content, test_embedded_resource,
// test_multiple_content_types, test_tool_with_logging, test_error_handling,
// test_tool_with_progress, test_sampling, test_elicitation, test_elicitation_sep1034_defaults,
// test_elicitation_sep1330_enums, json_schema_2020_12_tool, test_reconnection, and two extras:
// test_slow_operation (cancellable), test_url_elicitation (URL mode, or error -32042) and
// test_touch_watched_resource (notifications/resources/updated to subscribers).
// The tools are typed (argument structs described with MCP_FIELDS, schemas inferred) except
// where raw JSON is the point: json_schema_2020_12_tool's hand-written 2020-12 schema, the enum
// styles of test_elicitation_sep1330_enums and the URL-mode elicitation parameters.
// Resources: test://static-text, test://static-binary, test://watched-resource and the
// template test://template/{id}/data. Prompts: test_simple_prompt, test_prompt_with_arguments,
// test_prompt_with_embedded_resource, test_prompt_with_image.
#include <mcp/http_server.hpp>
#include <mcp/server.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "media_fixtures.hpp"
#include "serve_main.hpp"

namespace everything {

using mcp::json::array;
using mcp::json::object;
using namespace std::chrono_literals;

using examples::bytes_of;
using examples::png_base64;
using examples::tiny_wav;

object png_image() {
  return object{{"type", "image"}, {"data", png_base64}, {"mimeType", "image/png"}};
}

mcp::call_tool_result text_result(std::string text) {
  mcp::call_tool_result r;
  r.content.push_back(mcp::text_content(text));
  return r;
}

/// Runs a raw elicitation (URL mode) and describes the answer; a refusal or an error is a tool
/// error.
mcp::call_tool_result elicit_and_report(mcp::tool_context& ctx, object params) {
  auto r = ctx.elicit(std::move(params));
  if (!r) return mcp::tool_error_result("Elicitation failed: " + r.error().message);
  const auto* action = r->if_contains("action");
  const std::string act = action && action->is_string() ? std::string(action->get_string()) : "";
  if (act != "accept")
    return mcp::tool_error_result("The user did not accept (action: " + act + ")");
  const auto* content = r->if_contains("content");
  return text_result("User response: action=accept, content=" +
                     (content ? mcp::to_json_string(*content) : std::string("{}")));
}

/// Describes a typed elicitation's answer; a refusal or an error is a tool error.
template <class T>
mcp::tool_result<std::string> report(const mcp::result<mcp::elicit_result<T>>& r) {
  if (!r) return mcp::tool_error{"Elicitation failed: " + r.error().message};
  if (!r->accepted()) {
    return mcp::tool_error{std::string("The user did not accept (action: ") +
                           (r->action == mcp::elicit_action::decline ? "decline" : "cancel") + ")"};
  }
  return "User response: action=accept, content=" + mcp::to_json_string(mcp::to_json(*r->content));
}

struct prompt_in {
  std::string prompt;
};
MCP_FIELDS(prompt_in, (prompt, "The prompt to send to the model"))

struct message_in {
  std::string message;
};
MCP_FIELDS(message_in, (message, "The message to show the user"))

// What test_elicitation asks the user for.
struct account {
  std::string username;
  std::string email;
};
MCP_FIELDS(account, (username, "User's response"), (email, "User's email address"))

// test_elicitation_sep1034_defaults: a default for every primitive type.
enum class user_status { active, inactive, pending };
BOOST_DESCRIBE_ENUM(user_status, active, inactive, pending)
struct user_form {
  std::string name = "John Doe";
  std::int64_t age = 30;
  double score = 95.5;
  user_status status = user_status::active;
  bool verified = true;
};
MCP_FIELDS(user_form, (name, {.description = "User name", .defaulted = true}),
           (age, {.description = "User age", .defaulted = true}),
           (score, {.description = "User score", .defaulted = true}),
           (status, {.description = "User status", .defaulted = true}),
           (verified, {.description = "Verification status", .defaulted = true}))

struct slow_in {
  double seconds = 5;
};
MCP_FIELDS(slow_in,
           (seconds,
            {.description = "How long to run", .defaulted = true, .minimum = 0, .maximum = 60}))

void add_content_tools(mcp::server& s) {
  s.add_tool({.name = "test_simple_text",
              .description = "Returns a simple text response.",
              .run_inline = true},
             [] { return "This is a simple text response for testing."; });
  s.add_tool({.name = "test_image_content",
              .description = "Returns an image (a 1x1 PNG).",
              .run_inline = true},
             [] { return png_image(); });
  s.add_tool({.name = "test_audio_content",
              .description = "Returns audio content (a short WAV).",
              .run_inline = true},
             [] { return mcp::audio_content(bytes_of(tiny_wav()), "audio/wav"); });
  s.add_tool({.name = "test_embedded_resource",
              .description = "Returns an embedded text resource.",
              .run_inline = true},
             [] {
               return mcp::embedded_text_resource("test://embedded-resource",
                                                  "This is an embedded resource content.",
                                                  "text/plain");
             });
  s.add_tool(
      {.name = "test_multiple_content_types",
       .description = "Returns text, an image and an embedded resource.",
       .run_inline = true},
      [] {
        return std::vector<object>{
            mcp::text_content("Multiple content types test:"), png_image(),
            mcp::embedded_text_resource("test://mixed-content-resource",
                                        R"({"test":"data","value":123})", "application/json")};
      });
  s.add_tool({.name = "test_error_handling",
              .description = "Always fails with a tool error (isError: true).",
              .run_inline = true},
             []() -> mcp::tool_result<std::string> {
               return mcp::tool_error{"This tool intentionally returns an error for testing"};
             });
  // The raw 2020-12 schema goes to tools/list exactly as written here.
  auto schema = mcp::parse_json(R"({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"type": "object",
                          "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": false})");
  s.add_tool({.name = "json_schema_2020_12_tool",
              .description = "A tool whose inputSchema uses JSON Schema 2020-12 keywords.",
              .input_schema = schema->as_object(),
              .run_inline = true},
             [](mcp::tool_context&, const object& args) {
               return text_result("Received: " + mcp::to_json_string(args));
             });
}

void add_interactive_tools(mcp::server& s) {
  s.add_tool(
      {.name = "test_tool_with_logging", .description = "Sends three log messages while it runs."},
      [](mcp::tool_context& ctx) {
        for (const char* m :
             {"Tool execution started", "Tool processing data", "Tool execution completed"}) {
          ctx.log(mcp::log_level::info, mcp::json::value(m));
          std::this_thread::sleep_for(50ms);
        }
        return "Tool with logging executed successfully";
      });
  s.add_tool({.name = "test_tool_with_progress",
              .description = "Reports progress 0, 50, 100 of 100 while it runs."},
             [](mcp::tool_context& ctx) {
               for (const double p : {0.0, 50.0, 100.0}) {
                 ctx.progress(p, 100.0, "Completed step " + std::to_string(static_cast<int>(p)));
                 std::this_thread::sleep_for(50ms);
               }
               return "Tool with progress executed successfully";
             });
  s.add_tool(
      {.name = "test_sampling",
       .description = "Asks the client's model to answer a prompt (sampling/createMessage)."},
      [](mcp::tool_context& ctx, const prompt_in& in) -> mcp::tool_result<std::string> {
        auto r = ctx.sample(in.prompt, {.max_tokens = 100});
        if (!r) return mcp::tool_error{"Sampling failed: " + r.error().message};
        return "LLM response: " + *r;
      });
  s.add_tool({.name = "test_elicitation",
              .description = "Asks the user for a username and an email (elicitation/create)."},
             [](mcp::tool_context& ctx, const message_in& in) {
               return report(ctx.elicit<account>(in.message));
             });
  s.add_tool({.name = "test_elicitation_sep1034_defaults",
              .description = "Elicitation whose schema has a default for every primitive type."},
             [](mcp::tool_context& ctx) {
               return report(
                   ctx.elicit<user_form>("Please review and update the form fields with defaults"));
             });
  // The enum styles of 2025-11-25 (titled, legacy enumNames, multi-select): raw JSON on purpose.
  s.add_tool({.name = "test_elicitation_sep1330_enums",
              .description = "Elicitation using every enum style of 2025-11-25."},
             [](mcp::tool_context& ctx) {
               auto schema = mcp::parse_json(R"({"type": "object", "properties": {
          "untitledSingle": {"type": "string", "description": "Untitled single-select",
                             "enum": ["option1", "option2", "option3"]},
          "titledSingle": {"type": "string", "description": "Titled single-select",
                           "oneOf": [{"const": "value1", "title": "First Option"},
                                     {"const": "value2", "title": "Second Option"},
                                     {"const": "value3", "title": "Third Option"}]},
          "legacyEnum": {"type": "string", "description": "Legacy titled enum",
                         "enum": ["opt1", "opt2", "opt3"],
                         "enumNames": ["Option One", "Option Two", "Option Three"]},
          "untitledMulti": {"type": "array", "description": "Untitled multi-select",
                            "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
          "titledMulti": {"type": "array", "description": "Titled multi-select",
                          "items": {"anyOf": [{"const": "value1", "title": "First Choice"},
                                              {"const": "value2", "title": "Second Choice"},
                                              {"const": "value3", "title": "Third Choice"}]}}
        }})");
               return elicit_and_report(ctx, object{{"message", "Please choose from the options"},
                                                    {"requestedSchema", schema->as_object()}});
             });
  s.add_tool({.name = "test_url_elicitation",
              .description = "Asks the user to visit a URL (URL-mode elicitation); answers error "
                             "-32042 when the client cannot do URL mode."},
             [](mcp::tool_context& ctx) -> mcp::result<mcp::call_tool_result> {
               object params{{"mode", "url"},
                             {"elicitationId", "everything-url-1"},
                             {"url", "https://example.com/authorize"},
                             {"message", "Please authorize access at example.com"}};
               const auto* el = ctx.client_capabilities().if_contains("elicitation");
               if (!el || !el->is_object() || !el->get_object().contains("url")) {
                 // a JSON-RPC error (-32042), not a tool failure: the explicit way out
                 throw mcp::protocol_error(mcp::url_elicitation_required(array{params}));
               }
               return elicit_and_report(ctx, std::move(params));
             });
  s.add_tool({.name = "test_reconnection",
              .description = "Closes its SSE stream mid-call, then answers on the resumed "
                             "stream (SSE polling)."},
             [](mcp::tool_context& ctx) {
               ctx.close_sse_stream();
               std::this_thread::sleep_for(100ms);
               return "Reconnection test completed";
             });
  s.add_tool({.name = "test_touch_watched_resource",
              .description = "Announces a change of test://watched-resource to its subscribers.",
              .run_inline = true},
             [&s] {
               s.notify_resource_updated("test://watched-resource");
               return "Subscribers of test://watched-resource were notified";
             });
  s.add_tool(
      {.name = "test_slow_operation",
       .description = "Runs for up to 'seconds' seconds with progress; stops when cancelled."},
      [](mcp::tool_context& ctx, const slow_in& in) -> mcp::tool_result<std::string> {
        const auto steps = static_cast<int>(in.seconds * 10);
        for (int i = 0; i < steps; ++i) {
          if (ctx.cancelled()) return mcp::tool_error{"cancelled"};
          std::this_thread::sleep_for(100ms);
          ctx.progress(i + 1, steps);
        }
        return "Slow operation finished";
      });
}

void add_resources(mcp::server& s) {
  s.add_resource({.uri = "test://static-text",
                  .name = "static-text",
                  .title = "Static text",
                  .description = "A static text resource",
                  .mime_type = "text/plain"},
                 [](const mcp::resource_request& r) -> mcp::result<mcp::read_resource_result> {
                   return mcp::read_resource_result{{mcp::resource_contents::text_of(
                       r.uri, "This is the content of the static text resource.", "text/plain")}};
                 });
  s.add_resource({.uri = "test://static-binary",
                  .name = "static-binary",
                  .description = "A static binary resource (a 1x1 PNG)",
                  .mime_type = "image/png"},
                 [](const mcp::resource_request& r) -> mcp::result<mcp::read_resource_result> {
                   auto c = mcp::resource_contents{.uri = r.uri,
                                                   .mime_type = "image/png",
                                                   .text = {},
                                                   .blob = std::string(png_base64),
                                                   .meta = {}};
                   return mcp::read_resource_result{{std::move(c)}};
                 });
  s.add_resource({.uri = "test://watched-resource",
                  .name = "watched-resource",
                  .description = "A resource clients may subscribe to",
                  .mime_type = "text/plain"},
                 [](const mcp::resource_request& r) -> mcp::result<mcp::read_resource_result> {
                   return mcp::read_resource_result{{mcp::resource_contents::text_of(
                       r.uri, "Watched resource content", "text/plain")}};
                 });
  s.add_resource_template(
      {.uri_template = "test://template/{id}/data",
       .name = "template-data",
       .description = "Data for any id",
       .mime_type = "application/json",
       .complete =
           [](const mcp::completion_request& c) {
             mcp::completion_result out;
             for (const char* v : {"123", "456", "789"}) {
               if (std::string_view(v).starts_with(c.value)) out.values.emplace_back(v);
             }
             return out;
           }},
      [](const mcp::resource_request& r) -> mcp::result<mcp::read_resource_result> {
        const auto& id = r.variables.at("id");
        object data{{"id", id}, {"templateTest", true}, {"data", "Data for ID: " + id}};
        return mcp::read_resource_result{{mcp::resource_contents::text_of(
            r.uri, mcp::to_json_string(data), "application/json")}};
      });
}

void add_prompts(mcp::server& s) {
  s.add_prompt({.name = "test_simple_prompt", .description = "A prompt without arguments"},
               [](const mcp::prompt_request&) -> mcp::result<mcp::get_prompt_result> {
                 return mcp::get_prompt_result{
                     .messages = {mcp::prompt_message::user(
                         mcp::text_content("This is a simple prompt for testing."))}};
               });
  s.add_prompt(
      {.name = "test_prompt_with_arguments",
       .description = "A prompt with two required arguments",
       .arguments = {{.name = "arg1", .description = "First test argument", .required = true},
                     {.name = "arg2", .description = "Second test argument", .required = true}},
       .complete =
           [](const mcp::completion_request& c) {
             mcp::completion_result out;
             for (const char* v : {"test", "testing", "test-value", "other"}) {
               if (std::string_view(v).starts_with(c.value)) out.values.emplace_back(v);
             }
             out.total = out.values.size();
             return out;
           }},
      [](const mcp::prompt_request& r) -> mcp::result<mcp::get_prompt_result> {
        return mcp::get_prompt_result{.messages = {mcp::prompt_message::user(mcp::text_content(
                                          "Prompt with arguments: arg1='" + r.arguments.at("arg1") +
                                          "', arg2='" + r.arguments.at("arg2") + "'"))}};
      });
  s.add_prompt({.name = "test_prompt_with_embedded_resource",
                .description = "A prompt that embeds a resource",
                .arguments = {{.name = "resourceUri",
                               .description = "URI of the resource to embed",
                               .required = true}}},
               [](const mcp::prompt_request& r) -> mcp::result<mcp::get_prompt_result> {
                 return mcp::get_prompt_result{
                     .messages = {mcp::prompt_message::user(mcp::embedded_text_resource(
                                      r.arguments.at("resourceUri"),
                                      "Embedded resource content for testing.", "text/plain")),
                                  mcp::prompt_message::user(mcp::text_content(
                                      "Please process the embedded resource above."))}};
               });
  s.add_prompt({.name = "test_prompt_with_image", .description = "A prompt with an image"},
               [](const mcp::prompt_request&) -> mcp::result<mcp::get_prompt_result> {
                 return mcp::get_prompt_result{
                     .messages = {mcp::prompt_message::user(png_image()),
                                  mcp::prompt_message::user(
                                      mcp::text_content("Please analyze the image above."))}};
               });
}

}  // namespace everything

int main(int argc, char** argv) {
  std::string http;
  std::size_t page_size = 100;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--http" && i + 1 < argc) {
      http = argv[++i];
    } else if (a == "--page-size" && i + 1 < argc) {
      page_size = std::stoul(argv[++i]);
    } else if (a == "--help" || a == "-h") {
      std::fprintf(stderr, "usage: everything_server [--http HOST:PORT] [--page-size N]\n");
      return 0;
    } else {
      std::fprintf(stderr, "everything_server: unknown argument %s (try --help)\n", argv[i]);
      return 2;
    }
  }
  mcp::server server({.info = {.name = "mcp-cpp-everything-server",
                               .version = "1.0.0",
                               .title = "mcp-cpp everything server",
                               .description = "The MCP conformance fixtures, served by mcp-cpp"},
                      .page_size = page_size});
  everything::add_content_tools(server);
  everything::add_interactive_tools(server);
  everything::add_resources(server);
  everything::add_prompts(server);
  return examples::serve(server, http, mcp::http_server_options{.io_threads = 2},
                         "everything_server");
}
