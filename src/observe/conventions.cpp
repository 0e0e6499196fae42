// The MCP semantic conventions applied to what the engine reports (mcp/observe/conventions.hpp).
#include <mcp/observe/conventions.hpp>

namespace mcp::observe {
namespace {

void add(std::vector<attribute>& out, std::string_view key, std::string_view value) {
  if (!value.empty()) out.push_back({key, std::string(value)});
}

void add_port(std::vector<attribute>& out, std::string_view key, std::uint16_t port) {
  if (port != 0) out.push_back({key, static_cast<std::int64_t>(port)});
}

}  // namespace

std::string_view transport_name(network_transport t) noexcept {
  switch (t) {
    case network_transport::pipe:
      return "pipe";
    case network_transport::tcp:
      return "tcp";
    case network_transport::quic:
      return "quic";
    case network_transport::unix_socket:
      return "unix";
    case network_transport::udp:
      return "udp";
    case network_transport::unknown:
      break;
  }
  return {};
}

std::string_view target_key(std::string_view method) noexcept {
  if (method == "tools/call") return attr::tool_name;
  if (method == "prompts/get") return attr::prompt_name;
  return {};
}

std::string span_name(const operation& op) {
  std::string name(op.method);
  if (!op.target.empty() && !target_key(op.method).empty()) {
    name += ' ';
    name += op.target;
  }
  return name;
}

std::vector<attribute> operation_attributes(const operation& op, attribute_use use,
                                            bool with_resource_uri) {
  std::vector<attribute> out;
  out.reserve(12);
  add(out, attr::method_name, op.method);
  if (const auto key = target_key(op.method); !key.empty()) add(out, key, op.target);
  if (op.method == "tools/call") add(out, attr::operation_name, "execute_tool");
  const bool span = use == attribute_use::span;
  if (span) add(out, attr::request_id, op.request_id);
  add(out, attr::protocol_version, op.protocol_version);
  if (span) add(out, attr::session_id, op.session_id);
  add(out, attr::network_transport, transport_name(op.transport));
  add(out, attr::network_protocol_name, op.network_protocol_name);
  add(out, attr::network_protocol_version, op.network_protocol_version);
  if (op.side == kind::client) {
    add(out, attr::server_address, op.peer_address);
    if (!op.peer_address.empty()) add_port(out, attr::server_port, op.peer_port);
  } else if (span) {
    add(out, attr::client_address, op.peer_address);
    if (!op.peer_address.empty()) add_port(out, attr::client_port, op.peer_port);
  }
  if (span || with_resource_uri) add(out, attr::resource_uri, op.resource_uri);
  return out;
}

std::vector<attribute> session_attributes(const session_info& info) {
  std::vector<attribute> out;
  out.reserve(6);
  add(out, attr::protocol_version, info.protocol_version);
  add(out, attr::network_transport, transport_name(info.transport));
  add(out, attr::network_protocol_name, info.network_protocol_name);
  add(out, attr::network_protocol_version, info.network_protocol_version);
  if (info.side == kind::client) {
    add(out, attr::server_address, info.peer_address);
    if (!info.peer_address.empty()) add_port(out, attr::server_port, info.peer_port);
  }
  return out;
}

bool caller_error_code(int code) noexcept {
  return code == -32700 || code == -32600 || code == -32601 || code == -32602 || code == -32002;
}

error_classification classify(kind side, const outcome& o) {
  error_classification c;
  switch (o.status) {
    case status::ok:
      break;
    case status::tool_error:
      c.error_type = "tool_error";
      c.error = true;
      break;
    case status::rpc_error:
      c.status_code = std::to_string(o.code);
      if (side == kind::client || !caller_error_code(o.code)) {
        c.error_type = c.status_code;
        c.error = true;
      }
      break;
    case status::failed:
      c.error_type = o.error_type.empty() ? "_OTHER" : std::string(o.error_type);
      c.error = true;
      break;
  }
  return c;
}

}  // namespace mcp::observe
