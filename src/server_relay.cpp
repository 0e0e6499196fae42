// The changes the processes of one service (`server_options::shared`) tell each other: a list
// that changed (tools, resources, prompts) and a resource updated. What a change is: every
// process runs the same registrations, so a change one of them makes at runtime (a tool
// enabled, added or removed, `notify_tools_changed`, `notify_resource_updated`) is announced to
// the listeners of every process: 2025-11-25 sessions whose GET stream it holds and 2026-07-28
// listen streams. The registration itself stays where it was made (see docs/design-cluster.md,
// "Changes"); those a process makes before it serves, alike on every process, are no change.
// A message is "<node> <kind> <what>": the publishing process's name (a process ignores its
// own), 'l' and a list's method or 'u' and a resource's URI.
#include <mcp/shared_state.hpp>

#include <cstdint>
#include <string>
#include <system_error>

#include "detail/random.hpp"
#include "listen.hpp"
#include "resources.hpp"
#include "server_core.hpp"
#include "server_session.hpp"

namespace mcp::detail {

namespace {

constexpr std::string_view changes_topic = "changes";

std::uint64_t random_bits() {
  std::uint64_t r = 0;
  try {
    random_bytes(&r, sizeof r);
  } catch (const std::system_error&) {
    // No randomness: names and numbers only risk meeting another's.
  }
  return r;
}

}  // namespace

std::int64_t shared_request_base() {
  // 2^32 bases, 2^20 requests each: two processes' numbers meet only by a rare chance.
  return static_cast<std::int64_t>((random_bits() & 0xffffffffU) << 20U) + 1;
}

void server_core::listen_shared() {
  if (!opts.shared) return;
  static constexpr char hex[] = "0123456789abcdef";
  auto bits = random_bits();
  node_.assign(16, '0');
  for (auto& c : node_) {
    c = hex[bits & 15U];
    bits >>= 4U;
  }
  std::weak_ptr<server_core> self = weak_from_this();
  shared_sub_ = opts.shared->listen(changes_topic, [self](std::string_view message) {
    if (auto core = self.lock()) core->on_shared_change(message);
  });
}

void server_core::publish_change(char kind, std::string_view what) {
  if (!opts.shared || !shared_sub_) return;
  std::string message;
  message.reserve(node_.size() + 3 + what.size());
  message.append(node_).append(1, ' ').append(1, kind).append(1, ' ').append(what);
  // Redis unreachable: the other processes' listeners miss this change, as a client whose
  // stream broke would; this process's were told.
  (void)opts.shared->publish(changes_topic, message);
}

void server_core::on_shared_change(std::string_view message) {
  if (message.size() < node_.size() + 3 || message.substr(0, node_.size()) == node_) return;
  const char kind = message[node_.size() + 1];
  const auto what = message.substr(node_.size() + 3);
  if (kind == 'u') {
    resources->updated(what);
    listens->resource_updated(what);
    return;
  }
  if (kind != 'l') return;
  for (std::size_t k = 0; k < list_count(); ++k) {
    if (list_methods_[k] == what) tell_list(k);
  }
}

void server_core::tell_list(std::size_t k) {
  const auto generation = generations_[k].fetch_add(1) + 1;
  changes_.fetch_add(1);
  for (const auto& s : live_sessions()) s->notify_list_changed(k, generation, list_methods_[k]);
  listens->list_changed(k, list_methods_[k]);
}

void server_core::resource_updated(std::string_view uri) {
  resources->updated(uri);
  listens->resource_updated(uri);  // 2026-07-28 subscriptions
  publish_change('u', uri);
}

}  // namespace mcp::detail
