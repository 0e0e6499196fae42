// What the 2026-07-28 revision adds to parsing, fed arbitrary bytes. The first byte chooses:
//   0  lines to a stateless 2026-07-28 session (as Streamable HTTP opens one per request)
//   1  a request of a fixed method (byte 2 chooses it) whose `_meta` is the rest of the input,
//      to a stateless session or to a session that has had no initialize (its twin serves it)
//   2  Mcp-* header values: decode_header_value on the rest, the base64 form of the rest decoded
//      back to it, check_param_headers against arguments and headers taken from the rest, the
//      x-mcp-header annotations of a schema taken from the rest
//   3  requestState: round_sealer::open of the rest, and of a genuine state altered by the rest
//      (only the genuine state itself may open)
#include <mcp/content.hpp>
#include <mcp/json.hpp>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

#include "detail/ascii.hpp"
#include "detail/round_state.hpp"
#include "fuzz_support.hpp"
#include "param_headers.hpp"

namespace {

struct name_in {
  std::string name;
};
MCP_FIELDS(name_in, (name))
struct text_in {
  std::string text;
};
MCP_FIELDS(text_in, (text, {.max_length = 1000}))

constexpr std::string_view version = "2026-07-28";

struct fixture {
  std::shared_ptr<mcp_fuzz::queue_executor> exec = std::make_shared<mcp_fuzz::queue_executor>();
  std::unique_ptr<mcp::server> server = make();
  mcp::input_round_options round_opts{.key = std::string(32, 'k')};
  mcp::detail::round_sealer sealer{round_opts};
  mcp::detail::round_sealer single_use{mcp::input_round_options{
      .key = std::string(32, 'k'), .expiry = std::chrono::minutes(1), .single_use = true}};
  std::string genuine = sealer.seal(mcp::detail::round_contents{.principal = "p",
                                                                .method = "tools/call",
                                                                .digest = "d",
                                                                .answers = {},
                                                                .asked = {"a"},
                                                                .saved = {},
                                                                .nonce = {}});
  std::vector<mcp::detail::param_header> params{
      {.property = "region", .header = "Region", .type = mcp::detail::param_header::kind::string},
      {.property = "priority",
       .header = "Priority",
       .type = mcp::detail::param_header::kind::integer},
      {.property = "urgent", .header = "Urgent", .type = mcp::detail::param_header::kind::boolean}};

  std::unique_ptr<mcp::server> make() {
    auto s = mcp_fuzz::make_server(exec);
    // A tool that asks (an input round in this revision: never a request to the client).
    s->add_tool({.name = "ask", .description = "Asks a name"},
                [](mcp::tool_context& ctx, const text_in& in) -> mcp::result<std::string> {
                  auto who = ctx.elicit<name_in>("Name?", {.key = "who"});
                  if (!who) return who.error();
                  if (!who->accepted()) return mcp::tool_error{"declined"};
                  return in.text + who->content->name;
                });
    return s;
  }
};

fixture& the_fixture() {
  static fixture f;
  return f;
}

void feed(fixture& f, bool stateless, const std::vector<std::string_view>& lines) {
  auto conn = std::make_shared<mcp_fuzz::sink_connection>();
  auto session = stateless
                     ? f.server->open_session(conn, {.assume_initialized = std::string(version)})
                     : f.server->open_session(conn);
  for (const auto line : lines) {
    session->receive(line);
    f.exec->drain();
  }
  session->close();
  f.exec->drain();
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    const auto at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return out;
}

// Requests whose `_meta` is spliced in: the params before it, without braces.
constexpr std::array<std::pair<std::string_view, std::string_view>, 9> templates{{
    {"tools/call", R"("name":"echo","arguments":{"text":"hi"},)"},
    {"tools/call", R"("name":"ask","arguments":{"text":"hi"},)"},
    {"tools/call",
     R"("name":"ask","arguments":{"text":"hi"},"inputResponses":{"who":{"action":"accept","content":{"name":"A"}}},"requestState":"mrtr1.AAAA",)"},
    {"tools/list", ""},
    {"server/discover", ""},
    {"prompts/get", R"("name":"greet","arguments":{"who":"x"},)"},
    {"resources/read", R"("uri":"test://a",)"},
    {"subscriptions/listen", R"("notifications":{"toolsListChanged":true},)"},
    {"completion/complete",
     R"("ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":""},)"},
}};

void meta_request(fixture& f, std::uint8_t choice, std::string_view meta) {
  const auto& [method, params] = templates[choice % templates.size()];
  std::string line = R"({"jsonrpc":"2.0","id":1,"method":")";
  line += method;
  line += R"(","params":{)";
  line += params;
  line += R"("_meta":)";
  line += meta;
  line += "}}";
  feed(f, (choice & 0x80U) == 0, {line});
}

void headers(fixture& f, std::string_view rest) {
  // Any value decodes or is refused; what it decodes to holds no control character unless it
  // came in base64; the base64 form of any bytes decodes back to them. The in-place comparison
  // agrees with decoding: a value is what it decodes to, and a refused one is nothing.
  const auto v = mcp::detail::decode_header_value(rest);
  if (v && !rest.starts_with("=?base64?")) {
    for (const char c : *v) {
      if (static_cast<unsigned char>(c) < 0x20) std::abort();
    }
  }
  if (v && !mcp::detail::header_value_is(rest, *v)) std::abort();
  if (!v && (mcp::detail::header_value_is(rest, rest) || mcp::detail::header_value_is(rest, ""))) {
    std::abort();
  }
  const std::string encoded = "=?base64?" + mcp::base64_encode(rest) + "?=";
  const auto back = mcp::detail::decode_header_value(encoded);
  if (!back || *back != rest) std::abort();
  if (!mcp::detail::header_value_is(encoded, rest)) std::abort();

  // Line 1: arguments (JSON); the other lines: "Name:value" headers.
  const auto lines = split(rest, '\n');
  if (lines.empty()) return;
  auto args = mcp::parse_json(lines.front());
  if (!args || !args->is_object()) return;
  auto header = [&](std::string_view name) -> std::optional<std::string_view> {
    for (std::size_t i = 1; i < lines.size(); ++i) {
      const auto colon = lines[i].find(':');
      if (colon == std::string_view::npos) continue;
      if (mcp::detail::iequals(lines[i].substr(0, colon), name)) return lines[i].substr(colon + 1);
    }
    return std::nullopt;
  };
  if (auto e = mcp::detail::check_param_headers(f.params, args->get_object(), header)) {
    if (e->code != static_cast<int>(mcp::errc::header_mismatch)) std::abort();
  }
  // The same line as a schema: annotations that are no header names are a registration error.
  try {
    (void)mcp::detail::param_headers_of(args->get_object(), "fuzz");
  } catch (const std::invalid_argument&) {
  }
}

void request_state(fixture& f, std::string_view rest) {
  auto opened = f.sealer.open(rest, "p", "tools/call", "d");
  if (opened && rest != f.genuine) std::abort();  // no other text opens
  (void)f.single_use.open(rest, "p", "tools/call", "d");
  // The genuine state with the input XORed into it: the encoding and the cipher must refuse it.
  std::string altered = f.genuine;
  bool changed = false;
  for (std::size_t i = 0; i < rest.size() && i < altered.size(); ++i) {
    altered[i] = static_cast<char>(altered[i] ^ rest[i]);
    changed = changed || rest[i] != 0;
  }
  if (altered.size() < rest.size()) {
    altered += rest.substr(altered.size());
    changed = true;
  }
  auto again = f.sealer.open(altered, "p", "tools/call", "d");
  if (again && changed && altered != f.genuine) std::abort();
  if (again && again->asked.count("a") != 1) std::abort();
  // Single use: a state opens at most once (the sealer remembers what it saw, within its bound;
  // when that is full of live records, it refuses even the first use).
  if (!rest.empty() && rest.front() == 's') {
    const auto once = f.single_use.seal(mcp::detail::round_contents{.principal = "p",
                                                                    .method = "tools/call",
                                                                    .digest = "d",
                                                                    .answers = {},
                                                                    .asked = {},
                                                                    .saved = {},
                                                                    .nonce = {}});
    (void)f.single_use.open(once, "p", "tools/call", "d");
    if (f.single_use.open(once, "p", "tools/call", "d")) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2 || size > 65536) return 0;
  auto& f = the_fixture();
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4U) {
    case 0:
      feed(f, true, split(rest, '\n'));
      break;
    case 1:
      meta_request(f, data[1], rest.substr(1));
      break;
    case 2:
      headers(f, rest);
      break;
    default:
      request_state(f, rest);
      break;
  }
  return 0;
}
