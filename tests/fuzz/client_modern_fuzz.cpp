// What a server of the 2026-07-28 revision can answer a client, fed arbitrary bytes: the
// server/discover answer (or a -32022 naming revisions, or anything else that sends the client
// back to initialize), `resultType` of every answer, input_required with its inputRequests and
// requestState (answered through the client's elicitation, sampling and roots handlers, round
// after round up to the bound), tools/list results with x-mcp-header annotations (the invalid
// ones left out over HTTP), and errors -32020, -32021, -32022 with any `data`.
//
// The input is lines. The first byte chooses: bit 0, pinned to 2026-07-28 (else automatic
// negotiation); bit 1, the connection says it is HTTP (the client then checks x-mcp-header
// annotations). Each following line answers the client's next request: it is spliced after
// `{"jsonrpc":"2.0","id":<the request's id>,` (so `"result":{...}}` or `"error":{...}}`); a line
// that starts with '!' is delivered as it is (a notification, a server request, garbage) before
// the next answer. A request the lines do not answer (or answer with something that does not
// parse) gets an error, so nothing waits for a timeout. Then the client initializes, lists the
// tools, calls one, reads a resource and gets a prompt; every outcome is fine but a crash, a
// leak, a hang or an error without a message.
#include <mcp/client.hpp>
#include <mcp/content.hpp>
#include <mcp/json.hpp>

#include <boost/json/serialize.hpp>

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"

namespace {

/// Answers each request the client sends, on the sending thread, from the fuzzer's lines.
class scripted_server final : public mcp::connection {
 public:
  std::deque<std::string> lines;
  std::weak_ptr<mcp::client_session> client;
  bool http = false;

  void send(std::string message, const mcp::send_context&) override {
    auto c = client.lock();
    if (!c) return;
    auto v = mcp::parse_json(message);
    if (!v || !v->is_object()) return;
    const auto& m = v->get_object();
    const auto* id = m.if_contains("id");
    if (id == nullptr || !m.contains("method")) return;  // a notification, or our answer
    const std::string id_text = mcp::json::serialize(*id);
    while (!lines.empty() && lines.front().starts_with('!')) {
      c->receive(std::string_view(lines.front()).substr(1));
      lines.pop_front();
    }
    if (!lines.empty()) {
      c->receive(R"({"jsonrpc":"2.0","id":)" + id_text + "," + lines.front());
      lines.pop_front();
    }
    // Ignored when the line answered the request; else it ends the wait.
    c->receive(R"({"jsonrpc":"2.0","id":)" + id_text +
               R"(,"error":{"code":-32601,"message":"not scripted"}})");
  }
  void close() override {}
  [[nodiscard]] mcp::connection_facts facts() const override {
    if (!http) return {};
    return {.network_transport = "tcp", .protocol_name = "http", .protocol_version = "1.1"};
  }
};

void expect_said(const mcp::error& e) {
  if (e.message.empty()) std::abort();  // every error says why
}

template <class T>
void check(const mcp::result<T>& r) {
  if (!r) expect_said(r.error());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || size > 65536) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto flags = static_cast<unsigned char>(text.front());
  auto server = std::make_shared<scripted_server>();
  server->http = (flags & 2U) != 0;
  for (std::size_t at = 1; at <= text.size();) {
    auto end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    server->lines.emplace_back(text.substr(at, end - at));
    at = end + 1;
  }

  auto exec = std::make_shared<mcp_fuzz::queue_executor>();
  mcp::client_options opts;
  opts.info = {.name = "fuzz", .version = "1"};
  opts.timeout = std::chrono::seconds(5);  // never reached: every request is answered at once
  opts.probe_timeout = std::chrono::seconds(5);
  opts.handler_executor = exec;
  opts.max_input_rounds = 3;
  opts.limits = mcp::json_limits{.max_size = 65536, .max_depth = 64};
  if ((flags & 1U) != 0) {
    opts.negotiate = mcp::negotiation::pinned;
    opts.protocol_version = "2026-07-28";
  } else {
    opts.negotiate = mcp::negotiation::automatic;
  }
  opts.on_elicitation = [](const mcp::elicitation_request&, std::stop_token) {
    return mcp::result<mcp::elicitation_answer>(
        mcp::elicitation_answer::accept(mcp::json::object{{"confirmed", true}}));
  };
  opts.on_sampling = [](const mcp::sampling_request&, std::stop_token) {
    return mcp::result<mcp::sampling_answer>(mcp::sampling_answer{
        .role = "assistant", .content = mcp::text_content("yes"), .model = "fuzz"});
  };
  opts.roots = std::vector<mcp::root_info>{{.uri = "file:///tmp", .name = "tmp"}};
  std::size_t warnings = 0;
  opts.on_warning = [&warnings](std::string_view w) {
    if (w.empty()) std::abort();
    ++warnings;
  };

  auto client = std::make_shared<mcp::client_session>(server, std::move(opts));
  server->client = client;
  if (auto init = client->initialize(); !init) {
    expect_said(init.error());
  } else {
    check(client->list_tools());
    exec->drain();
    check(client->call_tool("t", mcp::json::object{{"region", "x"}, {"n", 1}}));
    exec->drain();
    check(client->read_resource("file:///r"));
    check(client->get_prompt("p", mcp::json::object{{"a", "b"}}));
    exec->drain();
  }
  client->close();
  exec->drain();
  server->client.reset();
  return 0;
}
