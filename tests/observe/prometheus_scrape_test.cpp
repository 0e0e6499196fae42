// Debian's Prometheus scrapes our /metrics endpoint: a known mix of operations is recorded, the
// endpoint serves it on 127.0.0.1, a real `prometheus` (temporary config and storage, loopback
// only) scrapes it every second, and its query API must return the counts, bucket totals and
// sums of that mix. `promtool check metrics` must accept the text, and our own check must find
// the histograms consistent (promtool does not look at bucket order or +Inf == _count).
// Prints SKIPPED and exits 77 when prometheus or promtool is not installed.
#include <mcp/observe/metrics_server.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "http/fetch.hpp"
#include "observe/exposition_check.hpp"
#include "support/subprocess.hpp"

namespace {

using namespace mcp::observe;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string p = path != nullptr ? path : "/usr/bin:/bin";
  for (std::size_t start = 0; start <= p.size();) {
    const auto end = std::min(p.find(':', start), p.size());
    const fs::path candidate = fs::path(p.substr(start, end - start)) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    start = end + 1;
  }
  return {};
}

std::string percent_encode(std::string_view s) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out += ch;
    } else {
      out += '%';
      out += hex[c >> 4U];
      out += hex[c & 0xFU];
    }
  }
  return out;
}

std::uint16_t free_port() {
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::acceptor a(ioc, {boost::asio::ip::make_address("127.0.0.1"), 0});
  return a.local_endpoint().port();
}

/// The known mix: what the queries below expect.
std::shared_ptr<metrics> known_mix() {
  auto m = make_metrics({.resource = {{"service.name", "prometheus-test"}}});
  const operation weather{.method = "tools/call",
                          .target = "get-weather",
                          .protocol_version = "2025-11-25",
                          .transport = network_transport::pipe};
  const operation other{.method = "tools/call",
                        .target = "other",
                        .protocol_version = "2025-11-25",
                        .transport = network_transport::pipe};
  m->record(weather, {}, 0.004);  // le 0.01
  m->record(weather, {}, 0.01);   // le 0.01 (on the boundary)
  m->record(weather, {}, 0.3);    // le 0.5
  m->record(weather, {.status = status::tool_error}, 0.015);
  m->record(other, {}, 45);   // le 60
  m->record(other, {}, 400);  // only +Inf
  m->record({.method = "prompts/get", .target = "p", .transport = network_transport::pipe},
            {.status = status::rpc_error, .code = -32602}, 0.002);
  m->record({.side = kind::client,
             .method = "sampling/createMessage",
             .transport = network_transport::tcp,
             .network_protocol_name = "http",
             .network_protocol_version = "1.1",
             .peer_address = "127.0.0.1",
             .peer_port = 8080},
            {.status = status::rpc_error, .code = -32603}, 1.5);
  m->on_denial({.method = "tools/call", .target = "rm", .reason = "rate_limit"});
  m->on_denial({.method = "tools/call", .target = "rm", .reason = "rate_limit"});
  m->on_task_status("slow", "completed");
  auto session = m->on_session_start({.transport = network_transport::pipe});
  (void)session;  // open: the gauge says 1
  return m;
}

class prometheus_server {
 public:
  prometheus_server(const std::string& binary, std::uint16_t target_port) {
    dir_ = fs::temp_directory_path() / ("mcp-prom-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    port_ = free_port();
    std::ofstream(dir_ / "prometheus.yml")
        << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
        << "scrape_configs:\n  - job_name: mcp\n    metrics_path: /metrics\n"
        << "    static_configs:\n      - targets: ['127.0.0.1:" << target_port << "']\n";
    proc_ = std::make_unique<mcp::test::subprocess>(std::vector<std::string>{
        binary, "--config.file=" + (dir_ / "prometheus.yml").string(),
        "--storage.tsdb.path=" + (dir_ / "data").string(),
        "--web.listen-address=127.0.0.1:" + std::to_string(port_), "--log.level=warn"});
  }
  ~prometheus_server() {
    if (proc_ && proc_->started()) {
      ::kill(proc_->pid(), SIGTERM);
      (void)proc_->wait(10s);
    }
    proc_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  prometheus_server(const prometheus_server&) = delete;
  prometheus_server& operator=(const prometheus_server&) = delete;

  [[nodiscard]] bool started() const { return proc_->started(); }
  [[nodiscard]] std::string api() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string log() { return proc_->drain_stderr(); }
  [[nodiscard]] fs::path config() const { return dir_ / "prometheus.yml"; }

  /// GET `path` on the server: status and body (status 0 when it does not answer).
  std::pair<unsigned, std::string> get(const std::string& path) {
    try {
      auto r = mcp::http_detail::fetch(api() + path, {}, 5s, 8 << 20);
      return {r.status, std::move(r.body)};
    } catch (const std::exception&) {
      return {0, {}};
    }
  }

  /// The instant query's result vector (empty on any failure).
  mcp::json::array query(const std::string& expr) {
    auto [status, body] = get("/api/v1/query?query=" + percent_encode(expr));
    if (status != 200) return {};
    auto v = mcp::parse_json(body);
    if (!v || !v->is_object()) return {};
    const auto* data = v->as_object().if_contains("data");
    if (data == nullptr || !data->is_object()) return {};
    const auto* result = data->as_object().if_contains("result");
    return result != nullptr && result->is_array() ? result->as_array() : mcp::json::array{};
  }

  /// The single value of `expr` as text ("<none>" without one, "<many>" with several).
  std::string value(const std::string& expr) {
    const auto r = query(expr);
    if (r.empty()) return "<none>";
    if (r.size() > 1) return "<many>";
    return std::string(r[0].at("value").at(1).as_string());
  }

 private:
  fs::path dir_;
  std::uint16_t port_ = 0;
  std::unique_ptr<mcp::test::subprocess> proc_;
};

std::string prometheus_bin;
std::string promtool_bin;

/// Runs promtool with `args`, `input` on its stdin; its exit code and output.
std::pair<int, std::string> promtool(std::vector<std::string> args, const std::string& input) {
  args.insert(args.begin(), promtool_bin);
  mcp::test::subprocess p(args);
  if (!p.started()) return {-1, "promtool did not start"};
  std::string text = input;
  if (!text.empty() && text.back() == '\n') text.pop_back();
  if (!text.empty()) p.write_line(text);
  p.close_stdin();
  std::string out;
  while (auto line = p.read_line(10s)) out += *line + "\n";
  const auto rc = p.wait(30s);
  return {rc.value_or(-1), out + p.drain_stderr()};
}

TEST(PrometheusScrape, PromtoolAcceptsTheExposition) {
  const auto text = known_mix()->prometheus_text();
  const auto [rc, out] = promtool({"check", "metrics"}, text);
  EXPECT_EQ(rc, 0) << out << "\n" << text;
  const auto problems = mcp::observe_test::check_histograms(text);
  EXPECT_TRUE(problems.empty()) << problems;
}

TEST(PrometheusScrape, QueriesReturnTheRecordedMix) {
  auto m = known_mix();
  auto endpoint = make_metrics_server({.listen = "127.0.0.1:0", .metrics = m});
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  prometheus_server prom(prometheus_bin, (*endpoint)->port());
  ASSERT_TRUE(prom.started());
  {
    const auto [rc, out] = promtool({"check", "config", prom.config().string()}, "");
    ASSERT_EQ(rc, 0) << out;
  }
  // Ready in well under a second here; the first scrape takes about 5 s (the scrape manager's
  // start-up). Generous limits for a loaded machine.
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (prom.get("/-/ready").first != 200) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "not ready: " << prom.log();
    std::this_thread::sleep_for(100ms);
  }
  deadline = std::chrono::steady_clock::now() + 90s;
  while (prom.value("up{job=\"mcp\"}") != "1") {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline)
        << "no successful scrape: " << prom.get("/api/v1/targets").second << prom.log();
    std::this_thread::sleep_for(200ms);
  }
  const auto targets = prom.get("/api/v1/targets").second;
  EXPECT_NE(targets.find("\"health\":\"up\""), std::string::npos) << targets;
  EXPECT_NE(targets.find("\"lastError\":\"\""), std::string::npos) << targets;

  const std::string op = "mcp_server_operation_duration_seconds";
  const std::string weather = "gen_ai_tool_name=\"get-weather\"";
  EXPECT_EQ(prom.value("sum(" + op + "_count{" + weather + "})"), "4");
  EXPECT_EQ(prom.value(op + "_count{" + weather + ",error_type=\"\"}"), "3");
  EXPECT_EQ(prom.value(op + "_count{" + weather + ",error_type=\"tool_error\"}"), "1");
  EXPECT_EQ(prom.value(op + "_bucket{" + weather + ",error_type=\"\",le=\"0.01\"}"), "2");
  EXPECT_EQ(prom.value(op + "_bucket{" + weather + ",error_type=\"\",le=\"0.2\"}"), "2");
  EXPECT_EQ(prom.value(op + "_bucket{" + weather + ",error_type=\"\",le=\"0.5\"}"), "3");
  EXPECT_EQ(prom.value(op + "_bucket{" + weather + ",error_type=\"\",le=\"+Inf\"}"), "3");
  EXPECT_EQ(prom.value(op + "_bucket{" + weather + ",error_type=\"tool_error\",le=\"0.01\"}"), "0");
  EXPECT_EQ(prom.value(op + "_bucket{" + weather + ",error_type=\"tool_error\",le=\"0.02\"}"), "1");
  EXPECT_EQ(prom.value(op + "_bucket{gen_ai_tool_name=\"other\",le=\"30\"}"), "0");
  EXPECT_EQ(prom.value(op + "_bucket{gen_ai_tool_name=\"other\",le=\"60\"}"), "1");
  EXPECT_EQ(prom.value(op + "_bucket{gen_ai_tool_name=\"other\",le=\"300\"}"), "1");
  EXPECT_EQ(prom.value(op + "_bucket{gen_ai_tool_name=\"other\",le=\"+Inf\"}"), "2");
  EXPECT_EQ(prom.value(op + "_sum{gen_ai_tool_name=\"other\"}"), "445");
  EXPECT_EQ(prom.value("count(" + op + "_bucket{" + weather + ",error_type=\"\"})"), "15");
  // The caller's mistake on the server side: a status code, no error.type.
  EXPECT_EQ(prom.value(op + "_count{mcp_method_name=\"prompts/get\","
                            "rpc_response_status_code=\"-32602\",error_type=\"\"}"),
            "1");
  const std::string client = "mcp_client_operation_duration_seconds";
  EXPECT_EQ(prom.value(client + "_bucket{error_type=\"-32603\",server_address=\"127.0.0.1\","
                                "server_port=\"8080\",le=\"1\"}"),
            "0");
  EXPECT_EQ(prom.value(client + "_bucket{error_type=\"-32603\",le=\"2\"}"), "1");
  EXPECT_EQ(prom.value("sum(mcp_server_operations_total)"), "7");
  EXPECT_EQ(prom.value("mcp_server_operations_total{" + weather + "}"), "4");
  EXPECT_EQ(prom.value("sum(mcp_server_errors_total)"), "1");
  EXPECT_EQ(prom.value("mcp_client_errors_total{error_type=\"-32603\"}"), "1");
  EXPECT_EQ(prom.value("mcp_server_denials_total{mcp_denial_reason=\"rate_limit\"}"), "2");
  EXPECT_EQ(prom.value("mcp_server_tasks_total{mcp_task_status=\"completed\"}"), "1");
  EXPECT_EQ(prom.value("mcp_server_active_sessions"), "1");
  EXPECT_EQ(prom.value("count(target_info{service_name=\"prometheus-test\"})"), "1");
  EXPECT_EQ(prom.value("count(mcp_server_operations_total{otel_scope_name=\"mcp-cpp\"})"), "3");

  // A later scrape sees later calls.
  m->record({.method = "tools/call",
             .target = "get-weather",
             .protocol_version = "2025-11-25",
             .transport = network_transport::pipe},
            {}, 0.004);
  deadline = std::chrono::steady_clock::now() + 30s;
  while (prom.value("mcp_server_operations_total{" + weather + "}") != "5") {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the new call was not scraped";
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_EQ(prom.value(op + "_bucket{" + weather + ",error_type=\"\",le=\"0.01\"}"), "3");
}

}  // namespace

int main(int argc, char** argv) {
  prometheus_bin = find_program("prometheus");
  promtool_bin = find_program("promtool");
  if (prometheus_bin.empty() || promtool_bin.empty()) {
    std::puts("SKIPPED: prometheus or promtool not found (Debian package prometheus)");
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
