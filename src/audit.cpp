// The audit interceptor and its rotating file sink (mcp/audit.hpp).
#include <mcp/audit.hpp>
#include <mcp/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

#include "detail/call_state.hpp"
#include "detail/rfc3339.hpp"
#include "detail/sha256.hpp"
#include <fcntl.h>
#include <unistd.h>

namespace mcp {
namespace {

/// One call's line, written when the last reference goes: after the result filters ran (the
/// filter holding it is destroyed then), or without a result (a JSON-RPC error, a cancel). The
/// line is written as text as it goes (one buffer, no DOM).
class record {
 public:
  record(const audit_options& o, const tool_call& call)
      : sink_(o.sink), started_(std::chrono::steady_clock::now()) {
    const auto& who = call.caller();
    line_.reserve(256);
    member("time", detail::rfc3339(std::chrono::system_clock::now()));
    member("subject", who.subject);
    if (!who.issuer.empty()) member("issuer", who.issuer);
    if (!who.client_id.empty()) member("client_id", who.client_id);
    member("tool", call.tool_name());
    if (o.arguments == audit_arguments::digest) {
      member("arguments_sha256", detail::sha256_hex(to_json_string(call.arguments())));
    } else if (o.arguments == audit_arguments::full) {
      line_ += R"(,"arguments":)";
      line_ += to_json_string(call.arguments());
    }
    if (const auto task = call.context().task_id(); !task.empty()) member("task", task);
    if (auto trace = call.context().trace_id(); !trace.empty()) member("trace_id", trace);
  }
  record(const record&) = delete;
  record& operator=(const record&) = delete;

  /// The call ended with `r`; `refused` when an interceptor finished it.
  void result(const call_tool_result& r, bool refused) {
    outcome_ = !r.is_error ? "ok" : refused ? "denied" : "tool_error";
    if (!r.is_error) return;
    for (const auto& c : r.content) {
      const auto* text = c.is_object() ? c.get_object().if_contains("text") : nullptr;
      if (text != nullptr && text->is_string()) {
        message_ = std::string(std::string_view(text->get_string()).substr(0, 500));
        break;
      }
    }
  }

  ~record() {
    try {
      member("outcome", outcome_);
      if (!message_.empty()) member("message", message_);
      const auto ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started_);
      char buf[48];
      std::snprintf(buf, sizeof buf, R"(,"duration_ms":%.3f})", ms.count());
      line_ += buf;
      sink_(line_);
    } catch (...) {  // the sink must not throw; a line lost is all that can happen
    }
  }

 private:
  void member(std::string_view name, std::string_view value) {
    line_.push_back(line_.empty() ? '{' : ',');
    line_.push_back('"');
    line_ += name;
    line_ += "\":";
    append_json_string(line_, value);
  }

  std::function<void(std::string_view)> sink_;
  std::chrono::steady_clock::time_point started_;
  std::string line_;
  std::string_view outcome_ = "error";
  std::string message_;
};

class auditor final : public call_interceptor {
 public:
  explicit auditor(audit_options o) : opts_(std::move(o)) {}

  void intercept(const tool_call& call, const std::function<void()>& next) override {
    auto rec = std::make_shared<record>(opts_, call);
    // The filter runs inside this call's completion, so the raw state is alive then; holding
    // the call itself would keep it alive through its own filter.
    const detail::call_state* state = detail::tool_call_access::state(call).get();
    call.on_result(
        [rec, state](call_tool_result& r) { rec->result(r, !state->passed_interceptors()); });
    next();
  }

 private:
  audit_options opts_;
};

class file_sink {
 public:
  explicit file_sink(audit_file_options o) : opts_(std::move(o)) {
    if (opts_.keep == 0) opts_.keep = 1;
    open();
  }
  [[nodiscard]] bool is_open() const { return fd_ >= 0; }
  ~file_sink() {
    if (fd_ >= 0) ::close(fd_);
  }
  file_sink(const file_sink&) = delete;
  file_sink& operator=(const file_sink&) = delete;

  void write(std::string_view line) {
    std::lock_guard lock(mu_);
    if (fd_ >= 0 && size_ > 0 && size_ + line.size() + 1 > opts_.max_bytes) rotate();
    if (fd_ < 0) return;
    std::string out(line);
    out.push_back('\n');
    std::size_t done = 0;
    while (done < out.size()) {
      const auto n = ::write(fd_, out.data() + done, out.size() - done);
      if (n <= 0) return;
      done += static_cast<std::size_t>(n);
    }
    size_ += out.size();
  }

 private:
  void open() {
    fd_ = ::open(opts_.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    size_ = fd_ >= 0 ? static_cast<std::size_t>(::lseek(fd_, 0, SEEK_END)) : 0;
  }
  void rotate() {
    ::close(fd_);
    fd_ = -1;
    const auto name = [this](std::size_t i) {
      return i == 0 ? opts_.path
                    : std::filesystem::path(opts_.path.string() + "." + std::to_string(i));
    };
    std::error_code ec;
    std::filesystem::remove(name(opts_.keep), ec);
    for (std::size_t i = opts_.keep; i > 0; --i) std::filesystem::rename(name(i - 1), name(i), ec);
    open();
  }

  audit_file_options opts_;
  std::mutex mu_;
  int fd_ = -1;
  std::size_t size_ = 0;
};

}  // namespace

std::shared_ptr<call_interceptor> audit(audit_options opts) {
  if (!opts.sink) throw std::invalid_argument("audit: the sink is empty");
  return std::make_shared<auditor>(std::move(opts));
}

result<std::function<void(std::string_view)>> make_audit_file(audit_file_options opts) {
  auto sink = std::make_shared<file_sink>(opts);
  if (!sink->is_open()) {
    return error{errc::invalid_params,
                 "audit: cannot open " + opts.path.string() + ": " + std::strerror(errno)};
  }
  return std::function<void(std::string_view)>(
      [sink](std::string_view line) { sink->write(line); });
}

}  // namespace mcp
