// The Redis task queue (mcp/redis_task_queue.hpp): the Redis task store, forwarded to, plus a
// list of queued ids, a sorted set of leases (score: when each runs out) and a hash naming the
// node holding each lease. Taking a task is one Lua script (leases that ran out first, then the
// queue's oldest id; ended or expired tasks dropped on the way), so two processes never take the
// same task while its lease lasts. A push is announced on a channel that wakes every waiting
// `take`; without one, `take` waits until its timeout (the server wakes at least every third of
// a lease to renew, which also finds leases that ran out).
#include <mcp/redis_task_queue.hpp>

#include <atomic>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <random>

#include "detail/task_store_common.hpp"
#include "redis/task_scripts.hpp"
#include <unistd.h>

namespace mcp {

namespace {

using namespace redis_detail;

/// KEYS: queue, leases, holders. ARGV: prefix, node, now, lease. Returns {id, owner, status,
/// rerun, taken over (0/1)}, or 1 when it should be called again at once (many dropped
/// entries), or nil when nothing is queued.
const redis_script take_script(task_lua(R"lua(
local now, lease = tonumber(ARGV[3]), tonumber(ARGV[4])
local function claim(id, taken)
  local key = ARGV[1] .. 'task:' .. id
  local v = redis.call('HMGET', key, 'o', 's', 'r', 'e')
  if not v[1] or terminal(v[2]) or (v[4] and v[4] ~= '' and tonumber(v[4]) <= now) then
    return nil
  end
  redis.call('ZADD', KEYS[2], now + lease, id)
  redis.call('HSET', KEYS[3], id, ARGV[2])
  if v[2] == 'working' and taken == 0 then redis.call('HSET', key, 'm', '') end
  return {id, v[1], v[2], v[3] or '{}', taken}
end
for _ = 1, 100 do
  local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 1)
  if #due == 0 then break end
  redis.call('ZREM', KEYS[2], due[1])
  redis.call('HDEL', KEYS[3], due[1])
  local r = claim(due[1], 1)
  if r then return r end
end
for _ = 1, 100 do
  local id = redis.call('RPOP', KEYS[1])
  if not id then return false end
  local r = claim(id, 0)
  if r then return r end
end
return 1
)lua"));

/// KEYS: queue. ARGV: id, channel.
const redis_script push_script(R"lua(
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[2], '1')
return 1
)lua");

/// KEYS: leases, holders. ARGV: node, until, ids... Returns how many leases were extended.
const redis_script renew_script(R"lua(
local n = 0
for i = 3, #ARGV do
  if redis.call('HGET', KEYS[2], ARGV[i]) == ARGV[1] then
    redis.call('ZADD', KEYS[1], 'XX', ARGV[2], ARGV[i])
    n = n + 1
  end
end
return n
)lua");

/// KEYS: leases, holders. ARGV: prefix, node, id, channel. Returns 0 (not held by node), 1
/// (released), 2 (unfinished: given back, to be taken over).
const redis_script release_script(task_lua(R"lua(
if redis.call('HGET', KEYS[2], ARGV[3]) ~= ARGV[2] then return 0 end
local s = redis.call('HGET', ARGV[1] .. 'task:' .. ARGV[3], 's')
if s and not terminal(s) then
  redis.call('ZADD', KEYS[1], 0, ARGV[3])
  redis.call('PUBLISH', ARGV[4], '1')
  return 2
end
redis.call('ZREM', KEYS[1], ARGV[3])
redis.call('HDEL', KEYS[2], ARGV[3])
return 1
)lua"));

error storage(const error& e) { return error{errc::internal_error, "task queue: " + e.message}; }

std::string default_node() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::random_device rd;
  const auto r = (static_cast<std::uint64_t>(rd()) << 32U) | rd();
  char tail[17];
  std::snprintf(tail, sizeof tail, "%016llx", static_cast<unsigned long long>(r));
  return std::string(host) + ":" + std::to_string(::getpid()) + ":" + tail;
}

std::string now_text() {
  return std::to_string(detail::to_epoch_ms(std::chrono::system_clock::now()));
}

class redis_task_queue final : public task_store, public task_queue {
 public:
  redis_task_queue(std::shared_ptr<redis_client> client, std::shared_ptr<task_store> store,
                   redis_task_queue_options o)
      : client_(std::move(client)),
        store_(std::move(store)),
        opts_(std::move(o)),
        prefix_(client_->key_prefix()),
        queue_key_(prefix_ + "tasks:queue"),
        leases_key_(prefix_ + "tasks:leases"),
        holders_key_(prefix_ + "tasks:holders"),
        channel_(prefix_ + "tasks:queued") {
    if (opts_.node.empty()) opts_.node = default_node();
  }

  /// Subscribes to pushes (wakes waiting takers).
  void start() {
    sub_ = client_->subscribe(channel_, [this](std::string_view, bool) {
      {
        std::lock_guard lock(mu_);
        ++pushes_;
      }
      cv_.notify_all();
    });
    (void)client_->subscribed(std::chrono::milliseconds(500));
  }
  ~redis_task_queue() override { sub_.reset(); }  // before the members its callback uses
  redis_task_queue(const redis_task_queue&) = delete;
  redis_task_queue& operator=(const redis_task_queue&) = delete;

  // ---- task_store: the Redis store's ----
  result<void> create(const task_record& t) override { return store_->create(t); }
  result<std::optional<task_record>> get(std::string_view id, std::string_view owner) override {
    return store_->get(id, owner);
  }
  result<std::optional<task_record>> update(std::string_view id, std::string_view owner,
                                            const task_update& u) override {
    return store_->update(id, owner, u);
  }
  result<task_page> list(std::string_view owner, std::string_view cursor,
                         std::size_t limit) override {
    return store_->list(owner, cursor, limit);
  }
  result<std::size_t> purge_expired(std::chrono::system_clock::time_point now) override {
    return store_->purge_expired(now);
  }
  result<std::size_t> fail_unfinished(std::string_view message) override {
    return store_->fail_unfinished(message);
  }
  result<std::vector<task_record>> unfinished() override { return store_->unfinished(); }
  std::shared_ptr<void> watch(std::function<void(std::string_view)> on_change) override {
    return store_->watch(std::move(on_change));
  }
  [[nodiscard]] bool shared_between_processes() const noexcept override { return true; }

  // ---- task_queue ----
  [[nodiscard]] std::size_t workers() const noexcept override { return opts_.workers; }
  [[nodiscard]] std::chrono::milliseconds lease() const noexcept override { return opts_.lease; }

  result<void> push(std::string_view id) override try {
    const std::string_view keys[] = {queue_key_};
    const std::string_view args[] = {id, channel_};
    if (auto r = client_->eval(push_script, keys, args); !r) return storage(r.error());
    return {};
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("task queue: ") + e.what()};
  }

  result<std::optional<queued_task>> take(std::chrono::milliseconds wait) override try {
    const auto deadline = std::chrono::steady_clock::now() + wait;
    std::uint64_t interrupts = 0;
    {
      std::lock_guard lock(mu_);
      interrupts = interrupts_;
    }
    for (;;) {
      std::uint64_t seen = 0;
      {
        std::lock_guard lock(mu_);
        seen = pushes_;
      }
      bool again = false;
      auto got = take_once(again);
      if (!got) return got.error();
      if (*got) return got;
      if (again) continue;
      std::unique_lock lock(mu_);
      if (!cv_.wait_until(lock, deadline,
                          [&] { return pushes_ != seen || interrupts_ != interrupts; })) {
        return std::optional<queued_task>{};
      }
      if (interrupts_ != interrupts) return std::optional<queued_task>{};
    }
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("task queue: ") + e.what()};
  }

  result<void> renew(std::span<const std::string> ids) override try {
    if (ids.empty()) return {};
    const std::string until =
        std::to_string(detail::to_epoch_ms(std::chrono::system_clock::now()) + opts_.lease.count());
    const std::string_view keys[] = {leases_key_, holders_key_};
    std::vector<std::string_view> args{opts_.node, until};
    for (const auto& id : ids) args.emplace_back(id);
    if (auto r = client_->eval(renew_script, keys, args); !r) return storage(r.error());
    return {};
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("task queue: ") + e.what()};
  }

  result<void> release(std::string_view id) override try {
    const std::string_view keys[] = {leases_key_, holders_key_};
    const std::string_view args[] = {prefix_, opts_.node, id, channel_};
    if (auto r = client_->eval(release_script, keys, args); !r) return storage(r.error());
    return {};
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("task queue: ") + e.what()};
  }

  void interrupt() override {
    {
      std::lock_guard lock(mu_);
      ++interrupts_;
    }
    cv_.notify_all();
  }

 private:
  /// One run of the take script; `again` set when it should run again at once.
  result<std::optional<queued_task>> take_once(bool& again) {
    const std::string now = now_text();
    const std::string lease = std::to_string(opts_.lease.count());
    const std::string_view keys[] = {queue_key_, leases_key_, holders_key_};
    const std::string_view args[] = {prefix_, opts_.node, now, lease};
    auto r = client_->eval(take_script, keys, args);
    if (!r) return storage(r.error());
    if (r->is_nil()) return std::optional<queued_task>{};
    if (r->type == redis_reply::kind::integer) {
      again = true;
      return std::optional<queued_task>{};
    }
    const auto& e = r->elements;
    if (!r->is_array() || e.size() != 5 || !e[0].is_string() || !e[1].is_string() ||
        !e[2].is_string() || !e[3].is_string() || e[4].type != redis_reply::kind::integer) {
      return error{errc::internal_error, "task queue: Redis answered a take unexpectedly"};
    }
    queued_task t;
    t.id = e[0].str;
    t.owner = e[1].str;
    const auto status = task_status_from_string(e[2].str);
    if (!status) return error{errc::internal_error, "task queue: a task has a corrupt status"};
    t.status = *status;
    auto rerun = parse_json(e[3].str, json_limits{std::numeric_limits<std::size_t>::max(), 1024});
    if (rerun && rerun->is_object()) t.rerun = std::move(rerun->as_object());
    t.taken_over = e[4].integer != 0;
    return std::optional<queued_task>{std::move(t)};
  }

  std::shared_ptr<redis_client> client_;
  std::shared_ptr<task_store> store_;
  redis_task_queue_options opts_;
  const std::string prefix_;
  const std::string queue_key_;
  const std::string leases_key_;
  const std::string holders_key_;
  const std::string channel_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::uint64_t pushes_ = 0;
  std::uint64_t interrupts_ = 0;
  redis_subscription sub_;
};

}  // namespace

result<std::shared_ptr<task_store>> make_redis_task_queue(std::shared_ptr<redis_client> client,
                                                          redis_task_queue_options queue) {
  if (queue.workers == 0) return error{errc::invalid_params, "task queue: workers must be > 0"};
  if (queue.lease < std::chrono::milliseconds(100)) {
    return error{errc::invalid_params, "task queue: the lease must be at least 100 ms"};
  }
  auto store = make_redis_task_store(client);
  if (!store) return store.error();
  try {
    auto q =
        std::make_shared<redis_task_queue>(std::move(client), std::move(*store), std::move(queue));
    q->start();
    return std::shared_ptr<task_store>(std::move(q));
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("task queue: ") + e.what()};
  }
}

result<std::shared_ptr<task_store>> make_redis_task_queue(redis_options options,
                                                          redis_task_queue_options queue) {
  auto client = make_redis_client(std::move(options));
  if (!client) return client.error();
  return make_redis_task_queue(std::move(*client), std::move(queue));
}

}  // namespace mcp
