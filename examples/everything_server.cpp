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
// Resources: test://static-text, test://static-binary, test://watched-resource and the
// template test://template/{id}/data. Prompts: test_simple_prompt, test_prompt_with_arguments,
// test_prompt_with_embedded_resource, test_prompt_with_image.
#include <mcp/http_server.hpp>
#include <mcp/server.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

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

object string_prop(std::string_view description) {
  return object{{"type", "string"}, {"description", description}};
}

/// An inputSchema with required string properties.
object strings_schema(std::initializer_list<std::pair<std::string_view, std::string_view>> props) {
  object properties;
  array required;
  for (const auto& [name, description] : props) {
    properties[name] = string_prop(description);
    required.emplace_back(name);
  }
  return object{{"type", "object"}, {"properties", properties}, {"required", required}};
}

/// Runs an elicitation and describes the answer; a refusal or an error is a tool error.
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

void add_content_tools(mcp::server& s) {
  const object no_args{{"type", "object"}, {"properties", object{}}};
  s.add_tool({.name = "test_simple_text",
              .description = "Returns a simple text response.",
              .input_schema = no_args,
              .run_inline = true},
             [](mcp::tool_context&, const object&) {
               return text_result("This is a simple text response for testing.");
             });
  s.add_tool({.name = "test_image_content",
              .description = "Returns an image (a 1x1 PNG).",
              .input_schema = no_args,
              .run_inline = true},
             [](mcp::tool_context&, const object&) {
               mcp::call_tool_result r;
               r.content.push_back(png_image());
               return r;
             });
  s.add_tool({.name = "test_audio_content",
              .description = "Returns audio content (a short WAV).",
              .input_schema = no_args,
              .run_inline = true},
             [](mcp::tool_context&, const object&) {
               mcp::call_tool_result r;
               r.content.push_back(mcp::audio_content(bytes_of(tiny_wav()), "audio/wav"));
               return r;
             });
  s.add_tool(
      {.name = "test_embedded_resource",
       .description = "Returns an embedded text resource.",
       .input_schema = no_args,
       .run_inline = true},
      [](mcp::tool_context&, const object&) {
        mcp::call_tool_result r;
        r.content.push_back(mcp::embedded_text_resource(
            "test://embedded-resource", "This is an embedded resource content.", "text/plain"));
        return r;
      });
  s.add_tool(
      {.name = "test_multiple_content_types",
       .description = "Returns text, an image and an embedded resource.",
       .input_schema = no_args,
       .run_inline = true},
      [](mcp::tool_context&, const object&) {
        mcp::call_tool_result r;
        r.content.push_back(mcp::text_content("Multiple content types test:"));
        r.content.push_back(png_image());
        r.content.push_back(mcp::embedded_text_resource(
            "test://mixed-content-resource", R"({"test":"data","value":123})", "application/json"));
        return r;
      });
  s.add_tool(
      {.name = "test_error_handling",
       .description = "Always fails with a tool error (isError: true).",
       .input_schema = no_args,
       .run_inline = true},
      [](mcp::tool_context&, const object&) {
        return mcp::tool_error_result("This tool intentionally returns an error for testing");
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
  const object no_args{{"type", "object"}, {"properties", object{}}};
  s.add_tool({.name = "test_tool_with_logging",
              .description = "Sends three log messages while it runs.",
              .input_schema = no_args},
             [](mcp::tool_context& ctx, const object&) {
               for (const char* m : {"Tool execution started", "Tool processing data",
                                     "Tool execution completed"}) {
                 ctx.log(mcp::log_level::info, mcp::json::value(m));
                 std::this_thread::sleep_for(50ms);
               }
               return text_result("Tool with logging executed successfully");
             });
  s.add_tool({.name = "test_tool_with_progress",
              .description = "Reports progress 0, 50, 100 of 100 while it runs.",
              .input_schema = no_args},
             [](mcp::tool_context& ctx, const object&) {
               for (const double p : {0.0, 50.0, 100.0}) {
                 ctx.progress(p, 100.0, "Completed step " + std::to_string(static_cast<int>(p)));
                 std::this_thread::sleep_for(50ms);
               }
               return text_result("Tool with progress executed successfully");
             });
  s.add_tool({.name = "test_sampling",
              .description = "Asks the client's model to answer a prompt (sampling/createMessage).",
              .input_schema = strings_schema({{"prompt", "The prompt to send to the model"}})},
             [](mcp::tool_context& ctx, const object& args) {
               object message{{"role", "user"},
                              {"content", object{{"type", "text"}, {"text", args.at("prompt")}}}};
               auto r = ctx.create_message(
                   object{{"messages", array{std::move(message)}}, {"maxTokens", 100}});
               if (!r) return mcp::tool_error_result("Sampling failed: " + r.error().message);
               std::string text = mcp::to_json_string(*r);
               if (const auto* c = r->if_contains("content"); c && c->is_object()) {
                 if (const auto* t = c->get_object().if_contains("text"); t && t->is_string()) {
                   text = std::string(t->get_string());
                 }
               }
               return text_result("LLM response: " + text);
             });
  s.add_tool(
      {.name = "test_elicitation",
       .description = "Asks the user for a username and an email (elicitation/create).",
       .input_schema = strings_schema({{"message", "The message to show the user"}})},
      [](mcp::tool_context& ctx, const object& args) {
        return elicit_and_report(
            ctx, object{{"message", args.at("message")},
                        {"requestedSchema", strings_schema({{"username", "User's response"},
                                                            {"email", "User's email address"}})}});
      });
  s.add_tool({.name = "test_elicitation_sep1034_defaults",
              .description = "Elicitation whose schema has a default for every primitive type.",
              .input_schema = no_args},
             [](mcp::tool_context& ctx, const object&) {
               auto schema = mcp::parse_json(R"({"type": "object", "properties": {
          "name": {"type": "string", "description": "User name", "default": "John Doe"},
          "age": {"type": "integer", "description": "User age", "default": 30},
          "score": {"type": "number", "description": "User score", "default": 95.5},
          "status": {"type": "string", "description": "User status",
                     "enum": ["active", "inactive", "pending"], "default": "active"},
          "verified": {"type": "boolean", "description": "Verification status", "default": true}
        }})");
               return elicit_and_report(ctx, object{{"message",
                                                     "Please review and update the form fields "
                                                     "with defaults"},
                                                    {"requestedSchema", schema->as_object()}});
             });
  s.add_tool({.name = "test_elicitation_sep1330_enums",
              .description = "Elicitation using every enum style of 2025-11-25.",
              .input_schema = no_args},
             [](mcp::tool_context& ctx, const object&) {
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
  s.add_async_tool(
      {.name = "test_url_elicitation",
       .description = "Asks the user to visit a URL (URL-mode elicitation); answers error "
                      "-32042 when the client cannot do URL mode.",
       .input_schema = no_args},
      [](mcp::tool_context& ctx, const object&, const mcp::responder& done) {
        object params{{"mode", "url"},
                      {"elicitationId", "everything-url-1"},
                      {"url", "https://example.com/authorize"},
                      {"message", "Please authorize access at example.com"}};
        const auto* el = ctx.client_capabilities().if_contains("elicitation");
        if (!el || !el->is_object() || !el->get_object().contains("url")) {
          return done.fail(mcp::url_elicitation_required(array{params}));
        }
        done.finish(elicit_and_report(ctx, std::move(params)));
      });
  s.add_tool({.name = "test_reconnection",
              .description = "Closes its SSE stream mid-call, then answers on the resumed "
                             "stream (SSE polling).",
              .input_schema = no_args},
             [](mcp::tool_context& ctx, const object&) {
               ctx.close_sse_stream();
               std::this_thread::sleep_for(100ms);
               return text_result("Reconnection test completed");
             });
  s.add_tool({.name = "test_touch_watched_resource",
              .description = "Announces a change of test://watched-resource to its subscribers.",
              .input_schema = no_args,
              .run_inline = true},
             [&s](mcp::tool_context&, const object&) {
               s.notify_resource_updated("test://watched-resource");
               return text_result("Subscribers of test://watched-resource were notified");
             });
  s.add_tool(
      {.name = "test_slow_operation",
       .description = "Runs for up to 'seconds' seconds with progress; stops when cancelled.",
       .input_schema = mcp::parse_json(R"({"type": "object", "properties": {
          "seconds": {"type": "number", "minimum": 0, "maximum": 60}}})")
                           ->as_object()},
      [](mcp::tool_context& ctx, const object& args) {
        double seconds = 5;
        if (const auto* v = args.if_contains("seconds")) seconds = v->to_number<double>();
        const auto steps = static_cast<int>(seconds * 10);
        for (int i = 0; i < steps; ++i) {
          if (ctx.cancelled()) return mcp::tool_error_result("cancelled");
          std::this_thread::sleep_for(100ms);
          ctx.progress(i + 1, steps);
        }
        return text_result("Slow operation finished");
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
