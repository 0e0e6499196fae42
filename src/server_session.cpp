// The server side of one MCP session: lifecycle and version negotiation, dispatch of requests
// and notifications, tools/list and tools/call through the pipeline, cancellation, and requests
// from a running tool to the client.
#include <algorithm>
#include <condition_variable>
#include <unordered_map>
#include <unordered_set>

#include "detail/call_state.hpp"
#include "detail/timer.hpp"
#include "server_core.hpp"

namespace mcp::detail {

namespace {

error invalid_params(std::string msg) { return error{errc::invalid_params, std::move(msg)}; }

/// Removes what the negotiated era does not have from a result.
void adapt_result_to_era(json::object& r, era e) {
  if (e >= era::v2025_06_18) return;
  r.erase("structuredContent");
  r.erase("_meta");
  if (auto* content = r.if_contains("content"); content && content->is_array()) {
    auto& arr = content->get_array();
    for (auto it = arr.begin(); it != arr.end();) {
      const auto* type = it->is_object() ? it->get_object().if_contains("type") : nullptr;
      const bool drop = type && type->is_string() && !content_type_known(type->get_string(), e);
      it = drop ? arr.erase(it) : it + 1;
    }
  }
}

/// Waits for the answer to one request this session sent to the client.
struct waiter {
  std::mutex mu;
  std::condition_variable_any cv;
  std::optional<result<json::object>> outcome;
};

}  // namespace

class session_impl final : public server_session,
                           public call_host,
                           public std::enable_shared_from_this<session_impl> {
 public:
  session_impl(std::shared_ptr<server_core> core, std::shared_ptr<connection> conn,
               session_options opts)
      : core_(std::move(core)),
        conn_(std::move(conn)),
        who_(std::make_shared<const principal>(std::move(opts.who))),
        level_(core_->opts.default_log_level) {
    if (opts.assume_initialized) {
      tools_seen_.store(core_->tools_generation.load());
      resources_seen_.store(core_->resources_generation.load());
      prompts_seen_.store(core_->prompts_generation.load());
      declared_ = server_capabilities();
      version_ = *opts.assume_initialized;
      era_ = era_of(version_);
      initialized_.store(true);
    }
  }

  ~session_impl() override { close(); }

  // ---- server_session ----

  void receive(std::string_view text) override {
    if (closed_.load()) return;
    auto parsed = parse_json(text, core_->opts.limits);
    if (!parsed) {
      const auto code =
          parsed.error().is(errc::limit_exceeded) ? errc::invalid_request : errc::parse_error;
      send(jsonrpc::encode_error(std::nullopt, error{code, parsed.error().message}));
      return;
    }
    if (parsed->is_array()) {
      receive_batch(std::move(parsed->get_array()));
      return;
    }
    handle(std::move(*parsed));
  }

  void receive(jsonrpc::message&& message) override {
    if (closed_.load()) return;
    dispatch(std::move(message));
  }

  void close() override {
    if (closed_.exchange(true)) return;
    std::vector<std::shared_ptr<call_state>> calls;
    std::unordered_map<std::int64_t, std::shared_ptr<waiter>> pending;
    {
      std::lock_guard lock(mu_);
      for (auto& [id, c] : calls_) calls.push_back(c.call);
      calls_.clear();
      pending.swap(pending_);
    }
    for (auto& c : calls) {
      c->cancelled_by_client = true;
      c->stop_source().request_stop();
    }
    for (auto& [id, w] : pending) {
      std::lock_guard lock(w->mu);
      w->outcome = error{errc::connection_closed, "the session has ended"};
      w->cv.notify_all();
    }
    conn_->close();
    core_->remove_session(this);
  }

  [[nodiscard]] std::string protocol_version() const override {
    std::lock_guard lock(mu_);
    return version_;
  }
  [[nodiscard]] bool initialized() const override { return initialized_.load(); }
  [[nodiscard]] std::size_t active_calls() const override {
    std::lock_guard lock(mu_);
    return calls_.size();
  }

  // ---- call_host ----

  void send_related(const call_state& call, std::string message) override {
    send_context ctx{&call.id(), false};
    if (!closed_.load()) conn_->send(std::move(message), ctx);
  }

  bool close_stream(const call_state& call) override {
    return !closed_.load() && !call.done() && conn_->close_request_stream(call.id());
  }

  result<json::object> request_for(const call_state& call, std::string_view method,
                                   json::object params,
                                   std::chrono::milliseconds timeout) override {
    if (auto missing = missing_capability(method, params)) {
      return error{errc::not_supported, "the client did not declare the \"" + *missing +
                                            "\" capability needed for " + std::string(method)};
    }
    auto w = std::make_shared<waiter>();
    std::int64_t id = 0;
    {
      std::lock_guard lock(mu_);
      if (closed_.load()) return error{errc::connection_closed, "the session has ended"};
      id = next_request_id_++;
      pending_.emplace(id, w);
    }
    send_context ctx{&call.id(), false};
    conn_->send(jsonrpc::encode_request(id, method, params), ctx);

    std::unique_lock lock(w->mu);
    auto st = const_cast<call_state&>(call).stop_source().get_token();
    const bool answered =
        w->cv.wait_until(lock, st, clock::now() + timeout, [&] { return w->outcome.has_value(); });
    if (answered) return std::move(*w->outcome);
    lock.unlock();
    {
      std::lock_guard guard(mu_);
      pending_.erase(id);
    }
    const bool was_cancelled = st.stop_requested();
    json::object p{{"requestId", id},
                   {"reason", was_cancelled ? "the tool call was cancelled" : "timed out"}};
    send(jsonrpc::encode_notification("notifications/cancelled", p));
    if (was_cancelled) return error{errc::cancelled, std::string(method) + " was cancelled"};
    return error{errc::request_timeout, std::string(method) + " got no answer within " +
                                            std::to_string(timeout.count()) + " ms"};
  }

  void finish_call(call_state& call, std::variant<call_tool_result, error> outcome) override {
    std::shared_ptr<const tool_entry> entry;
    {
      std::lock_guard lock(mu_);
      auto it = calls_.find(call.id());
      if (it == calls_.end() || it->second.call.get() != &call) return;  // cancelled or closed
      entry = std::move(it->second.entry);
      calls_.erase(it);
    }
    if (call.cancelled_by_client.load()) return;
    if (auto* e = std::get_if<error>(&outcome)) {
      send_final(call.id(), jsonrpc::encode_error(call.id(), *e));
      return;
    }
    auto& r = std::get<call_tool_result>(outcome);
    const bool check_output = !r.is_error && entry->output_validator;
    auto wire = std::move(r).to_json();
    if (check_output) {
      // Validated in its wire form: no copy of structuredContent.
      std::string problem;
      if (const auto* sc = wire.if_contains("structuredContent"); !sc) {
        problem = "has an outputSchema but returned no structuredContent";
      } else if (auto errors = entry->output_validator->validate(*sc); !errors.empty()) {
        problem = "returned structuredContent that does not match its outputSchema: " +
                  errors.front().message;
      }
      if (!problem.empty()) {
        send_final(call.id(), jsonrpc::encode_error(
                                  call.id(), error{errc::internal_error,
                                                   "Tool \"" + call.tool() + "\" " + problem}));
        return;
      }
    }
    adapt_result_to_era(wire, era_);
    send_final(call.id(), jsonrpc::encode_result(call.id(), wire));
  }

  [[nodiscard]] bool log_enabled(log_level level) const override {
    return initialized_.load() && level >= level_.load();
  }
  [[nodiscard]] const json::object& client_capabilities() const override { return client_caps_; }
  [[nodiscard]] const std::string& negotiated_version() const override { return version_; }

  /// Sends resources or prompts list_changed, like notify_tools_changed.
  void notify_list_changed(list_kind k, std::uint64_t generation) {
    if (!initialized_.load() || closed_.load()) return;
    auto& seen = k == list_kind::resources ? resources_seen_ : prompts_seen_;
    if (seen.exchange(generation) >= generation) return;
    send(jsonrpc::encode_notification(k == list_kind::resources
                                          ? "notifications/resources/list_changed"
                                          : "notifications/prompts/list_changed"));
  }

  /// Sends notifications/resources/updated if this session subscribed to `uri`.
  void notify_resource_updated(const std::string& uri) {
    if (!initialized_.load() || closed_.load()) return;
    {
      std::lock_guard lock(mu_);
      if (!subscriptions_.contains(uri)) return;
    }
    send(jsonrpc::encode_notification("notifications/resources/updated",
                                      json::object{{"uri", uri}}));
  }

  /// Sends list_changed if the tools changed since this session initialized or was last told.
  void notify_tools_changed(std::uint64_t generation) {
    if (!initialized_.load() || closed_.load()) return;
    if (tools_seen_.exchange(generation) >= generation) return;
    send(jsonrpc::encode_notification("notifications/tools/list_changed"));
  }

 private:
  struct running_call {
    std::shared_ptr<call_state> call;
    std::shared_ptr<const tool_entry> entry;
  };

  void send(std::string message) {
    if (!closed_.load()) conn_->send(std::move(message), send_context{});
  }
  void reply(const jsonrpc::request_id& id, const json::value& result) {
    send_final(id, jsonrpc::encode_result(id, result));
  }
  void reply_error(const jsonrpc::request_id& id, const error& e) {
    send_final(id, jsonrpc::encode_error(id, e));
  }

  /// Every final response goes out here: on its own, or into the array of its batch.
  void send_final(const jsonrpc::request_id& id, std::string message) {
    std::string batch;
    if (settle_batched(id, &message, batch)) {
      if (!batch.empty()) send(std::move(batch));
      return;
    }
    send_context ctx{&id, true};
    conn_->send(std::move(message), ctx);
  }

  /// Files the answer to `id` (null: the request was cancelled and gets none) with the batch
  /// it came in. False when `id` is not waiting in a batch. When it completes the batch, `out`
  /// is the batch's answer: a JSON array, or empty when no request in it was answered.
  bool settle_batched(const jsonrpc::request_id& id, std::string* answer, std::string& out) {
    if (open_batches_.load(std::memory_order_acquire) == 0) return false;
    std::lock_guard lock(mu_);
    auto it = batched_.find(id);
    if (it == batched_.end()) return false;
    auto b = std::move(it->second);
    batched_.erase(it);
    if (answer != nullptr) b->answers.push_back(std::move(*answer));
    if (--b->waiting == 0) {
      open_batches_.fetch_sub(1, std::memory_order_release);
      out = jsonrpc::encode_batch(b->answers);
    }
    return true;
  }

  /// A batch received as text (2025-03-26) is answered with one array once each request in it
  /// is answered or cancelled (JSON-RPC 2.0 section 6). Transports that decode messages
  /// themselves (Streamable HTTP) pass them one by one and build their own array.
  void receive_batch(json::array&& batch) {
    if (era_ != era::v2025_03_26 || !initialized_.load()) {
      send(jsonrpc::encode_error(
          std::nullopt,
          error{errc::invalid_request,
                "Invalid Request: JSON-RPC batches are only accepted when protocol version "
                "2025-03-26 was negotiated"}));
      return;
    }
    if (batch.empty()) {
      send(jsonrpc::encode_error(std::nullopt,
                                 error{errc::invalid_request, "Invalid Request: empty batch"}));
      return;
    }
    auto answers = std::make_shared<batch_answers>();
    std::vector<jsonrpc::message> messages;
    messages.reserve(batch.size());
    for (auto& v : batch) {
      auto m = jsonrpc::decode(std::move(v));
      if (!m) {
        answers->answers.push_back(jsonrpc::encode_error(m.error().id, m.error().err));
      } else {
        messages.push_back(std::move(*m));
      }
    }
    {
      std::lock_guard lock(mu_);
      for (const auto& m : messages) {
        const auto* rq = std::get_if<jsonrpc::request>(&m);
        // A request whose id is already waiting (a duplicate) is answered on its own.
        if (rq != nullptr && batched_.emplace(rq->id, answers).second) ++answers->waiting;
      }
      if (answers->waiting > 0) open_batches_.fetch_add(1, std::memory_order_release);
    }
    if (answers->waiting == 0) {
      auto all = jsonrpc::encode_batch(answers->answers);  // only notifications and invalid entries
      if (!all.empty()) send(std::move(all));
    }
    for (auto& m : messages) dispatch(std::move(m));
  }

  void handle(json::value&& v) {
    auto m = jsonrpc::decode(std::move(v));
    if (!m) {
      // An error for a readable id belongs to that request (HTTP puts it on its stream).
      if (m.error().id) return reply_error(*m.error().id, m.error().err);
      send(jsonrpc::encode_error(std::nullopt, m.error().err));
      return;
    }
    dispatch(std::move(*m));
  }

  void dispatch(jsonrpc::message&& m) {
    std::visit(
        [&](auto&& msg) {
          using T = std::decay_t<decltype(msg)>;
          if constexpr (std::is_same_v<T, jsonrpc::request>) {
            on_request(std::move(msg));
          } else if constexpr (std::is_same_v<T, jsonrpc::notification>) {
            on_notification(msg);
          } else if constexpr (std::is_same_v<T, jsonrpc::response>) {
            on_response(std::move(msg));
          }
          // An orphan error (a response without id) answers nothing we can match; dropped.
        },
        std::move(m));
  }

  void on_request(jsonrpc::request&& req) {
    const std::string& m = req.method;
    if (m == "ping") return reply(req.id, json::object{});
    if (m == "initialize") return on_initialize(req);
    if (!initialized_.load()) {
      return reply_error(
          req.id, error{errc::invalid_request, "Server not initialized: send initialize first"});
    }
    if (m == "tools/list") return on_tools_list(req);
    if (m == "tools/call") return on_tools_call(std::move(req));
    if (m == "logging/setLevel") return on_set_level(req);
    if (const auto f = feature_of(m); !f.empty() && !declared_.contains(f)) {
      // A feature this session was not offered at initialize (nothing was registered).
      return reply_error(req.id, error{errc::method_not_found, "Method not found: " + m});
    }
    if (m == "resources/list") return answer(req.id, resources_list(cat(), req.params, era_, ps()));
    if (m == "resources/templates/list") {
      return answer(req.id, templates_list(cat(), req.params, era_, ps()));
    }
    if (m == "resources/read") {
      return answer_on_pool(std::move(req), [](session_impl& s, const jsonrpc::request& r) {
        return resources_read(s.cat(), r.params, *s.who_);
      });
    }
    if (m == "resources/subscribe" || m == "resources/unsubscribe") return on_subscribe(req);
    if (m == "prompts/list") return answer(req.id, prompts_list(cat(), req.params, era_, ps()));
    if (m == "prompts/get") {
      return answer_on_pool(std::move(req), [](session_impl& s, const jsonrpc::request& r) {
        return prompts_get(s.cat(), r.params, *s.who_, s.era_);
      });
    }
    if (m == "completion/complete") {
      return answer_on_pool(std::move(req), [](session_impl& s, const jsonrpc::request& r) {
        return complete(s.cat(), r.params);
      });
    }
    reply_error(req.id, error{errc::method_not_found, "Method not found: " + m});
  }

  void on_notification(const jsonrpc::notification& n) {
    if (n.method == "notifications/cancelled") return on_cancelled(n.params);
    // notifications/initialized, progress and roots/list_changed need no action; unknown
    // notifications are ignored, never answered.
  }

  void on_response(jsonrpc::response&& r) {
    const auto* id = std::get_if<std::int64_t>(&r.id);
    if (!id) return;
    std::shared_ptr<waiter> w;
    {
      std::lock_guard lock(mu_);
      auto it = pending_.find(*id);
      if (it == pending_.end()) return;  // late, unknown or already timed out: ignore
      w = std::move(it->second);
      pending_.erase(it);
    }
    std::lock_guard lock(w->mu);
    if (r.err) {
      w->outcome = std::move(*r.err);
    } else if (r.result && r.result->is_object()) {
      w->outcome = std::move(r.result->get_object());
    } else {
      w->outcome = error{errc::invalid_request, "the client's result is not an object"};
    }
    w->cv.notify_all();
  }

  void on_initialize(const jsonrpc::request& req) {
    const auto* ver = req.params.if_contains("protocolVersion");
    if (!ver || !ver->is_string()) {
      return reply_error(req.id, invalid_params("initialize needs a string protocolVersion"));
    }
    const auto* caps = req.params.if_contains("capabilities");
    if (caps && !caps->is_object()) {
      return reply_error(req.id, invalid_params("initialize: capabilities must be an object"));
    }
    const auto& supported = supported_protocol_versions();
    std::string chosen(latest_protocol_version);
    if (std::find(supported.begin(), supported.end(), ver->get_string()) != supported.end()) {
      chosen = std::string(ver->get_string());
    }
    {
      std::lock_guard lock(mu_);
      if (initialized_.load()) {
        return reply_error(req.id,
                           error{errc::invalid_request, "Invalid Request: already initialized"});
      }
      version_ = chosen;
      era_ = era_of(chosen);
      if (caps) client_caps_ = caps->get_object();
      if (const auto* ci = req.params.if_contains("clientInfo"); ci && ci->is_object()) {
        client_info_ = ci->get_object();
      }
    }
    const auto& o = core_->opts;
    json::object info{{"name", o.info.name}, {"version", o.info.version}};
    if (era_ >= era::v2025_06_18 && o.info.title) info["title"] = *o.info.title;
    if (era_ >= era::v2025_11_25) {
      if (o.info.description) info["description"] = *o.info.description;
      if (o.info.website_url) info["websiteUrl"] = *o.info.website_url;
      if (!o.info.icons.empty()) {
        json::array icons;
        for (const auto& i : o.info.icons) {
          json::object io{{"src", i.src}};
          if (i.mime_type) io["mimeType"] = *i.mime_type;
          if (!i.sizes.empty()) {
            json::array sizes;
            for (const auto& s : i.sizes) sizes.emplace_back(s);
            io["sizes"] = std::move(sizes);
          }
          if (i.theme) io["theme"] = *i.theme;
          icons.emplace_back(std::move(io));
        }
        info["icons"] = std::move(icons);
      }
    }
    declared_ = server_capabilities();
    json::object result{
        {"protocolVersion", chosen}, {"capabilities", declared_}, {"serverInfo", std::move(info)}};
    if (o.instructions) result["instructions"] = *o.instructions;
    tools_seen_.store(core_->tools_generation.load());
    resources_seen_.store(core_->resources_generation.load());
    prompts_seen_.store(core_->prompts_generation.load());
    initialized_.store(true);
    reply(req.id, result);
  }

  /// Declared capabilities: logging always; tools, resources, prompts only when registered;
  /// completions with prompts or resource templates.
  json::object server_capabilities() const {
    json::object caps;
    const auto& c = core_->catalogs;
    if (!core_->tools.names().empty()) caps["tools"] = json::object{{"listChanged", true}};
    caps["logging"] = json::object{};
    if (!c.resources.empty() || !c.templates.empty()) {
      caps["resources"] = json::object{{"subscribe", true}, {"listChanged", true}};
    }
    if (!c.prompts.empty()) caps["prompts"] = json::object{{"listChanged", true}};
    if (!c.prompts.empty() || !c.templates.empty()) caps["completions"] = json::object{};
    return caps;
  }

  /// Resource subscriptions one session may hold (each costs a stored URI).
  static constexpr std::size_t max_subscriptions = 10000;

  /// The capability a method belongs to ("" for the methods every session has).
  static std::string_view feature_of(std::string_view m) {
    if (m.starts_with("resources/")) return "resources";
    if (m.starts_with("prompts/")) return "prompts";
    if (m == "completion/complete") return "completions";
    return {};
  }

  const resource_catalogs& cat() const { return core_->catalogs; }
  std::size_t ps() const { return core_->opts.page_size; }
  void answer(const jsonrpc::request_id& id, const result<json::object>& r) {
    if (r) return reply(id, *r);
    reply_error(id, r.error());
  }

  /// Answers a request whose work runs user code (resources/read, prompts/get,
  /// completion/complete) on the executor, as tool calls do: a slow handler holds up neither
  /// this session's reader nor an HTTP I/O loop.
  template <class F>
  void answer_on_pool(jsonrpc::request&& req, F work) {
    core_->exec->post([self = shared_from_this(), req = std::move(req), work] {
      if (self->closed_.load()) return;
      self->answer(req.id, work(*self, req));
    });
  }

  void on_subscribe(const jsonrpc::request& req) {
    const auto* u = req.params.if_contains("uri");
    if (!u || !u->is_string()) {
      return reply_error(req.id, invalid_params(req.method + " needs a string \"uri\""));
    }
    std::string uri(u->get_string());
    bool full = false;
    {
      std::lock_guard lock(mu_);
      if (req.method == "resources/unsubscribe") {
        subscriptions_.erase(uri);
      } else if (subscriptions_.size() < max_subscriptions || subscriptions_.contains(uri)) {
        subscriptions_.emplace(std::move(uri));
      } else {
        full = true;
      }
    }
    if (full) {
      return reply_error(
          req.id, error{errc::invalid_request, "Invalid Request: too many resource subscriptions"});
    }
    reply(req.id, json::object{});
  }

  void on_set_level(const jsonrpc::request& req) {
    const auto* l = req.params.if_contains("level");
    auto level = (l && l->is_string()) ? parse_log_level(l->get_string()) : std::nullopt;
    if (!level) {
      return reply_error(req.id, invalid_params("Invalid log level: expected one of debug, info, "
                                                "notice, warning, error, critical, alert, "
                                                "emergency"));
    }
    level_.store(*level);
    reply(req.id, json::object{});
  }

  void on_tools_list(const jsonrpc::request& req) {
    std::optional<std::string> cursor;
    if (const auto* c = req.params.if_contains("cursor")) {
      if (!c->is_string()) return reply_error(req.id, invalid_params("cursor must be a string"));
      cursor = std::string(c->get_string());
    }
    // The whole answer is written into one string: a page can be large.
    std::string message = R"({"jsonrpc":"2.0","id":)";
    jsonrpc::append_id(message, req.id);
    message += R"(,"result":{"tools":)";
    auto page = core_->tools.list(cursor, era_, core_->opts.page_size, message);
    if (!page) return reply_error(req.id, page.error());
    if (page->next_cursor) {
      message += R"(,"nextCursor":)";
      append_json_string(message, *page->next_cursor);
    }
    message += "}}";
    send_final(req.id, std::move(message));
  }

  void on_tools_call(jsonrpc::request&& req) {
    auto& p = req.params;
    const auto* name = p.if_contains("name");
    if (!name || !name->is_string()) {
      return reply_error(req.id, invalid_params("tools/call needs a string \"name\""));
    }
    json::object args;
    if (auto* a = p.if_contains("arguments")) {
      if (!a->is_object()) {
        return reply_error(req.id, invalid_params("tools/call: \"arguments\" must be an object"));
      }
      args = std::move(a->get_object());
    }
    json::object meta;
    if (auto* mt = p.if_contains("_meta"); mt && mt->is_object())
      meta = std::move(mt->get_object());
    auto entry = core_->tools.find(name->get_string());
    if (!entry) {
      return reply_error(req.id,
                         invalid_params("Unknown tool: " + std::string(name->get_string())));
    }
    auto call =
        std::make_shared<call_state>(weak_from_this(), req.id, entry->spec.name, std::move(args),
                                     std::move(meta), who_, entry->spec.run_inline);
    {
      std::lock_guard lock(mu_);
      if (calls_.contains(req.id)) {
        return reply_error(req.id, error{errc::invalid_request,
                                         "Invalid Request: id " + jsonrpc::to_string(req.id) +
                                             " is already in use by a running request"});
      }
      calls_.emplace(req.id, running_call{call, entry});
    }
    run_pipeline(core_->pipeline(), 0, call, std::move(entry));
  }

  void run_pipeline(std::shared_ptr<const std::vector<std::shared_ptr<call_interceptor>>> chain,
                    std::size_t i, const std::shared_ptr<call_state>& call,
                    std::shared_ptr<const tool_entry> entry) {
    if (call->done()) return;
    if (i < chain->size()) {
      auto& interceptor = (*chain)[i];
      interceptor->intercept(tool_call(call), [this, chain, i, call, entry] {
        run_pipeline(chain, i + 1, call, entry);
      });
      return;
    }
    run_handler(call, std::move(entry));
  }

  void run_handler(const std::shared_ptr<call_state>& call,
                   std::shared_ptr<const tool_entry> entry) {
    if (!entry->input_validator->is_valid(call->arguments_value())) {
      auto errors =
          entry->input_validator->validate(call->arguments_value(), json_schema::mode::all_errors);
      std::string msg = "Invalid arguments for tool \"" + call->tool() + "\": ";
      constexpr std::size_t max_shown = 8;
      for (std::size_t k = 0; k < errors.size() && k < max_shown; ++k) {
        if (k > 0) msg += "; ";
        msg += errors[k].message;
      }
      if (errors.size() > max_shown)
        msg += "; and " + std::to_string(errors.size() - max_shown) + " more";
      call->complete(tool_error_result(msg));
      return;
    }
    auto invoke = [call, entry = std::move(entry)] {
      if (call->done()) return;
      tool_context ctx(call);
      try {
        entry->handler(ctx, call->arguments(), responder(call));
      } catch (const error_exception& e) {
        // A thrown -32042 (URL elicitation required) is a protocol answer, not a tool failure.
        if (e.get().is(errc::url_elicitation_required)) {
          call->complete(e.get());
        } else {
          call->complete(tool_error_result(e.what()));
        }
      } catch (const std::exception& e) {
        call->complete(tool_error_result(e.what()));
      } catch (...) {
        call->complete(tool_error_result("the tool failed with an unknown exception"));
      }
    };
    if (call->run_inline()) {
      invoke();
    } else {
      core_->exec->post(std::move(invoke));
    }
  }

  void on_cancelled(const json::object& params) {
    const auto* rid = params.if_contains("requestId");
    if (!rid) return;
    auto id = jsonrpc::id_from_json(*rid);
    if (!id) return;
    std::shared_ptr<call_state> call;
    {
      std::lock_guard lock(mu_);
      auto it = calls_.find(*id);
      if (it == calls_.end()) return;  // unknown or finished: ignore (REQ-101)
      call = std::move(it->second.call);
      calls_.erase(it);
    }
    call->cancelled_by_client = true;
    call->stop_source().request_stop();
    std::string batch;  // the cancelled call leaves its batch unanswered
    if (settle_batched(*id, nullptr, batch) && !batch.empty()) send(std::move(batch));
  }

  /// The capability a server-to-client request needs that the client did not declare.
  std::optional<std::string> missing_capability(std::string_view method,
                                                const json::object& params) const {
    auto declared = [&](std::string_view cap) { return client_caps_.contains(cap); };
    if (method == "sampling/createMessage") {
      if (!declared("sampling")) return "sampling";
      if (params.contains("tools") || params.contains("toolChoice")) {
        const auto* s = client_caps_.if_contains("sampling");
        if (!s->is_object() || !s->get_object().contains("tools")) return "sampling.tools";
      }
    } else if (method == "elicitation/create") {
      if (!declared("elicitation")) return "elicitation";
      const auto* mode = params.if_contains("mode");
      if (mode && mode->is_string() && mode->get_string() == "url") {
        const auto* el = client_caps_.if_contains("elicitation");
        if (!el->is_object() || !el->get_object().contains("url")) return "elicitation.url";
      }
    } else if (method == "roots/list") {
      if (!declared("roots")) return "roots";
    }
    return std::nullopt;
  }

  std::shared_ptr<server_core> core_;
  std::shared_ptr<connection> conn_;
  std::shared_ptr<const principal> who_;

  mutable std::mutex mu_;
  std::atomic<bool> initialized_{false};
  std::atomic<bool> closed_{false};
  std::atomic<std::uint64_t> tools_seen_{0};
  std::atomic<std::uint64_t> resources_seen_{0};
  std::atomic<std::uint64_t> prompts_seen_{0};
  json::object declared_;  ///< the capabilities sent in the InitializeResult
  std::unordered_set<std::string> subscriptions_;  ///< resource URIs (resources/subscribe)
  std::atomic<log_level> level_;
  std::string version_;
  era era_ = era::v2025_11_25;
  json::object client_caps_;
  json::object client_info_;
  std::unordered_map<jsonrpc::request_id, running_call> calls_;
  std::int64_t next_request_id_ = 1;
  std::unordered_map<std::int64_t, std::shared_ptr<waiter>> pending_;
  struct batch_answers {
    std::size_t waiting = 0;           ///< requests not yet answered or cancelled
    std::vector<std::string> answers;  ///< in completion order
  };
  std::unordered_map<jsonrpc::request_id, std::shared_ptr<batch_answers>> batched_;  // under mu_
  std::atomic<std::size_t> open_batches_{0};
};

std::shared_ptr<server_session> make_session(std::shared_ptr<server_core> core,
                                             std::shared_ptr<connection> conn,
                                             session_options opts) {
  auto s = std::make_shared<session_impl>(core, std::move(conn), std::move(opts));
  core->add_session(s);
  return s;
}

void session_notify_tools_changed(session_impl& s, std::uint64_t generation) {
  s.notify_tools_changed(generation);
}

void session_notify_list_changed(session_impl& s, list_kind k, std::uint64_t generation) {
  s.notify_list_changed(k, generation);
}

void session_notify_resource_updated(session_impl& s, const std::string& uri) {
  s.notify_resource_updated(uri);
}

}  // namespace mcp::detail
