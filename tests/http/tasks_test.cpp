// Tasks over Streamable HTTP on 127.0.0.1: a task is bound to its HTTP session when no
// authenticator is set, and to the authenticated principal (across sessions) when one is;
// stateless anonymous callers get no tasks/list; cancel, ttl and input_required at the socket.
#include <mcp/json.hpp>
#include <mcp/pipeline.hpp>

#include <boost/json/serialize.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "http_test_util.hpp"

namespace mcp_test {
namespace {

struct answer_form {
  std::string answer;
};
MCP_FIELDS(answer_form, (answer, "The answer"))

/// The JSON-RPC answer in a response: the JSON body, or the last data event of an SSE body.
mcp::json::value answer_of(const response& r) {
  std::string text = r.body;
  if (r.header("content-type").starts_with("text/event-stream")) {
    for (const auto& e : r.events()) {
      if (!e.data.empty()) text = e.data;
    }
  }
  auto v = mcp::parse_json(text);
  return v ? *v : mcp::json::value(mcp::json::string("<not JSON: " + text + ">"));
}

std::string rpc(const std::string& id, const std::string& method, const std::string& params) {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":")" + method + R"(","params":)" + params +
         "}";
}

class HttpTasks : public http_fixture {
 protected:
  HttpTasks()
      : http_fixture(mcp::server_options{.info = {.name = "http-tasks", .version = "1"},
                                         .task_max_ttl = std::chrono::minutes(1)}) {}
  void SetUp() override {
    server_.add_tool({.name = "job",
                      .description = "a short job",
                      .task_support_mode = mcp::task_support::optional},
                     [](const text_in& in) { return "did " + in.text; });
    server_.add_tool({.name = "hold",
                      .description = "runs until it is cancelled (at most 10 s)",
                      .task_support_mode = mcp::task_support::required},
                     [this](mcp::tool_context& ctx, const text_in&) -> std::string {
                       for (int i = 0; i < 1000 && !ctx.stop_token().stop_requested(); ++i) {
                         std::this_thread::sleep_for(10ms);
                       }
                       held_stopped_ = ctx.stop_token().stop_requested();
                       return "held";
                     });
    server_.add_tool(
        {.name = "ask_task",
         .description = "asks the user, as a task",
         .task_support_mode = mcp::task_support::required},
        [](mcp::tool_context& ctx, const text_in& in) -> mcp::tool_result<std::string> {
          auto reply = ctx.elicit<answer_form>(in.text);
          if (!reply || !reply->accepted()) return mcp::tool_error{"no answer"};
          return "answer: " + reply->content->answer;
        });
  }
  std::atomic<bool> held_stopped_{false};
  using headers = std::vector<std::pair<std::string, std::string>>;
  mcp::json::value post(const std::string& body, const headers& h) {
    auto r = request(port_, "POST", body, h);
    EXPECT_EQ(r.status, 200U) << r.body;
    return answer_of(r);
  }
  std::string create(const headers& h, const std::string& tool = "job",
                     const std::string& task = "{}") {
    auto v =
        post(rpc("10", "tools/call",
                 R"({"name":")" + tool + R"(","arguments":{"text":"it"},"task":)" + task + "}"),
             h);
    const auto* created = v.as_object().if_contains("result");
    if (created == nullptr) return "<" + mcp::json::serialize(v) + ">";
    return std::string(created->at("task").at("taskId").as_string());
  }
  static headers with_token(headers h, const std::string& token) {
    h.emplace_back("Authorization", "Bearer " + token);
    return h;
  }
  std::string open_as(const std::string& token) {
    auto r = request(port_, "POST", initialize_body(), with_token(post_headers({}, ""), token));
    const auto sid = r.header("mcp-session-id");
    request(port_, "POST", R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
            with_token(post_headers(sid), token));
    return sid;
  }
};

TEST_F(HttpTasks, WithoutAnAuthenticatorATaskBelongsToItsSession) {
  start();
  const auto a = open_session(port_);
  const auto b = open_session(port_);
  const auto id = create(post_headers(a));
  ASSERT_EQ(id.size(), 32U) << id;
  const std::string by_id = R"({"taskId":")" + id + R"("})";
  auto result = post(rpc("11", "tasks/result", by_id), post_headers(a));
  EXPECT_EQ(result.at("result").at("content").at(0).at("text"), "did it") << result;
  EXPECT_EQ(result.at("result").at("_meta").at("io.modelcontextprotocol/related-task").at("taskId"),
            id.c_str());
  for (const char* m : {"tasks/get", "tasks/result", "tasks/cancel"}) {
    auto other = post(rpc("12", m, by_id), post_headers(b));
    EXPECT_EQ(other.at("error").at("code"), -32602) << m << ": " << other;
  }
  EXPECT_TRUE(post(rpc("13", "tasks/list", "{}"), post_headers(b))
                  .at("result")
                  .at("tasks")
                  .as_array()
                  .empty());
  EXPECT_EQ(post(rpc("14", "tasks/list", "{}"), post_headers(a))
                .at("result")
                .at("tasks")
                .at(0)
                .at("taskId"),
            id.c_str());
}

TEST_F(HttpTasks, TaskCallsBeyondTheConcurrencyLimitWaitAndEachSessionKeepsItsShare) {
  server_.use(mcp::concurrency_limit(4));  // one session alone runs at most 2
  // The server is the fixture's and outlives this body: what its handlers touch is shared.
  struct gate_state {
    std::atomic<bool> open{false};
    std::atomic<int> running{0};
    std::atomic<int> peak{0};
  };
  const auto st = std::make_shared<gate_state>();
  auto& open = st->open;
  auto& running = st->running;
  auto& peak = st->peak;
  server_.add_tool({.name = "gated",
                    .description = "runs until the test opens it (at most 10 s)",
                    .task_support_mode = mcp::task_support::optional},
                   [st](mcp::tool_context& ctx, const text_in&) -> std::string {
                     const int now = ++st->running;
                     for (int seen = st->peak.load();
                          now > seen && !st->peak.compare_exchange_weak(seen, now);) {
                     }
                     for (int i = 0; i < 1000 && !st->open && !ctx.cancelled(); ++i) {
                       std::this_thread::sleep_for(10ms);
                     }
                     --st->running;
                     return "passed";
                   });
  start();
  const auto a = open_session(port_);
  const auto b = open_session(port_);
  std::vector<std::string> ids;
  for (int i = 0; i < 8; ++i) {
    ids.push_back(create(post_headers(a), "gated"));
    ASSERT_EQ(ids.back().size(), 32U) << ids.back();
  }
  for (int i = 0; i < 500 && running < 2; ++i) std::this_thread::sleep_for(10ms);
  const std::string last = R"({"taskId":")" + ids.back() + R"("})";
  auto queued = post(rpc("20", "tasks/get", last), post_headers(a));
  EXPECT_EQ(queued.at("result").at("status"), "working") << queued;
  EXPECT_TRUE(queued.at("result").at("statusMessage").as_string().starts_with("Queued"));
  auto echo =
      post(rpc("21", "tools/call", R"({"name":"job","arguments":{"text":"b"}})"), post_headers(b));
  EXPECT_EQ(echo.at("result").at("content").at(0).at("text"), "did b") << echo;
  open = true;
  for (const auto& id : ids) {
    auto r = post(rpc("22", "tasks/result", R"({"taskId":")" + id + R"("})"), post_headers(a));
    EXPECT_EQ(r.at("result").at("content").at(0).at("text"), "passed") << r;
  }
  EXPECT_EQ(peak.load(), 2);
}

TEST_F(HttpTasks, WithAnAuthenticatorATaskBelongsToThePrincipalAcrossSessions) {
  start({.authenticate = [](const mcp::http_request_view& req) -> std::optional<mcp::principal> {
    const auto auth = req.header("authorization");
    if (auth == "Bearer alice") return mcp::principal{.subject = "alice"};
    if (auth == "Bearer bob") return mcp::principal{.subject = "bob"};
    return std::nullopt;
  }});
  const auto first = open_as("alice");
  const auto second = open_as("alice");
  const auto bobs = open_as("bob");
  const auto id = create(with_token(post_headers(first), "alice"));
  ASSERT_EQ(id.size(), 32U) << id;
  const std::string by_id = R"({"taskId":")" + id + R"("})";
  auto later = post(rpc("11", "tasks/result", by_id), with_token(post_headers(second), "alice"));
  EXPECT_EQ(later.at("result").at("content").at(0).at("text"), "did it") << later;
  auto bob = post(rpc("12", "tasks/get", by_id), with_token(post_headers(bobs), "bob"));
  EXPECT_EQ(bob.at("error").at("code"), -32602) << bob;
}

TEST_F(HttpTasks, StatelessWithoutAnAuthenticatorOffersNoTaskList) {
  start({.stateless = true});
  auto init = post(initialize_body(), post_headers({}, ""));
  const auto& caps = init.at("result").at("capabilities").at("tasks").as_object();
  EXPECT_TRUE(caps.contains("cancel")) << caps;
  EXPECT_FALSE(caps.contains("list")) << caps;
  const auto id = create(post_headers());
  ASSERT_EQ(id.size(), 32U) << id;
  auto list = post(rpc("13", "tasks/list", "{}"), post_headers());
  EXPECT_EQ(list.at("error").at("code"), -32601) << list;
  // The id still reaches the task: it is the capability.
  auto result = post(rpc("11", "tasks/result", R"({"taskId":")" + id + R"("})"), post_headers());
  EXPECT_EQ(result.at("result").at("content").at(0).at("text"), "did it") << result;
}

TEST_F(HttpTasks, StatelessWithAnAuthenticatorListsThePrincipalsTasks) {
  start({.stateless = true,
         .authenticate = [](const mcp::http_request_view& req) -> std::optional<mcp::principal> {
           if (req.header("authorization") == "Bearer alice")
             return mcp::principal{.subject = "alice"};
           return std::nullopt;
         }});
  const auto h = with_token(post_headers(), "alice");
  auto init = post(initialize_body(), with_token(post_headers({}, ""), "alice"));
  EXPECT_TRUE(init.at("result").at("capabilities").at("tasks").as_object().contains("list"));
  const auto id = create(h);
  auto list = post(rpc("13", "tasks/list", "{}"), h);
  EXPECT_EQ(list.at("result").at("tasks").at(0).at("taskId"), id.c_str()) << list;
}

TEST_F(HttpTasks, CancelStopsTheHandlerAndTheTaskStaysCancelled) {
  start();
  const auto sid = open_session(port_);
  const auto id = create(post_headers(sid), "hold");
  ASSERT_EQ(id.size(), 32U) << id;
  const std::string by_id = R"({"taskId":")" + id + R"("})";
  auto cancelled = post(rpc("11", "tasks/cancel", by_id), post_headers(sid));
  EXPECT_EQ(cancelled.at("result").at("status"), "cancelled") << cancelled;
  for (int i = 0; i < 500 && !held_stopped_; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(held_stopped_) << "the handler's stop token did not fire";
  std::this_thread::sleep_for(50ms);  // the handler has returned "held" by now
  auto got = post(rpc("12", "tasks/get", by_id), post_headers(sid));
  EXPECT_EQ(got.at("result").at("status"), "cancelled") << got;
  auto again = post(rpc("13", "tasks/cancel", by_id), post_headers(sid));
  EXPECT_EQ(again.at("error").at("code"), -32602) << again;
  auto result = post(rpc("14", "tasks/result", by_id), post_headers(sid));
  EXPECT_EQ(result.at("error").at("code"), -32602) << result;
}

TEST_F(HttpTasks, TheTtlIsCappedAndCountedFromCreation) {
  start();
  const auto sid = open_session(port_);
  auto capped = post(rpc("10", "tools/call",
                         R"({"name":"job","arguments":{"text":"it"},"task":{"ttl":86400000}})"),
                     post_headers(sid));
  EXPECT_EQ(capped.at("result").at("task").at("ttl"), 60000) << capped;
  const auto id = create(post_headers(sid), "job", R"({"ttl":1000})");  // room for tasks/result
  ASSERT_EQ(id.size(), 32U) << id;
  const std::string by_id = R"({"taskId":")" + id + R"("})";
  auto done = post(rpc("11", "tasks/result", by_id), post_headers(sid));
  EXPECT_EQ(done.at("result").at("content").at(0).at("text"), "did it") << done;
  std::this_thread::sleep_for(1500ms);
  auto expired = post(rpc("12", "tasks/get", by_id), post_headers(sid));
  EXPECT_EQ(expired.at("error").at("code"), -32602) << expired;
}

TEST_F(HttpTasks, AnElicitationFromATaskTravelsOnTasksResultAndItsAnswerResumesIt) {
  start();
  const std::string init =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
      R"("capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"t","version":"1"}}})";
  auto r = request(port_, "POST", init, post_headers({}, ""));
  const auto sid = r.header("mcp-session-id");
  request(port_, "POST", R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
          post_headers(sid));
  const auto id = create(post_headers(sid), "ask_task");
  ASSERT_EQ(id.size(), 32U) << id;
  const std::string by_id = R"({"taskId":")" + id + R"("})";

  raw_client waiting(port_);
  waiting.send_raw(
      make_request("POST", port_, rpc("11", "tasks/result", by_id), post_headers(sid)));
  response stream;
  ASSERT_TRUE(waiting.read_until(stream, [](const std::string& b) {
    return b.find("elicitation/create") != std::string::npos;
  })) << stream.body;
  mcp::json::value ask;
  for (const auto& e : stream.events()) {
    if (e.data.find("elicitation/create") != std::string::npos) ask = *mcp::parse_json(e.data);
  }
  ASSERT_TRUE(ask.is_object()) << stream.body;
  EXPECT_EQ(ask.at("params").at("_meta").at("io.modelcontextprotocol/related-task").at("taskId"),
            id.c_str())
      << ask;
  auto status = post(rpc("12", "tasks/get", by_id), post_headers(sid));
  EXPECT_EQ(status.at("result").at("status"), "input_required") << status;

  const std::string answer = R"({"jsonrpc":"2.0","id":)" + mcp::json::serialize(ask.at("id")) +
                             R"(,"result":{"action":"accept","content":{"answer":"yes"}}})";
  EXPECT_EQ(request(port_, "POST", answer, post_headers(sid)).status, 202U);
  ASSERT_TRUE(waiting.read_until(stream, [](const std::string& b) {
    return b.find("answer: yes") != std::string::npos;
  })) << stream.body;
  EXPECT_EQ(answer_of(stream).at("result").at("content").at(0).at("text"), "answer: yes")
      << stream.body;
  auto after = post(rpc("13", "tasks/get", by_id), post_headers(sid));
  EXPECT_EQ(after.at("result").at("status"), "completed") << after;
}

}  // namespace
}  // namespace mcp_test
