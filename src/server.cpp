// The server: its core (features, router, sessions, debounced list_changed) and the public
// registration API, which hands each call to the feature it concerns.
#include <mcp/server.hpp>

#include <stdexcept>
#include <utility>

#include "detail/timer.hpp"
#include "listen.hpp"
#include "logging.hpp"
#include "prompts.hpp"
#include "resources.hpp"
#include "server_core.hpp"
#include "server_session.hpp"
#include "tasks.hpp"
#include "tools.hpp"
#include "wire.hpp"

namespace mcp {

namespace detail {

error invalid_params(std::string msg) { return error{errc::invalid_params, std::move(msg)}; }

void method_router::add(std::string method, std::string capability, method_handler handler,
                        served_in eras) {
  auto& e = methods_[method];
  const bool legacy = (static_cast<unsigned>(eras) & 1U) != 0;
  const bool modern = (static_cast<unsigned>(eras) & 2U) != 0;
  if ((legacy && e.legacy) || (modern && e.modern)) {
    throw std::logic_error("method registered twice: " + method);
  }
  if (legacy) e.legacy.emplace(method_entry{capability, handler});
  if (modern) e.modern.emplace(method_entry{std::move(capability), std::move(handler)});
}

const method_entry* method_router::find(std::string_view method, bool modern) const {
  auto it = methods_.find(method);
  if (it == methods_.end()) return nullptr;
  const auto& e = modern ? it->second.modern : it->second.legacy;
  return e ? &*e : nullptr;
}

namespace {
/// `o` with what `o.shared` keeps filled in where `o` leaves it to the defaults: the task store
/// and the input-round key.
server_options with_shared(server_options o) {
  if (!o.shared) return o;
  if (!o.task_store) o.task_store = o.shared->tasks();
  if (o.input_rounds.key.empty() && o.input_rounds.key_file.empty()) {
    o.input_rounds.key = o.shared->sealing_key();
  }
  return o;
}
}  // namespace

server_core::server_core(server_options o)
    : opts(with_shared(std::move(o))),
      server_info_2026(wire::implementation(opts.info, era::v2026_07_28)),
      server_info_meta_2026(R"("io.modelcontextprotocol/serverInfo":)" +
                            to_json_string(server_info_2026)),
      sealer(opts.input_rounds, opts.shared),
      exec(opts.handler_executor ? opts.handler_executor : make_thread_pool(thread_pool_options{})),
      plan_(std::make_shared<const pipeline_plan>()) {
  // Capabilities are declared in this order.
  tools = std::make_shared<tools_feature>(*this);
  auto logging = std::make_shared<logging_feature>(*this);
  resources = std::make_shared<resources_feature>(*this);
  prompts = std::make_shared<prompts_feature>(*this);
  auto completion = std::make_shared<completion_feature>(*this, *resources, *prompts);
  listens = std::make_shared<listen_feature>(*this);
  tasks = std::make_shared<tasks_feature>(*this, listens);
  features = {tools, logging, resources, prompts, completion, tasks, listens};
}

server_core::~server_core() {
  // Tasks queued for a concurrency slot hold their calls, which hold the tasks feature: they
  // never run now.
  tasks->drop_parked();
}

std::shared_ptr<const pipeline_plan> server_core::pipeline() const {
  std::lock_guard lock(mu_);
  return plan_;
}

void server_core::add_interceptor(std::shared_ptr<call_interceptor> i) {
  // Decided here, once: the straight path runs while every interceptor is a built-in one.
  auto* step = dynamic_cast<plain_step*>(i.get());
  std::lock_guard lock(mu_);
  auto next = std::make_shared<pipeline_plan>(*plan_);
  next->push_back(std::move(i));
  next->plain = next->plain && step != nullptr;
  if (next->plain) {
    next->steps.push_back(step);
  } else {
    next->steps.clear();
  }
  plan_ = std::move(next);
}

void server_core::add_session(const std::shared_ptr<server_session_impl>& s) {
  std::lock_guard lock(mu_);
  std::erase_if(sessions_, [](const auto& w) { return w.expired(); });
  sessions_.push_back(s);
}

void server_core::remove_session(const server_session_impl* s) {
  std::lock_guard lock(mu_);
  std::erase_if(sessions_, [s](const auto& w) {
    auto p = w.lock();
    return !p || p.get() == s;
  });
}

std::vector<std::shared_ptr<server_session_impl>> server_core::live_sessions() const {
  std::vector<std::shared_ptr<server_session_impl>> live;
  std::lock_guard lock(mu_);
  live.reserve(sessions_.size());
  for (const auto& w : sessions_) {
    if (auto s = w.lock()) live.push_back(std::move(s));
  }
  return live;
}

std::size_t server_core::add_list(std::string method) {
  std::lock_guard lock(mu_);
  if (list_count_ == max_lists) throw std::logic_error("too many lists");
  list_methods_[list_count_] = std::move(method);
  return list_count_++;
}

std::size_t server_core::add_state_slot() {
  std::lock_guard lock(mu_);
  if (state_slots_ == max_state_slots) throw std::logic_error("too many session state slots");
  return state_slots_++;
}

std::shared_ptr<const json::object> server_core::capabilities(
    era e, bool shared_owner, const std::function<json::object()>& declare) {
  const auto i = static_cast<std::size_t>(e) * 2 + (shared_owner ? 1 : 0);
  const auto stamp = changes_.load();
  if (i < caps_.size()) {
    std::lock_guard lock(caps_mu_);
    if (caps_[i].caps && caps_[i].stamp == stamp) return caps_[i].caps;
  }
  auto caps = std::make_shared<const json::object>(declare());
  if (i < caps_.size()) {
    std::lock_guard lock(caps_mu_);
    caps_[i] = declared{stamp, caps};  // a change meanwhile moved the stamp on: computed again
  }
  return caps;
}

void server_core::list_changed(std::size_t k) {
  generations_[k].fetch_add(1);
  changes_.fetch_add(1);
  {
    std::lock_guard lock(mu_);
    // Made while serving: a change the other processes of a service hear of. What a process
    // registers before its first session, every process registers alike (server_relay.cpp).
    if (serving_.load()) publish_[k] = true;
    if (pending_[k]) return;
    pending_[k] = true;
  }
  std::weak_ptr<server_core> self = weak_from_this();
  schedule_timer(clock::now() + opts.list_changed_debounce, [self, k] {
    if (auto core = self.lock()) core->notify_list(k);
  });
}

void server_core::notify_list(std::size_t k) {
  bool publish = false;
  {
    std::lock_guard lock(mu_);
    pending_[k] = false;
    publish = std::exchange(publish_[k], false);
  }
  const auto generation = generations_[k].load();
  for (const auto& s : live_sessions()) s->notify_list_changed(k, generation, list_methods_[k]);
  listens->list_changed(k, list_methods_[k]);  // 2026-07-28 subscriptions
  if (publish) publish_change('l', list_methods_[k]);
}

}  // namespace detail

server::server(server_options opts)
    : core_(std::make_shared<detail::server_core>(std::move(opts))) {
  // Output sanitisation is a server MUST (tools "Security Considerations"): on by default.
  core_->add_interceptor(output_limits(core_->opts.output));
  core_->listen_shared();
}

server::~server() = default;

void server::add_tool(tool_spec spec, raw_tool_handler handler) {
  if (!handler) throw std::invalid_argument("tool \"" + spec.name + "\": handler is empty");
  add_async_tool(std::move(spec),
                 [h = std::move(handler)](tool_context& ctx, const json::object& args,
                                          const responder& done) { done.finish(h(ctx, args)); });
}

void server::add_async_tool(tool_spec spec, async_tool_handler handler) {
  core_->tools->add(std::move(spec), std::move(handler));
}

std::optional<error> server::check_param_headers(
    const jsonrpc::request& req,
    const std::function<std::optional<std::string_view>(std::string_view)>& header) const {
  return core_->tools->check_param_headers(req, header);
}

bool server::remove_tool(std::string_view name, running_calls running) {
  return core_->tools->remove(name, running == running_calls::cancel);
}

bool server::set_tool_enabled(std::string_view name, bool enabled) {
  return core_->tools->set_enabled(name, enabled);
}

std::vector<std::string> server::tool_names() const { return core_->tools->names(); }

void server::notify_tools_changed() { core_->tools->changed(); }

std::optional<scope_shortfall> server::missing_scopes(const jsonrpc::request& req,
                                                      const principal& who) const {
  return core_->tools->shortfall(req, who);
}

void server::add_raw_resource(resource_spec spec, resource_handler handler) {
  core_->resources->add(std::move(spec), std::move(handler));
}

void server::add_raw_template(resource_template_spec spec, resource_handler handler) {
  core_->resources->add_template(std::move(spec), std::move(handler));
}

bool server::remove_resource(std::string_view uri) { return core_->resources->remove(uri); }

bool server::remove_resource_template(std::string_view uri_template) {
  return core_->resources->remove_template(uri_template);
}

void server::notify_resource_updated(std::string_view uri) { core_->resource_updated(uri); }

void server::add_raw_prompt(prompt_spec spec, prompt_handler handler) {
  core_->prompts->add(std::move(spec), std::move(handler));
}

bool server::remove_prompt(std::string_view name) { return core_->prompts->remove(name); }

void server::use(std::shared_ptr<call_interceptor> interceptor) {
  if (!interceptor) throw std::invalid_argument("use: interceptor is null");
  core_->add_interceptor(std::move(interceptor));
}

std::shared_ptr<server_session> server::open_session(std::shared_ptr<connection> conn,
                                                     session_options opts) {
  return detail::open_session(core_, std::move(conn), std::move(opts));
}

void server::start_serving() noexcept { core_->start_serving(); }

const server_options& server::options() const noexcept { return core_->opts; }

}  // namespace mcp
