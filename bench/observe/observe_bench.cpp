// The cost of observing one operation, against an in-process tools/call round trip measured in
// the same run: the engine's test when observation is off; recording into the metrics (one and
// two threads); the span recorder feeding the OTLP exporter (its thread serializes and POSTs to a
// loopback collector in a child process that discards, so process CPU time counts the export); the
// OTLP/JSON encoding per span; one Prometheus exposition.
#include <mcp/observe/metrics.hpp>
#include <mcp/observe/otlp.hpp>
#include <mcp/observe/tracing.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>

#include <benchmark/benchmark.h>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <condition_variable>
#include <csignal>
#include <mutex>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace o = mcp::observe;

// --- the reference: an in-process tools/call of an inline echo tool ---------------------------

struct echo_in {
  std::string text;
};
BOOST_DESCRIBE_STRUCT(echo_in, (), (text))

struct harness {
  explicit harness(mcp::server& s) {
    auto [server_end, client_end] = mcp::make_memory_pair();
    client = client_end;
    session = s.open_session(server_end);
    server_end->on_receive([ss = session](std::string_view m) { ss->receive(m); });
    client_end->on_receive([this](std::string_view) {
      std::lock_guard lock(mu);
      ++received;
      cv.notify_all();
    });
    send(
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}})");
    wait_for(1);
  }
  void send(std::string m) { client->send(std::move(m), mcp::send_context{}); }
  void wait_for(std::size_t n) {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return received >= n; });
  }
  std::shared_ptr<mcp::memory_connection> client;
  std::shared_ptr<mcp::server_session> session;
  std::mutex mu;
  std::condition_variable cv;
  std::size_t received = 0;
};

void reference_tools_call_round_trip(benchmark::State& state) {
  mcp::server s;
  s.add_tool({.name = "echo", .description = "echo", .run_inline = true},
             [](const echo_in& in) -> std::string { return in.text; });
  harness h(s);
  std::size_t n = 1;
  for (auto _ : state) {
    h.send(
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello world"}}})");
    h.wait_for(++n);
  }
}
BENCHMARK(reference_tools_call_round_trip)->MeasureProcessCPUTime()->UseRealTime();

// --- what the engine does per message ---------------------------------------------------------

/// The attributes the engine has for a tools/call received over stdio.
o::operation tools_call(std::string_view id) {
  return {.side = o::kind::server,
          .method = "tools/call",
          .target = "echo",
          .request_id = id,
          .protocol_version = "2025-11-25",
          .transport = o::network_transport::pipe};
}

/// One message as the engine handles it: the test, and start and end when on.
void observe_one(o::observer* obs, std::uint64_t i) {
  o::span sp;
  if (obs != nullptr) [[unlikely]] {
    char id[24];
    const auto r = std::to_chars(id, id + sizeof id, i);
    sp = obs->on_start(tools_call({id, static_cast<std::size_t>(r.ptr - id)}));
  }
  benchmark::DoNotOptimize(sp);
  if (sp) obs->on_end(sp, {});
}

void observation_off(benchmark::State& state) {
  o::observer* obs = nullptr;
  benchmark::DoNotOptimize(obs);
  std::uint64_t i = 0;
  for (auto _ : state) observe_one(obs, ++i);
}
BENCHMARK(observation_off);

std::shared_ptr<o::metrics> shared_metrics = o::make_metrics();

void metrics_on(benchmark::State& state) {
  std::uint64_t i = 0;
  for (auto _ : state) observe_one(shared_metrics.get(), ++i);
}
BENCHMARK(metrics_on)->Threads(1)->Threads(2)->UseRealTime();

/// A loopback collector that answers every POST with 200 {} and keeps nothing. It runs in a
/// child process, so that the process CPU time measured is the exporter's alone.
class discard_collector {
 public:
  discard_collector() {
    boost::asio::io_context ioc;
    boost::asio::ip::tcp::acceptor acceptor(ioc, {boost::asio::ip::make_address("127.0.0.1"), 0});
    port_ = acceptor.local_endpoint().port();
    pid_ = ::fork();
    if (pid_ == 0) {
      serve(ioc, acceptor);
      std::_Exit(0);
    }
  }
  ~discard_collector() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  discard_collector(const discard_collector&) = delete;
  discard_collector& operator=(const discard_collector&) = delete;

  [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  static void serve(boost::asio::io_context& ioc, boost::asio::ip::tcp::acceptor& acceptor) {
    namespace http = boost::beast::http;
    for (;;) {
      boost::asio::ip::tcp::socket s(ioc);
      boost::system::error_code ec;
      acceptor.accept(s, ec);
      if (ec) continue;
      boost::beast::flat_buffer buf;
      for (;;) {  // the requests of the connection, until it closes
        http::request_parser<http::string_body> parser;
        parser.body_limit(64 << 20);
        http::read(s, buf, parser, ec);
        if (ec) break;
        http::response<http::string_body> res{http::status::ok, 11};
        res.set(http::field::content_type, "application/json");
        res.body() = "{}";
        res.keep_alive(parser.get().keep_alive());
        res.prepare_payload();
        http::write(s, res, ec);
        if (ec || !res.keep_alive()) break;
      }
    }
  }

  std::uint16_t port_ = 0;
  pid_t pid_ = -1;
};

void traces_exported_and_metrics(benchmark::State& state) {
  discard_collector collector;
  auto exporter = o::make_otlp_exporter({.endpoint = collector.url(),
                                         .max_queue = 8192,
                                         .max_batch = 512,
                                         .batch_delay = std::chrono::milliseconds(200)});
  if (!exporter) {
    state.SkipWithError(exporter.error().message.c_str());
    return;
  }
  auto obs = o::combine({o::make_tracer({.sink = (*exporter)->span_sink()}), o::make_metrics()});
  std::uint64_t i = 0;
  for (auto _ : state) {
    observe_one(obs.get(), ++i);
    // A server makes far fewer calls per second than this loop: let the exporter keep up (the
    // wait costs no CPU; its work is counted) rather than measure the cheaper dropping.
    if (i % 4096 == 0) (*exporter)->flush(std::chrono::seconds(30));
  }
  (*exporter)->flush(std::chrono::seconds(30));
  const auto st = (*exporter)->stats();
  state.counters["exported"] = static_cast<double>(st.spans_exported);
  state.counters["dropped"] = static_cast<double>(st.spans_dropped);
}
BENCHMARK(traces_exported_and_metrics)->MeasureProcessCPUTime()->UseRealTime();

/// The span recorder alone, into a sink that drops: the caller's share of tracing.
void tracer_only(benchmark::State& state) {
  auto obs = o::make_tracer(
      {.sink = [](std::unique_ptr<o::span_record> r) { benchmark::DoNotOptimize(r); }});
  std::uint64_t i = 0;
  for (auto _ : state) observe_one(obs.get(), ++i);
}
BENCHMARK(tracer_only);

/// The span recorder when sampling leaves every new trace out: the ids, nothing else.
void tracer_unsampled(benchmark::State& state) {
  auto obs = o::make_tracer(
      {.sink = [](std::unique_ptr<o::span_record> r) { benchmark::DoNotOptimize(r); },
       .root_sample_ratio = 0});
  std::uint64_t i = 0;
  for (auto _ : state) observe_one(obs.get(), ++i);
}
BENCHMARK(tracer_unsampled);

/// The caller's share with both observers: tracer (into a sink that drops) and metrics.
void tracer_and_metrics_caller_share(benchmark::State& state) {
  auto obs = o::combine(
      {o::make_tracer(
           {.sink = [](std::unique_ptr<o::span_record> r) { benchmark::DoNotOptimize(r); }}),
       o::make_metrics()});
  std::uint64_t i = 0;
  for (auto _ : state) observe_one(obs.get(), ++i);
}
BENCHMARK(tracer_and_metrics_caller_share);

/// The exporter thread's share: a batch of 512 spans encoded (argument 0: JSON, 1: protobuf)
/// and POSTed to the collector (in a child process), per span.
void export_batch_per_span(benchmark::State& state) {
  discard_collector collector;
  std::vector<o::span_record> batch;
  auto tracer = o::make_tracer(
      {.sink = [&batch](std::unique_ptr<o::span_record> r) { batch.push_back(std::move(*r)); }});
  for (std::uint64_t i = 0; i < 512; ++i) observe_one(tracer.get(), i);
  auto exporter =
      o::make_otlp_exporter({.endpoint = collector.url(),
                             .max_queue = 1024,
                             .max_batch = 512,
                             .batch_delay = std::chrono::hours(1),
                             .traces_encoding = state.range(0) == 0 ? o::otlp_encoding::json
                                                                    : o::otlp_encoding::protobuf});
  if (!exporter) {
    state.SkipWithError(exporter.error().message.c_str());
    return;
  }
  std::vector<std::unique_ptr<o::span_record>> copy;
  for (auto _ : state) {
    state.PauseTiming();
    copy.clear();
    for (const auto& r : batch) copy.push_back(std::make_unique<o::span_record>(r));
    state.ResumeTiming();
    for (auto& r : copy) (*exporter)->export_span(std::move(r));
    (*exporter)->flush(std::chrono::seconds(30));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 512);
}
BENCHMARK(export_batch_per_span)->Arg(0)->Arg(1)->MeasureProcessCPUTime()->UseRealTime();

/// Encoding a batch of 512 spans, per span (argument 0: JSON, 1: protobuf).
void otlp_encode_per_span(benchmark::State& state) {
  std::vector<o::span_record> batch;
  auto tracer = o::make_tracer(
      {.sink = [&batch](std::unique_ptr<o::span_record> r) { batch.push_back(std::move(*r)); }});
  for (std::uint64_t i = 0; i < 512; ++i) observe_one(tracer.get(), i);
  const bool protobuf = state.range(0) != 0;
  std::string body;
  for (auto _ : state) {
    body.clear();
    if (protobuf) {
      o::write_otlp_traces_protobuf(batch, {{"service.name", "bench"}}, body);
    } else {
      o::write_otlp_traces(batch, {{"service.name", "bench"}}, body);
    }
    benchmark::DoNotOptimize(body);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 512);
  state.counters["bytes_per_span"] = static_cast<double>(body.size()) / 512;
}
BENCHMARK(otlp_encode_per_span)->Arg(0)->Arg(1);

void prometheus_exposition_50_series(benchmark::State& state) {
  auto m = o::make_metrics();
  for (int t = 0; t < 25; ++t) {
    const std::string name = "tool_" + std::to_string(t);
    o::operation op = tools_call("1");
    op.target = name;
    m->record(op, {}, 0.003);
    m->record(op, {.status = o::status::tool_error}, 0.02);
  }
  std::size_t size = 0;
  for (auto _ : state) {
    auto text = m->prometheus_text();
    size = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["bytes"] = static_cast<double>(size);
}
BENCHMARK(prometheus_exposition_50_series);

}  // namespace
