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
#include <cstdio>
#include <string>

#include "../serve_main.hpp"
#include "fixtures.hpp"

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
  mcp::server server(everything::options(page_size));
  everything::add_fixtures(server);
  return examples::serve(server, http, mcp::http_server_options{.io_threads = 2},
                         "everything_server");
}
