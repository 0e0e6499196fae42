// `make_redis_shared_state`: what the processes of one service share (mcp/shared_state.hpp), in
// one Redis: the task and event stores on the same client, session records, the input-round
// key and single-use records, token buckets refilled by Redis's own clock (so processes
// whose clocks differ still agree), and messages between processes on channels
// `<prefix>relay:<topic>` (pub/sub on the client's subscriber thread).
#include <mcp/redis.hpp>

#include <cstdio>
#include <string>
#include <system_error>

#include "detail/random.hpp"

namespace mcp {

namespace {

/// A token bucket: refills for the time since it was last touched (Redis's TIME), takes a
/// token, keeps the bucket until it would be full again. Returns 0, or the milliseconds until
/// a token will be there. KEYS[1] the bucket; ARGV per second, burst.
const redis_script take_token_script(R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(b[1])
local ts = tonumber(b[2])
if tokens == nil or ts == nil then
  tokens = burst
  ts = now
end
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate / 1000)
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
else
  wait = math.floor((1 - tokens) / rate * 1000) + 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return wait
)lua");

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

class redis_shared_state final : public shared_state {
 public:
  redis_shared_state(std::shared_ptr<redis_client> client, redis_shared_state_options more,
                     std::shared_ptr<task_store> tasks, std::shared_ptr<event_store> events,
                     std::string key)
      : client_(std::move(client)),
        prefix_(client_->key_prefix()),
        ttl_(std::to_string(std::max<long long>(1, more.session_ttl.count()))),
        tasks_(std::move(tasks)),
        events_(std::move(events)),
        key_(std::move(key)) {}

  std::shared_ptr<task_store> tasks() override { return tasks_; }
  std::shared_ptr<event_store> events() override { return events_; }

  result<void> save_session(std::string_view id, std::string_view record) override {
    const auto key = session_key(id);
    auto r = client_->command({"SET", key, record, "PX", ttl_});
    if (!r) return r.error();
    return {};
  }

  result<std::optional<std::string>> load_session(std::string_view id) override {
    const auto key = session_key(id);
    auto r = client_->command({"GET", key});
    if (!r) return r.error();
    if (r->is_nil()) return std::optional<std::string>{};
    if (!r->is_string()) return error{errc::internal_error, "redis: a session record not a string"};
    return std::optional<std::string>(std::move(r->str));
  }

  result<bool> touch_session(std::string_view id) override {
    const auto key = session_key(id);
    auto r = client_->command({"PEXPIRE", key, ttl_});
    if (!r) return r.error();
    return r->integer == 1;
  }

  void erase_session(std::string_view id) override {
    const auto key = session_key(id);
    (void)client_->command({"DEL", key});
  }

  std::string sealing_key() const override { return key_; }

  result<bool> first_use(std::string_view nonce,
                         std::chrono::system_clock::time_point expires) override {
    const auto key = prefix_ + "rounds:used:" + std::string(nonce);
    const auto at = std::to_string(std::max<long long>(
        1,
        std::chrono::duration_cast<std::chrono::milliseconds>(expires.time_since_epoch()).count()));
    auto r = client_->command({"SET", key, "1", "NX", "PXAT", at});
    if (!r) return r.error();
    return !r->is_nil();
  }

  result<long long> take_token(std::string_view key, double per_second, double burst) override {
    if (!(per_second > 0) || !(burst >= 1)) {
      return error{errc::invalid_params, "rate limit: per_second > 0 and burst >= 1 needed"};
    }
    const auto k = prefix_ + std::string(key);
    const std::string_view keys[] = {k};
    const auto rate = number(per_second);
    const auto size = number(burst);
    const std::string_view args[] = {rate, size};
    auto r = client_->eval(take_token_script, keys, args);
    if (!r) return r.error();
    return static_cast<long long>(r->integer);
  }

  result<void> publish(std::string_view topic, std::string_view message) override {
    const auto channel = relay_channel(topic);
    auto r = client_->command({"PUBLISH", channel, message});
    if (!r) return r.error();
    return {};
  }

  std::shared_ptr<void> listen(std::string_view topic,
                               std::function<void(std::string_view)> on_message) override {
    if (!on_message) return nullptr;
    auto sub = client_->subscribe(
        relay_channel(topic),
        [fn = std::move(on_message)](std::string_view message, bool resubscribed) {
          // Messages published while the subscriber reconnected are lost: what they carried
          // (a client's answer, a notification) is missed, as a dropped SSE connection would.
          if (!resubscribed) fn(message);
        });
    (void)client_->subscribed(std::chrono::milliseconds(500));
    return sub;
  }

 private:
  [[nodiscard]] std::string relay_channel(std::string_view topic) const {
    return prefix_ + "relay:" + std::string(topic);
  }

  [[nodiscard]] std::string session_key(std::string_view id) const {
    return prefix_ + "session:" + std::string(id);
  }

  std::shared_ptr<redis_client> client_;
  std::string prefix_;
  std::string ttl_;  ///< session_ttl in ms, as text
  std::shared_ptr<task_store> tasks_;
  std::shared_ptr<event_store> events_;
  std::string key_;
};

/// The service's input-round key: set once by whichever process comes first, read by all.
result<std::string> shared_key(redis_client& client) {
  std::string fresh(32, '\0');
  try {
    detail::random_bytes(fresh.data(), fresh.size());
  } catch (const std::system_error&) {
    return error{errc::internal_error, "getrandom failed"};
  }
  const auto key = client.key_prefix() + "rounds:key";
  if (auto r = client.command({"SET", key, fresh, "NX"}); !r) return r.error();
  auto r = client.command({"GET", key});
  if (!r) return r.error();
  if (!r->is_string() || r->str.size() != 32) {
    return error{errc::internal_error, "redis: " + key + " is not a 32-byte key"};
  }
  return std::move(r->str);
}

}  // namespace

result<std::shared_ptr<shared_state>> make_redis_shared_state(std::shared_ptr<redis_client> client,
                                                              redis_shared_state_options more) {
  if (!client) return error{errc::invalid_params, "shared state: no Redis client"};
  auto tasks = make_redis_task_store(client);
  if (!tasks) return tasks.error();
  auto events = make_redis_event_store(client, more.events);
  if (!events) return events.error();
  auto key = shared_key(*client);
  if (!key) return error{errc::internal_error, "shared state: " + key.error().message};
  try {
    return std::shared_ptr<shared_state>(std::make_shared<redis_shared_state>(
        std::move(client), more, std::move(*tasks), std::move(*events), std::move(*key)));
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("shared state: ") + e.what()};
  }
}

result<std::shared_ptr<shared_state>> make_redis_shared_state(redis_options options,
                                                              redis_shared_state_options more) {
  auto client = make_redis_client(std::move(options));
  if (!client) return client.error();
  return make_redis_shared_state(std::move(*client), more);
}

}  // namespace mcp
