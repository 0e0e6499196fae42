#include <mcp/server.hpp>

#include <algorithm>

#include "detail/timer.hpp"
#include "server_core.hpp"

namespace mcp {

const std::vector<std::string>& supported_protocol_versions() {
  static const std::vector<std::string> v = {"2025-11-25", "2025-06-18", "2025-03-26",
                                             "2024-11-05"};
  return v;
}

namespace detail {

server_core::server_core(server_options o)
    : opts(std::move(o)),
      exec(opts.handler_executor ? opts.handler_executor : make_thread_pool(4)),
      pipeline_(std::make_shared<const std::vector<std::shared_ptr<call_interceptor>>>()) {}

std::shared_ptr<const std::vector<std::shared_ptr<call_interceptor>>> server_core::pipeline()
    const {
  std::lock_guard lock(mu_);
  return pipeline_;
}

void server_core::add_interceptor(std::shared_ptr<call_interceptor> i) {
  std::lock_guard lock(mu_);
  auto next = std::make_shared<std::vector<std::shared_ptr<call_interceptor>>>(*pipeline_);
  next->push_back(std::move(i));
  pipeline_ = std::move(next);
}

void server_core::add_session(const std::shared_ptr<session_impl>& s) {
  std::lock_guard lock(mu_);
  std::erase_if(sessions_, [](const auto& w) { return w.expired(); });
  sessions_.push_back(s);
}

void server_core::remove_session(const session_impl* s) {
  std::lock_guard lock(mu_);
  std::erase_if(sessions_, [s](const auto& w) {
    auto p = w.lock();
    return !p || p.get() == s;
  });
}

void server_core::tools_changed() {
  tools_generation.fetch_add(1);
  {
    std::lock_guard lock(mu_);
    if (notify_pending_) return;
    notify_pending_ = true;
  }
  std::weak_ptr<server_core> self = weak_from_this();
  schedule_timer(clock::now() + opts.list_changed_debounce, [self] {
    if (auto core = self.lock()) core->notify_tools_changed();
  });
}

void server_core::notify_tools_changed() {
  std::vector<std::shared_ptr<session_impl>> live;
  {
    std::lock_guard lock(mu_);
    notify_pending_ = false;
    for (const auto& w : sessions_) {
      if (auto s = w.lock()) live.push_back(std::move(s));
    }
  }
  const auto generation = tools_generation.load();
  for (const auto& s : live) session_notify_tools_changed(*s, generation);
}

}  // namespace detail

server::server(server_options opts)
    : core_(std::make_shared<detail::server_core>(std::move(opts))) {
  // Output sanitisation is a server MUST (tools "Security Considerations"): on by default.
  core_->add_interceptor(output_limits());
}

server::~server() = default;

void server::add_tool(tool_spec spec, raw_tool_handler handler) {
  if (!handler) throw std::invalid_argument("tool \"" + spec.name + "\": handler is empty");
  add_async_tool(std::move(spec),
                 [h = std::move(handler)](tool_context& ctx, const json::object& args,
                                          const responder& done) { done.finish(h(ctx, args)); });
}

void server::add_async_tool(tool_spec spec, async_tool_handler handler) {
  core_->tools.add(std::move(spec), std::move(handler));
  core_->tools_changed();
}

bool server::remove_tool(std::string_view name) {
  const bool removed = core_->tools.remove(name);
  if (removed) core_->tools_changed();
  return removed;
}

bool server::set_tool_enabled(std::string_view name, bool enabled) {
  const bool found = core_->tools.set_enabled(name, enabled);
  if (found) core_->tools_changed();
  return found;
}

std::vector<std::string> server::tool_names() const { return core_->tools.names(); }

void server::use(std::shared_ptr<call_interceptor> interceptor) {
  if (!interceptor) throw std::invalid_argument("use: interceptor is null");
  core_->add_interceptor(std::move(interceptor));
}

std::shared_ptr<server_session> server::open_session(std::shared_ptr<connection> conn,
                                                     session_options opts) {
  return detail::make_session(core_, std::move(conn), std::move(opts));
}

const server_options& server::options() const noexcept { return core_->opts; }

}  // namespace mcp
