// The Redis client: a pool of connections opened when first needed (at most `pool_size`), each
// checked before it is lent (a connection Redis closed while it sat idle is replaced, so a command
// is never sent on a dead one and never sent twice), scripts by EVALSHA, and the subscriber.
// After a failed connect the pool answers at once for a short while instead of making every
// caller wait for its own connect timeout.
#include <mcp/redis.hpp>

#include <condition_variable>
#include <mutex>
#include <utility>
#include <vector>

#include "redis/connection.hpp"
#include "redis/subscriber.hpp"

namespace mcp {

namespace {

using redis_detail::connection;
using redis_detail::steady;
using namespace std::chrono_literals;

/// How long the pool answers at once after a failed connect.
constexpr auto fail_fast_for = 100ms;

class pool_client final : public redis_client {
 public:
  pool_client(redis_endpoint ep, redis_options opts)
      : ep_(std::move(ep)),
        opts_(std::move(opts)),
        sub_(std::make_shared<redis_detail::subscriber>(ep_, opts_)) {
    idle_.reserve(opts_.pool_size);
  }
  pool_client(const pool_client&) = delete;
  pool_client& operator=(const pool_client&) = delete;
  ~pool_client() override { sub_->stop(); }

  result<redis_reply> command(std::span<const std::string_view> args) override {
    if (args.empty()) return error{errc::invalid_params, "redis: a command needs a name"};
    auto r = with_connection(
        [&](connection& c, steady::time_point deadline) { return c.exchange_one(args, deadline); });
    if (!r) return r.error();
    if (r->type == redis_reply::kind::error) return redis_detail::error_reply(*r);
    return r;
  }

  result<std::vector<redis_reply>> pipeline(
      std::span<const std::vector<std::string_view>> commands) override {
    if (commands.empty()) return std::vector<redis_reply>{};
    return with_connection(
        [&](connection& c, steady::time_point deadline) { return c.exchange(commands, deadline); });
  }

  result<redis_reply> eval(const redis_script& script, std::span<const std::string_view> keys,
                           std::span<const std::string_view> args) override {
    std::string sha = script.sha();
    if (sha.empty()) {
      const std::string_view load[] = {"SCRIPT", "LOAD", script.source()};
      auto r = command(load);
      if (!r) return r.error();
      if (!r->is_string() || r->str.size() != 40) {
        return error{errc::internal_error, "redis: SCRIPT LOAD answered no SHA1"};
      }
      sha = r->str;
      script.set_sha(sha);
    }
    const std::string nkeys = std::to_string(keys.size());
    std::vector<std::string_view> cmd;
    cmd.reserve(3 + keys.size() + args.size());
    cmd.insert(cmd.end(), {"EVALSHA", sha, nkeys});
    cmd.insert(cmd.end(), keys.begin(), keys.end());
    cmd.insert(cmd.end(), args.begin(), args.end());
    auto r = with_connection(
        [&](connection& c, steady::time_point deadline) { return c.exchange_one(cmd, deadline); });
    if (!r) return r.error();
    if (r->type == redis_reply::kind::error && r->str.rfind("NOSCRIPT", 0) == 0) {
      // Redis lost its script cache (a restart, SCRIPT FLUSH): EVAL runs and caches it again.
      cmd[0] = "EVAL";
      cmd[1] = script.source();
      r = with_connection([&](connection& c, steady::time_point deadline) {
        return c.exchange_one(cmd, deadline);
      });
      if (!r) return r.error();
    }
    if (r->type == redis_reply::kind::error) return redis_detail::error_reply(*r);
    return r;
  }

  redis_subscription subscribe(
      std::string channel,
      std::function<void(std::string_view message, bool resubscribed)> on_message) override {
    try {
      return sub_->add(std::move(channel), std::move(on_message));
    } catch (...) {  // no memory, or no thread could start
      return nullptr;
    }
  }

  bool subscribed(std::chrono::milliseconds timeout) override { return sub_->confirmed(timeout); }

  [[nodiscard]] const std::string& key_prefix() const noexcept override { return opts_.key_prefix; }

 private:
  /// Gives a lent connection back when it goes out of scope, whatever happens.
  struct lent {
    lent(pool_client* p, std::unique_ptr<connection> conn) : pool(p), c(std::move(conn)) {}
    pool_client* pool;
    std::unique_ptr<connection> c;
    lent(const lent&) = delete;
    lent& operator=(const lent&) = delete;
    ~lent() { pool->release(std::move(c)); }
  };

  /// Runs `f` on a connection of the pool, before the command timeout.
  template <class F>
  auto with_connection(F&& f) noexcept -> decltype(f(std::declval<connection&>(), steady::now())) {
    try {
      const auto deadline = steady::now() + opts_.command_timeout;
      auto c = acquire(deadline);
      if (!c) return c.error();
      const lent l{this, std::move(*c)};
      return f(*l.c, deadline);
    } catch (const std::exception& e) {  // an allocation failure
      return error{errc::internal_error, std::string("redis: ") + e.what()};
    }
  }

  result<std::unique_ptr<connection>> acquire(steady::time_point deadline) {
    std::unique_lock lock(mu_);
    for (;;) {
      while (!idle_.empty()) {
        auto c = std::move(idle_.back());
        idle_.pop_back();
        if (c->usable()) return c;
        --open_;  // closed by Redis while idle: replaced below
      }
      if (open_ < opts_.pool_size) break;
      if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && idle_.empty() &&
          open_ >= opts_.pool_size) {
        return error{errc::request_timeout, "redis: no free connection within the timeout"};
      }
    }
    if (steady::now() < down_until_) {
      return error{errc::connection_closed, last_failure_};
    }
    ++open_;
    lock.unlock();
    auto c = connection::open(ep_, opts_);
    if (c) return c;
    lock.lock();
    --open_;
    down_until_ = steady::now() + fail_fast_for;
    last_failure_ = c.error().message;
    cv_.notify_one();
    return c.error();
  }

  void release(std::unique_ptr<connection> c) noexcept {
    const std::lock_guard lock(mu_);
    try {
      if (!c->broken()) idle_.push_back(std::move(c));
    } catch (...) {  // no room to keep it: closed below
    }
    if (c) {
      --open_;
      c.reset();
    }
    cv_.notify_one();
  }

  const redis_endpoint ep_;
  const redis_options opts_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<connection>> idle_;
  std::size_t open_ = 0;  // idle and lent
  steady::time_point down_until_{};
  std::string last_failure_;
  std::shared_ptr<redis_detail::subscriber> sub_;
};

}  // namespace

result<std::shared_ptr<redis_client>> make_redis_client(redis_options options) {
  auto ep = parse_redis_url(options.url);
  if (!ep) return ep.error();
  if (options.pool_size == 0) return error{errc::invalid_params, "redis: pool_size must be > 0"};
  if (options.command_timeout.count() <= 0 || options.connect_timeout.count() <= 0) {
    return error{errc::invalid_params, "redis: the timeouts must be positive"};
  }
  try {
    return std::shared_ptr<redis_client>(
        std::make_shared<pool_client>(std::move(*ep), std::move(options)));
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("redis: ") + e.what()};
  }
}

}  // namespace mcp
