// The server's registration API for resources, resource templates and prompts, and the
// notifications they cause: debounced list_changed and resources/updated for subscribers.
#include <stdexcept>

#include "detail/timer.hpp"
#include "server_core.hpp"

namespace mcp {

namespace detail {

std::vector<std::shared_ptr<session_impl>> server_core::live_sessions() const {
  std::vector<std::shared_ptr<session_impl>> live;
  std::lock_guard lock(mu_);
  for (const auto& w : sessions_) {
    if (auto s = w.lock()) live.push_back(std::move(s));
  }
  return live;
}

void server_core::list_changed(list_kind k) {
  auto& generation = k == list_kind::resources ? resources_generation : prompts_generation;
  generation.fetch_add(1);
  {
    std::lock_guard lock(mu_);
    bool& pending = k == list_kind::resources ? resources_pending_ : prompts_pending_;
    if (pending) return;
    pending = true;
  }
  std::weak_ptr<server_core> self = weak_from_this();
  schedule_timer(clock::now() + opts.list_changed_debounce, [self, k] {
    auto core = self.lock();
    if (!core) return;
    {
      std::lock_guard lock(core->mu_);
      (k == list_kind::resources ? core->resources_pending_ : core->prompts_pending_) = false;
    }
    const auto g =
        (k == list_kind::resources ? core->resources_generation : core->prompts_generation).load();
    for (const auto& s : core->live_sessions()) session_notify_list_changed(*s, k, g);
  });
}

}  // namespace detail

void server::add_resource(resource_spec spec, resource_handler handler) {
  if (spec.uri.empty()) throw std::invalid_argument("add_resource: the URI is empty");
  if (spec.name.empty()) {
    throw std::invalid_argument("resource \"" + spec.uri + "\": the name is empty");
  }
  if (!handler) throw std::invalid_argument("resource \"" + spec.uri + "\": handler is empty");
  const auto key = spec.uri;
  auto e = std::make_shared<const detail::resource_entry>(
      detail::resource_entry{std::move(spec), std::move(handler)});
  if (!core_->catalogs.resources.add(key, std::move(e))) {
    throw std::invalid_argument("resource \"" + key + "\" is already registered");
  }
  core_->list_changed(detail::list_kind::resources);
}

void server::add_resource_template(resource_template_spec spec, resource_handler handler) {
  auto tmpl = uri_template::parse(spec.uri_template);
  if (!tmpl) throw std::invalid_argument(tmpl.error().message);
  if (spec.name.empty()) {
    throw std::invalid_argument("resource template \"" + spec.uri_template +
                                "\": the name is empty");
  }
  if (!handler) {
    throw std::invalid_argument("resource template \"" + spec.uri_template +
                                "\": handler is empty");
  }
  const auto key = spec.uri_template;
  auto e = std::make_shared<const detail::template_entry>(
      detail::template_entry{std::move(spec), std::move(*tmpl), std::move(handler)});
  if (!core_->catalogs.templates.add(key, std::move(e))) {
    throw std::invalid_argument("resource template \"" + key + "\" is already registered");
  }
  core_->list_changed(detail::list_kind::resources);
}

bool server::remove_resource(std::string_view uri) {
  const bool removed = core_->catalogs.resources.remove(uri);
  if (removed) core_->list_changed(detail::list_kind::resources);
  return removed;
}

bool server::remove_resource_template(std::string_view uri_template) {
  const bool removed = core_->catalogs.templates.remove(uri_template);
  if (removed) core_->list_changed(detail::list_kind::resources);
  return removed;
}

void server::notify_resource_updated(std::string_view uri) {
  const std::string u(uri);
  for (const auto& s : core_->live_sessions()) detail::session_notify_resource_updated(*s, u);
}

void server::add_prompt(prompt_spec spec, prompt_handler handler) {
  if (spec.name.empty()) throw std::invalid_argument("add_prompt: the name is empty");
  if (!handler) throw std::invalid_argument("prompt \"" + spec.name + "\": handler is empty");
  for (std::size_t i = 0; i < spec.arguments.size(); ++i) {
    const auto& a = spec.arguments[i].name;
    if (a.empty()) {
      throw std::invalid_argument("prompt \"" + spec.name + "\": an argument name is empty");
    }
    for (std::size_t k = 0; k < i; ++k) {
      if (spec.arguments[k].name == a) {
        throw std::invalid_argument("prompt \"" + spec.name + "\": argument \"" + a +
                                    "\" is declared twice");
      }
    }
  }
  const auto key = spec.name;
  auto e = std::make_shared<const detail::prompt_entry>(
      detail::prompt_entry{std::move(spec), std::move(handler)});
  if (!core_->catalogs.prompts.add(key, std::move(e))) {
    throw std::invalid_argument("prompt \"" + key + "\" is already registered");
  }
  core_->list_changed(detail::list_kind::prompts);
}

bool server::remove_prompt(std::string_view name) {
  const bool removed = core_->catalogs.prompts.remove(name);
  if (removed) core_->list_changed(detail::list_kind::prompts);
  return removed;
}

}  // namespace mcp
