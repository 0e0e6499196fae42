// The mcp-cpp demo tools server: one tool for each feature of the SDK.
//
//   demo_server                      serve MCP over stdio (what MCP client configurations launch)
//   demo_server --http 127.0.0.1:8080  serve Streamable HTTP (port 0: any; the URL is printed on
//                                      stderr); --stateless: no sessions; --io-threads N
//   demo_server --no-rate-limit      no per-caller rate limit (for benchmarks)
//   demo_server --page-size 2        tools/list pages of 2 tools (to see pagination)
//   demo_server --task-store FILE    tasks in this SQLite file (default: mcp-cpp-demo/tasks.db in
//                                      $XDG_STATE_HOME or ~/.local/state; :memory: for none)
//   demo_server --task-store redis://HOST:PORT[/PREFIX] [--task-lease-ms N]
//                                    tasks in Redis, queued for every demo process sharing it
//                                    (see redis_tasks.hpp)
//   demo_server --http … --jwks FILE|URL --issuer ISS --audience AUD [--scope S]…
//                                    an OAuth 2.1 protected resource: JWT bearer tokens from ISS,
//                                    for AUD (this server's URI), signed by those keys; each
//                                    --scope is required of every request (unlock_admin also
//                                    needs demo.admin)
//   demo_server --policy FILE        a tool policy (mcp/policy.hpp), reloaded when the file changes
//   demo_server --audit FILE         one JSON line per tool call (mcp/audit.hpp)
//   demo_server --http … --tls-cert CERT.pem KEY.pem   serve HTTPS
//   demo_server --metrics 127.0.0.1:9464   Prometheus metrics at http://127.0.0.1:9464/metrics
//   demo_server --otlp http://127.0.0.1:4318   spans and metrics to an OpenTelemetry collector
//   demo_server --http … --redis redis://127.0.0.1:6379   one service of many processes: tasks,
//                                    sessions, SSE events, the input-round key and rate limits
//                                    in this Redis (scripts/cluster.sh N starts such a cluster)
//
// Tools: echo (the benchmark tool), forecast (typed, structured output), make_image,
// make_audio, embedded_resource, related_links, slow_count (progress and cancellation),
// fail (a tool error), unlock_admin (enables the hidden admin.stats tool at runtime), ask_name
// (elicitation) and summarize (sampling), which ask the client in both protocol eras (a request
// to a 2025-11-25 client, an input_required round with a 2026-07-28 one); tasks: slow_task (run
// again if a restart cut it off), must_task (task only), failing_task, elicit_task
// (input_required); sharing Redis, slow_stop_task (a slow stop callback) and, with
// --task-store redis://…, slow_task_once.
#include <mcp/audit.hpp>
#include <mcp/auth.hpp>
#include <mcp/http_server.hpp>
#include <mcp/policy.hpp>
#include <mcp/server.hpp>
#include <mcp/task_store.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#ifdef MCP_DEMO_REDIS
#include <mcp/redis.hpp>
#endif

#include "media_fixtures.hpp"
#include "observe_main.hpp"
#include "redis_tasks.hpp"
#include "serve_main.hpp"
#include <malloc.h>

namespace demo {

struct echo_in {
  std::string text;
};
MCP_FIELDS(echo_in, (text, "Text to send back"))

enum class units { metric, imperial };
BOOST_DESCRIBE_ENUM(units, metric, imperial)

struct forecast_in {
  std::string city;
  int days = 3;
  units unit = units::metric;
};
MCP_FIELDS(forecast_in, (city, {.description = "City name, e.g. Oslo", .min_length = 1}),
           (days, {.description = "Days ahead", .defaulted = true, .minimum = 1, .maximum = 16}),
           (unit, {.description = "Unit system", .defaulted = true}))

struct day_forecast {
  int day;
  double high;
  double low;
  std::string summary;
};
MCP_FIELDS(day_forecast, (day), (high), (low), (summary))

struct forecast_out {
  std::string city;
  std::string unit;
  std::vector<day_forecast> days;
};
MCP_FIELDS(forecast_out, (city), (unit), (days))

struct slow_in {
  int steps = 5;
  int step_ms = 100;
};
MCP_FIELDS(
    slow_in,
    (steps, {.description = "Number of steps", .defaulted = true, .minimum = 1, .maximum = 100}),
    (step_ms,
     {.description = "Milliseconds per step", .defaulted = true, .minimum = 1, .maximum = 10000}))

struct slow_out {
  int completed;
};
MCP_FIELDS(slow_out, (completed))

struct fail_in {
  std::string reason;
};
MCP_FIELDS(fail_in, (reason, "Why the tool should fail"))

using examples::bytes_of;
using examples::png_base64;
using examples::tiny_wav;

struct task_in {
  int steps = 1;
  int step_ms = 0;
};
MCP_FIELDS(
    task_in,
    (steps, {.description = "Number of steps", .defaulted = true, .minimum = 0, .maximum = 100000}),
    (step_ms,
     {.description = "Milliseconds per step", .defaulted = true, .minimum = 0, .maximum = 60000}))

struct answer_form {
  std::string answer;
};
MCP_FIELDS(answer_form, (answer, "Your answer"))

struct name_form {
  std::string name;
};
MCP_FIELDS(name_form, (name, "Your name"))

struct summarize_in {
  std::string text;
};
MCP_FIELDS(summarize_in, (text, {.description = "Text to summarize", .min_length = 1}))

struct message_in {
  std::string message = "What is your answer?";
};
MCP_FIELDS(message_in, (message, {.description = "What to ask the user", .defaulted = true}))

struct reason_in {
  std::string reason = "asked to fail";
};
MCP_FIELDS(reason_in, (reason, {.description = "Why the task should fail", .defaulted = true}))

/// With tasks queued in Redis: slow_task's twin that is not run again when the process running
/// it is lost (its task is failed instead).
void add_once_task(mcp::server& server) {
  server.add_tool({.name = "slow_task_once",
                   .description = "Like slow_task, but never run twice: failed if the process "
                                  "running it is lost.",
                   .annotations = {.read_only_hint = true},
                   .task_support_mode = mcp::task_support::optional},
                  [](mcp::tool_context& ctx, const task_in& in) -> mcp::tool_result<std::string> {
                    for (int i = 0; i < in.steps && !ctx.cancelled(); ++i) {
                      std::this_thread::sleep_for(std::chrono::milliseconds(in.step_ms));
                    }
                    if (ctx.cancelled()) return mcp::tool_error{"cancelled"};
                    return "done " + std::to_string(in.steps);
                  });
}

/// Tools that run as tasks (MCP 2025-11-25): call them with `params.task`.
void add_task_tools(mcp::server& server) {
  server.add_tool({.name = "slow_task",
                   .description = "Sleeps steps x step_ms ms (cancellable), then returns "
                                  "\"done <steps>\". Runs as a task or as a plain call.",
                   .annotations = {.read_only_hint = true},
                   .task_support_mode = mcp::task_support::optional,
                   // Sleeping twice does no harm: a task cut off by a restart runs again.
                   .rerun_after_restart = true},
                  [](mcp::tool_context& ctx, const task_in& in) -> mcp::tool_result<std::string> {
                    for (int i = 0; i < in.steps; ++i) {
                      if (ctx.cancelled()) return mcp::tool_error{"cancelled"};
                      std::this_thread::sleep_for(std::chrono::milliseconds(in.step_ms));
                      ctx.progress(i + 1, in.steps);
                    }
                    return "done " + std::to_string(in.steps);
                  });
  server.add_tool({.name = "must_task",
                   .description = "Echoes the text; only as a task (taskSupport required).",
                   .annotations = {.read_only_hint = true},
                   .task_support_mode = mcp::task_support::required},
                  [](const echo_in& in) { return in.text; });
  server.add_tool({.name = "failing_task",
                   .description = "Fails with a tool error, so its task ends failed.",
                   .annotations = {.read_only_hint = true},
                   .task_support_mode = mcp::task_support::optional},
                  [](const reason_in& in) -> mcp::tool_result<std::string> {
                    return mcp::tool_error{"failing_task failed: " + in.reason};
                  });
  server.add_tool(
      {.name = "elicit_task",
       .description = "Asks the user for an answer (the task is input_required meanwhile) and "
                      "returns \"answer: <answer>\". Only as a task.",
       .annotations = {.read_only_hint = true},
       .task_support_mode = mcp::task_support::required},
      [](mcp::tool_context& ctx, const message_in& in) -> mcp::tool_result<std::string> {
        auto reply = ctx.elicit<answer_form>(in.message);
        if (!reply) return mcp::tool_error{"no answer: " + reply.error().message};
        if (!reply->accepted()) return mcp::tool_error{"the user declined to answer"};
        return "answer: " + reply->content->answer;
      });
}

void add_tools(mcp::server& server) {
  server.add_tool({.name = "echo",
                   .title = "Echo",
                   .description = "Returns the text it is given.",
                   .annotations = {.read_only_hint = true, .open_world_hint = false},
                   .run_inline = true},
                  [](const echo_in& in) -> std::string { return in.text; });

  server.add_tool({.name = "forecast",
                   .title = "Weather forecast",
                   .description = "Daily forecast for a city (invented data, structured output).",
                   .annotations = {.read_only_hint = true, .open_world_hint = true}},
                  [](const forecast_in& in) {  // days is 1-16 here: the inputSchema was enforced
                    const bool imperial = in.unit == units::imperial;
                    forecast_out out{
                        .city = in.city, .unit = imperial ? "fahrenheit" : "celsius", .days = {}};
                    for (int d = 1; d <= in.days; ++d) {
                      const double high = 18.0 + d * 0.5;
                      const double low = 9.0 + d * 0.25;
                      out.days.push_back({.day = d,
                                          .high = imperial ? high * 9 / 5 + 32 : high,
                                          .low = imperial ? low * 9 / 5 + 32 : low,
                                          .summary = d % 2 == 1 ? "sunny" : "cloudy"});
                    }
                    return out;
                  });

  server.add_tool({.name = "make_image",
                   .description = "Returns a 1x1 PNG image.",
                   .annotations = {.read_only_hint = true}},
                  [] {
                    mcp::call_tool_result r;
                    const auto png = mcp::base64_decode(png_base64).value_or("");
                    r.content.push_back(mcp::image_content(bytes_of(png), "image/png"));
                    return r;
                  });

  server.add_tool({.name = "make_audio",
                   .description = "Returns a short WAV of silence.",
                   .annotations = {.read_only_hint = true}},
                  [] {
                    mcp::call_tool_result r;
                    r.content.push_back(mcp::audio_content(bytes_of(tiny_wav()), "audio/wav"));
                    return r;
                  });

  server.add_tool({.name = "embedded_resource",
                   .description = "Returns an embedded text resource and an embedded binary one.",
                   .annotations = {.read_only_hint = true}},
                  [] {
                    mcp::call_tool_result r;
                    r.content.push_back(mcp::embedded_text_resource(
                        "demo://notes/readme", "Notes embedded in a tool result.", "text/plain",
                        {.audience = {{"user", "assistant"}},
                         .priority = 0.8,
                         .last_modified = "2025-11-25T00:00:00Z"}));
                    const auto png = mcp::base64_decode(png_base64).value_or("");
                    r.content.push_back(mcp::embedded_blob_resource("demo://images/pixel.png",
                                                                    bytes_of(png), "image/png"));
                    return r;
                  });

  server.add_tool(
      {.name = "related_links",
       .description = "Returns links to resources the client may fetch.",
       .annotations = {.read_only_hint = true}},
      [] {
        mcp::call_tool_result r;
        r.content.push_back(mcp::text_content("Two related documents:"));
        r.content.push_back(mcp::resource_link_content({.uri = "demo://docs/guide",
                                                        .name = "guide",
                                                        .title = "User guide",
                                                        .mime_type = "text/markdown",
                                                        .size = 1024},
                                                       {.audience = {{"assistant"}}}));
        r.content.push_back(mcp::resource_link_content({.uri = "demo://docs/faq", .name = "faq"}));
        return r;
      });

  server.add_tool({.name = "slow_count",
                   .title = "Slow counter",
                   .description = "Counts slowly, reporting progress; stops early when cancelled.",
                   .annotations = {.read_only_hint = true, .idempotent_hint = true}},
                  [](mcp::tool_context& ctx, const slow_in& in) -> mcp::tool_result<slow_out> {
                    int done = 0;
                    for (; done < in.steps; ++done) {
                      if (ctx.cancelled()) return mcp::tool_error{"cancelled"};
                      std::this_thread::sleep_for(std::chrono::milliseconds(in.step_ms));
                      ctx.progress(done + 1, in.steps, "step " + std::to_string(done + 1));
                    }
                    ctx.log(mcp::log_level::info, mcp::json::value("slow_count finished"), "demo");
                    return slow_out{done};
                  });

  server.add_tool({.name = "fail",
                   .description = "Always fails with a tool error (isError: true).",
                   .annotations = {.read_only_hint = true}},
                  [](const fail_in& in) -> mcp::tool_result<std::string> {
                    return mcp::tool_error{"fail was asked to fail: " + in.reason};
                  });

  server.add_tool({.name = "admin.stats",
                   .description = "Server statistics (hidden until unlock_admin is called).",
                   .annotations = {.read_only_hint = true}},
                  [&server]() -> std::string {
                    return std::to_string(server.tool_names().size()) + " tools registered";
                  });
  server.set_tool_enabled("admin.stats", false);

  server.add_tool({.name = "unlock_admin",
                   .description = "Enables the admin.stats tool (sends tools/list_changed).",
                   .annotations = {.read_only_hint = false, .idempotent_hint = true},
                   .scopes = {"demo.admin"}},
                  [&server]() -> std::string {
                    server.set_tool_enabled("admin.stats", true);
                    return "admin.stats is now enabled";
                  });
}

/// Tools that ask the client: the same handler serves both eras (mcp/context.hpp).
void add_asking_tools(mcp::server& server) {
  server.add_tool({.name = "ask_name",
                   .title = "Ask the user's name",
                   .description = "Asks the user for their name (elicitation) and returns "
                                  "\"Hello, <name>!\".",
                   .annotations = {.read_only_hint = true, .open_world_hint = false}},
                  [](mcp::tool_context& ctx) -> mcp::result<std::string> {
                    auto reply = ctx.elicit<name_form>("What is your name?", {.key = "name"});
                    if (!reply) return reply.error();  // 2026-07-28: the client answers first
                    if (!reply->accepted()) return mcp::tool_error{"the user did not answer"};
                    return "Hello, " + reply->content->name + "!";
                  });
  server.add_tool({.name = "summarize",
                   .title = "Summarize",
                   .description = "Asks the client's model (sampling) for a one-line summary of "
                                  "the text and returns \"Summary: <its answer>\".",
                   .annotations = {.read_only_hint = true, .open_world_hint = true}},
                  [](mcp::tool_context& ctx, const summarize_in& in) -> mcp::result<std::string> {
                    auto answer = ctx.sample("Summarize in one line:\n" + in.text,
                                             {.system_prompt = "You write one-line summaries.",
                                              .max_tokens = 200,
                                              .key = "summary"});
                    if (!answer) return answer.error();
                    return "Summary: " + *answer;
                  });
}

/// The task store `path` names: ":memory:", a SQLite file, or (empty) the default file in the
/// user's state directory. Null (after saying why on stderr) when it cannot be opened.
std::shared_ptr<mcp::task_store> open_task_store(std::string path) {
  if (path == ":memory:") return mcp::make_memory_task_store();
  const bool by_default = path.empty();
  if (by_default) {
    const char* state = std::getenv("XDG_STATE_HOME");
    const char* home = std::getenv("HOME");
    std::filesystem::path dir = state != nullptr && *state != '\0' ? std::filesystem::path(state)
                                : home != nullptr ? std::filesystem::path(home) / ".local/state"
                                                  : std::filesystem::temp_directory_path();
    dir /= "mcp-cpp-demo";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    path = (dir / "tasks.db").string();
  }
  auto opened = mcp::make_sqlite_task_store(path);
  if (!opened && by_default) {
    std::fprintf(stderr, "demo_server: %s; tasks stay in memory\n", opened.error().message.c_str());
    return mcp::make_memory_task_store();
  }
  if (!opened) {
    std::fprintf(stderr, "demo_server: %s\n", opened.error().message.c_str());
    return nullptr;
  }
  std::fprintf(stderr, "demo_server: tasks in %s\n", path.c_str());
  return std::move(*opened);
}

}  // namespace demo

int main(int argc, char** argv) {
  // A server that accepts multi-megabyte requests should give their memory back: with a fixed
  // mmap threshold, glibc serves every block of 1 MiB or more with its own mapping and unmaps it
  // when freed (by default the threshold rises to the largest block freed so far, after which
  // such blocks come from the heap and stay in the process's RSS).
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  std::size_t page_size = 100;
  std::string http;
  std::string task_store;  // SQLite file, ":memory:", redis://…, or empty: the default file
  std::chrono::milliseconds task_lease{10000};  // with redis://…
  constexpr std::size_t concurrency = 64;       // calls at once (and queued tasks, with Redis)
  mcp::http_server_options http_opts{.io_threads = 2};
  bool rate_limited = true;
  mcp::auth::jwt_options jwt;
  std::vector<std::string> required_scopes;
  std::string policy_file;
  std::string audit_file;
  std::string metrics_listen;
  std::string otlp_url;
  std::string redis_url;
  double rate_per_second = 1000;
  std::size_t handler_threads = 0;  // 0: the default pool (4, up to 64 while all are busy)
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--page-size" && i + 1 < argc) {
      page_size = std::stoul(argv[++i]);
    } else if (a == "--http" && i + 1 < argc) {
      http = argv[++i];
    } else if (a == "--stateless") {
      http_opts.stateless = true;
    } else if (a == "--io-threads" && i + 1 < argc) {
      http_opts.io_threads = std::stoul(argv[++i]);
    } else if (a == "--handler-threads" && i + 1 < argc) {
      handler_threads = std::stoul(argv[++i]);
    } else if (a == "--no-rate-limit") {
      rate_limited = false;
    } else if (a == "--rate-limit" && i + 1 < argc) {
      rate_per_second = std::stod(argv[++i]);
    } else if (a == "--redis" && i + 1 < argc) {
      redis_url = argv[++i];
    } else if (a == "--header-timeout-ms" && i + 1 < argc) {
      http_opts.header_timeout = std::chrono::milliseconds(std::stoul(argv[++i]));
    } else if (a == "--body-timeout-ms" && i + 1 < argc) {
      http_opts.body_timeout = std::chrono::milliseconds(std::stoul(argv[++i]));
    } else if (a == "--keep-alive-timeout-ms" && i + 1 < argc) {
      http_opts.keep_alive_timeout = std::chrono::milliseconds(std::stoul(argv[++i]));
    } else if (a == "--task-store" && i + 1 < argc) {
      task_store = argv[++i];
    } else if (a == "--task-lease-ms" && i + 1 < argc) {
      task_lease = std::chrono::milliseconds(std::stoul(argv[++i]));
    } else if (a == "--jwks" && i + 1 < argc) {
      jwt.keys.location = argv[++i];
    } else if (a == "--issuer" && i + 1 < argc) {
      jwt.issuer = argv[++i];
    } else if (a == "--audience" && i + 1 < argc) {
      jwt.audience = argv[++i];
    } else if (a == "--scope" && i + 1 < argc) {
      required_scopes.emplace_back(argv[++i]);
    } else if (a == "--tls-cert" && i + 2 < argc) {
      http_opts.tls =
          mcp::tls_options{.certificate_chain_file = argv[i + 1], .private_key_file = argv[i + 2]};
      i += 2;
    } else if (a == "--policy" && i + 1 < argc) {
      policy_file = argv[++i];
    } else if (a == "--audit" && i + 1 < argc) {
      audit_file = argv[++i];
    } else if (a == "--metrics" && i + 1 < argc) {
      metrics_listen = argv[++i];
    } else if (a == "--otlp" && i + 1 < argc) {
      otlp_url = argv[++i];
    } else if (a == "--help" || a == "-h") {
      std::fprintf(
          stderr,
          "usage: demo_server [--http HOST:PORT [--stateless] [--io-threads N]\n"
          "                    [--header-timeout-ms N] [--body-timeout-ms N]\n"
          "                    [--keep-alive-timeout-ms N]] [--page-size N] [--no-rate-limit]\n"
          "                   [--task-store FILE|:memory:]  (default: "
          "$XDG_STATE_HOME/mcp-cpp-demo/tasks.db)\n"
          "                   [--task-store redis://HOST:PORT[/PREFIX] [--task-lease-ms N]]\n"
          "                   [--jwks FILE|URL --issuer ISS --audience AUD [--scope S]...]\n"
          "                   [--policy FILE] [--audit FILE] [--tls-cert CERT.pem KEY.pem]\n"
          "                   [--metrics HOST:PORT] [--otlp URL] [--rate-limit PER_SECOND]\n"
          "                   [--redis redis://HOST:PORT]  (tasks, sessions, events in Redis)\n"
          "                   [--handler-threads N]  (exactly N threads run handlers)\n");
      return 0;
    } else {
      std::fprintf(stderr, "demo_server: unknown argument %s (try --help)\n", argv[i]);
      return 2;
    }
  }
  if (!jwt.keys.location.empty() || !jwt.issuer.empty() || !jwt.audience.empty()) {
    if (jwt.keys.location.empty() || jwt.issuer.empty() || jwt.audience.empty() || http.empty()) {
      std::fprintf(stderr,
                   "demo_server: --jwks, --issuer and --audience go together, with --http\n");
      return 2;
    }
    try {
      const mcp::auth::jwt_verifier verifier(jwt);
      http_opts.protected_resource =
          mcp::protected_resource_options{.resource = jwt.audience,
                                          .authorization_servers = {jwt.issuer},
                                          .scopes_supported = {"demo.admin"},
                                          .required_scopes = required_scopes,
                                          .verify = verifier,
                                          .metadata = {{"resource_name", "mcp-cpp demo server"}}};
      for (const auto& s : required_scopes) {
        http_opts.protected_resource->scopes_supported.push_back(s);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "demo_server: %s\n", e.what());
      return 2;
    }
  }
  std::shared_ptr<mcp::shared_state> shared;
  if (!redis_url.empty() && !task_store.empty() && task_store.rfind("redis://", 0) != 0) {
    std::fprintf(stderr,
                 "demo_server: --redis keeps tasks in Redis: --task-store %s cannot go "
                 "with it (--task-store redis://… queues them across processes)\n",
                 task_store.c_str());
    return 2;
  }
  if (!redis_url.empty()) {
#ifdef MCP_DEMO_REDIS
    auto made = mcp::make_redis_shared_state({.url = redis_url, .key_prefix = "mcp-demo:"},
                                             {.session_ttl = http_opts.session_idle_timeout});
    if (!made) {
      std::fprintf(stderr, "demo_server: --redis %s: %s\n", redis_url.c_str(),
                   made.error().message.c_str());
      return 2;
    }
    shared = std::move(*made);
    std::fprintf(stderr, "demo_server: tasks, sessions and events in %s\n", redis_url.c_str());
#else
    std::fprintf(stderr, "demo_server: --redis: built without hiredis (libhiredis-dev)\n");
    return 2;
#endif
  }
  // Tasks: `--task-store redis://…` queues them across processes (any one runs them); with
  // --redis alone they are in the shared store (read anywhere, run where accepted).
  auto tasks = task_store.rfind("redis://", 0) == 0
                   ? demo::open_redis_tasks(task_store, concurrency, task_lease)
               : shared ? shared->tasks()
                        : demo::open_task_store(task_store);
  if (!tasks) return 2;
  examples::observation observation;
  if (!observation.start(metrics_listen, otlp_url, "mcp-cpp-demo", "demo_server")) return 2;
  mcp::server server(
      {.info = {.name = "mcp-cpp-demo",
                .version = "0.1.0",
                .title = "mcp-cpp demo server",
                .description = "Shows every tool feature of mcp-cpp."},
       .instructions = "Call echo to test the connection; forecast returns "
                       "structured data; slow_count reports progress.",
       .page_size = page_size == 0 ? 100 : page_size,
       .handler_executor = handler_threads == 0
                               ? nullptr
                               : mcp::make_thread_pool(mcp::thread_pool_options{
                                     .threads = handler_threads, .max_threads = handler_threads}),
       .task_store = std::move(tasks),
       .shared = shared,
       .observer = observation.observer()});
  if (!audit_file.empty()) {
    auto file = mcp::make_audit_file({.path = audit_file});
    if (!file) {
      std::fprintf(stderr, "demo_server: %s\n", file.error().message.c_str());
      return 2;
    }
    server.use(mcp::audit({.sink = std::move(*file)}));
  }
  if (!policy_file.empty()) {
    auto policy = mcp::make_tool_policy(
        policy_file, {.watch = true,
                      .on_change =
                          [&server] {
                            std::fprintf(stderr, "demo_server: policy reloaded\n");
                            server.notify_tools_changed();
                          },
                      .on_error =
                          [](const mcp::error& e) {
                            std::fprintf(stderr, "demo_server: policy not reloaded: %s\n",
                                         e.message.c_str());
                          }});
    if (!policy) {
      std::fprintf(stderr, "demo_server: %s\n", policy.error().message.c_str());
      return 2;
    }
    server.use(*policy);
  }
  if (rate_limited) {
    server.use(mcp::rate_limit({.per_second = rate_per_second, .burst = 2 * rate_per_second}));
  }
  server.use(mcp::concurrency_limit(concurrency));
  server.use(mcp::deadline(std::chrono::seconds(120)));
  demo::add_tools(server);
  demo::add_task_tools(server);
  if (task_store.rfind("redis://", 0) == 0) demo::add_once_task(server);
  if (shared || task_store.rfind("redis://", 0) == 0) demo::add_slow_stop_task(server);
  demo::add_asking_tools(server);
  return examples::serve(server, http, http_opts, "mcp-cpp demo server");
}
