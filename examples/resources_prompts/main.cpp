// Resources, a resource template and a prompt: what a server offers besides tools.
// A resource has a fixed URI; a template (RFC 6570) matches a family of URIs and its handler
// gets the URI's variables as a struct; a prompt's arguments are a struct too (std::optional
// members are optional arguments). Template variables and prompt arguments can be completed.
//
//   mcp-cpp resources list -- build/ci/examples/resources_prompts
//   mcp-cpp resources read notes://2 -- build/ci/examples/resources_prompts
//   mcp-cpp prompts get summarize_note id=1 -- build/ci/examples/resources_prompts
#include <mcp/server.hpp>

#include <map>
#include <optional>
#include <string>

const std::map<std::string, std::string> notes = {{"1", "Buy milk"}, {"2", "Call Ada at 10"}};

struct note_vars {
  std::string id;
};
MCP_FIELDS(note_vars, (id))

struct summarize_args {
  std::string id;
  std::optional<std::string> style;
};
MCP_FIELDS(summarize_args, (id, "Which note"), (style, "e.g. terse, friendly"))

int main() {
  mcp::server server({.info = {.name = "notes", .version = "1.0.0"}});
  server.add_resource({.uri = "notes://index", .name = "index", .mime_type = "text/plain"},
                      [] { return std::to_string(notes.size()) + " notes: 1, 2"; });
  server.add_resource_template(
      {.uri_template = "notes://{id}",
       .name = "note",
       .mime_type = "text/plain",
       .complete =
           [](const mcp::completion_request&) {
             return mcp::completion_result{.values = {"1", "2"}};
           }},
      [](const note_vars& v, const mcp::resource_request& r) -> mcp::result<std::string> {
        const auto it = notes.find(v.id);
        if (it == notes.end()) return mcp::resource_not_found(r.uri);  // -32002
        return it->second;
      });
  server.add_prompt({.name = "summarize_note", .description = "Ask for a summary of a note"},
                    [](const summarize_args& a) -> mcp::result<std::string> {
                      const auto it = notes.find(a.id);
                      if (it == notes.end())
                        return mcp::error{mcp::errc::invalid_params, "no note " + a.id};
                      return "Summarize this note (" + a.style.value_or("terse") +
                             "): " + it->second;
                    });
  return server.serve_stdio();
}
