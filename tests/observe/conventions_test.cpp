// The MCP semantic conventions as applied (mcp/observe/conventions.hpp): span names, attribute
// sets for spans and metrics, and the error classification table.
#include <mcp/observe/conventions.hpp>

#include <gtest/gtest.h>

namespace {

using namespace mcp::observe;

std::string dump(const std::vector<attribute>& attrs) {
  std::string out;
  for (const auto& a : attrs) {
    out += std::string(a.key) + "=";
    if (const auto* s = std::get_if<std::string>(&a.value)) {
      out += *s;
    } else if (const auto* i = std::get_if<std::int64_t>(&a.value)) {
      out += std::to_string(*i);
    } else {
      out += std::get<bool>(a.value) ? "true" : "false";
    }
    out += ";";
  }
  return out;
}

TEST(SpanName, IsMethodAndTargetForToolsAndPromptsOnly) {
  EXPECT_EQ(span_name({.method = "tools/call", .target = "get-weather"}), "tools/call get-weather");
  EXPECT_EQ(span_name({.method = "prompts/get", .target = "analyze-code"}),
            "prompts/get analyze-code");
  EXPECT_EQ(span_name({.method = "tools/call"}), "tools/call");
  // A resource URI is never the target by default.
  EXPECT_EQ(span_name({.method = "resources/read", .target = "x", .resource_uri = "file:///a"}),
            "resources/read");
  EXPECT_EQ(span_name({.method = "initialize"}), "initialize");
}

TEST(Attributes, ServerSpanOfAToolCall) {
  const operation op{.side = kind::server,
                     .method = "tools/call",
                     .target = "get-weather",
                     .request_id = "7",
                     .protocol_version = "2025-06-18",
                     .session_id = "191c4850af6c49e08843a3f6c80e5046",
                     .transport = network_transport::tcp,
                     .network_protocol_name = "http",
                     .network_protocol_version = "1.1",
                     .peer_address = "10.1.2.80",
                     .peer_port = 65123};
  EXPECT_EQ(dump(operation_attributes(op, attribute_use::span)),
            "mcp.method.name=tools/call;gen_ai.tool.name=get-weather;"
            "gen_ai.operation.name=execute_tool;jsonrpc.request.id=7;"
            "mcp.protocol.version=2025-06-18;mcp.session.id=191c4850af6c49e08843a3f6c80e5046;"
            "network.transport=tcp;network.protocol.name=http;network.protocol.version=1.1;"
            "client.address=10.1.2.80;client.port=65123;");
  // Metrics: no ids, no client address.
  EXPECT_EQ(dump(operation_attributes(op, attribute_use::metric)),
            "mcp.method.name=tools/call;gen_ai.tool.name=get-weather;"
            "gen_ai.operation.name=execute_tool;mcp.protocol.version=2025-06-18;"
            "network.transport=tcp;network.protocol.name=http;network.protocol.version=1.1;");
}

TEST(Attributes, ClientSideNamesTheServerAndResourceUriIsOptInOnMetrics) {
  const operation op{.side = kind::client,
                     .method = "resources/read",
                     .request_id = "3",
                     .resource_uri = "file:///a.txt",
                     .transport = network_transport::tcp,
                     .peer_address = "example.com",
                     .peer_port = 8080};
  EXPECT_EQ(dump(operation_attributes(op, attribute_use::span)),
            "mcp.method.name=resources/read;jsonrpc.request.id=3;network.transport=tcp;"
            "server.address=example.com;server.port=8080;mcp.resource.uri=file:///a.txt;");
  EXPECT_EQ(dump(operation_attributes(op, attribute_use::metric)),
            "mcp.method.name=resources/read;network.transport=tcp;server.address=example.com;"
            "server.port=8080;");
  EXPECT_EQ(dump(operation_attributes(op, attribute_use::metric, true)),
            "mcp.method.name=resources/read;network.transport=tcp;server.address=example.com;"
            "server.port=8080;mcp.resource.uri=file:///a.txt;");
}

TEST(Attributes, StdioNotificationAndPrompt) {
  EXPECT_EQ(dump(operation_attributes(
                {.method = "notifications/initialized", .transport = network_transport::pipe},
                attribute_use::span)),
            "mcp.method.name=notifications/initialized;network.transport=pipe;");
  EXPECT_EQ(
      dump(operation_attributes({.method = "prompts/get", .target = "p"}, attribute_use::metric)),
      "mcp.method.name=prompts/get;gen_ai.prompt.name=p;");
}

TEST(Attributes, Session) {
  EXPECT_EQ(dump(session_attributes({.side = kind::client,
                                     .protocol_version = "2025-11-25",
                                     .transport = network_transport::tcp,
                                     .network_protocol_name = "http",
                                     .peer_address = "127.0.0.1",
                                     .peer_port = 9})),
            "mcp.protocol.version=2025-11-25;network.transport=tcp;network.protocol.name=http;"
            "server.address=127.0.0.1;server.port=9;");
  EXPECT_EQ(dump(session_attributes(
                {.side = kind::server, .transport = network_transport::pipe, .peer_address = "x"})),
            "network.transport=pipe;");
}

TEST(Classify, TheDecisionTable) {
  auto c = classify(kind::server, {});
  EXPECT_TRUE(c.error_type.empty() && c.status_code.empty() && !c.error);
  c = classify(kind::client, {.status = status::tool_error});
  EXPECT_EQ(c.error_type, "tool_error");
  EXPECT_TRUE(c.error);
  c = classify(kind::server, {.status = status::tool_error});
  EXPECT_EQ(c.error_type, "tool_error");
  // A server error on both sides.
  for (const auto side : {kind::client, kind::server}) {
    c = classify(side, {.status = status::rpc_error, .code = -32603});
    EXPECT_EQ(c.error_type, "-32603");
    EXPECT_EQ(c.status_code, "-32603");
    EXPECT_TRUE(c.error);
    c = classify(side, {.status = status::rpc_error, .code = -32042});
    EXPECT_EQ(c.error_type, "-32042");
  }
  // The caller's mistakes: errors for the client, not for the server.
  for (const int code : {-32700, -32600, -32601, -32602, -32002}) {
    c = classify(kind::client, {.status = status::rpc_error, .code = code});
    EXPECT_EQ(c.error_type, std::to_string(code));
    EXPECT_TRUE(c.error);
    c = classify(kind::server, {.status = status::rpc_error, .code = code});
    EXPECT_TRUE(c.error_type.empty()) << code;
    EXPECT_EQ(c.status_code, std::to_string(code));
    EXPECT_FALSE(c.error);
  }
  c = classify(kind::client, {.status = status::failed, .error_type = "timeout"});
  EXPECT_EQ(c.error_type, "timeout");
  EXPECT_TRUE(c.status_code.empty());
  c = classify(kind::client, {.status = status::failed});
  EXPECT_EQ(c.error_type, "_OTHER");
}

TEST(Transport, Names) {
  EXPECT_EQ(transport_name(network_transport::pipe), "pipe");
  EXPECT_EQ(transport_name(network_transport::tcp), "tcp");
  EXPECT_EQ(transport_name(network_transport::unix_socket), "unix");
  EXPECT_TRUE(transport_name(network_transport::unknown).empty());
}

}  // namespace
