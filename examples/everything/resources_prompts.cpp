// The everything server's resources, the resource template and the prompts (examples/everything/).
#include <mcp/server.hpp>

#include <string>
#include <thread>
#include <vector>

#include "common.hpp"

namespace everything {

using mcp::json::array;
using mcp::json::object;
using namespace std::chrono_literals;

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
