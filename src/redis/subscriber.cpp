// The pub/sub thread (see subscriber.hpp).
#include "redis/subscriber.hpp"

#include <algorithm>
#include <vector>

#include "redis/connection.hpp"
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace mcp::redis_detail {

namespace {

using namespace std::chrono_literals;

constexpr auto ping_after = 5s;       // of silence on the connection
constexpr auto dead_after = 15s;      // of silence: the connection is given up
constexpr auto first_backoff = 50ms;  // before reconnecting; doubled up to max_backoff
constexpr auto max_backoff = 2s;

}  // namespace

class subscriber::handle {
 public:
  handle(std::weak_ptr<subscriber> owner, std::shared_ptr<entry> e)
      : owner_(std::move(owner)), e_(std::move(e)) {}
  handle(const handle&) = delete;
  handle& operator=(const handle&) = delete;
  ~handle() {
    {
      const std::lock_guard call(e_->call_mu);  // waits for a running call (not our own)
      e_->live = false;
    }
    if (auto s = owner_.lock()) s->remove(e_);
  }

 private:
  std::weak_ptr<subscriber> owner_;
  std::shared_ptr<entry> e_;
};

subscriber::subscriber(redis_endpoint ep, redis_options opts)
    : ep_(std::move(ep)), opts_(std::move(opts)) {
  if (::pipe2(wake_, O_NONBLOCK | O_CLOEXEC) != 0) wake_[0] = wake_[1] = -1;
}

subscriber::~subscriber() {
  stop();
  for (const int fd : wake_) {
    if (fd >= 0) ::close(fd);
  }
}

void subscriber::wake() const {
  if (wake_[1] < 0) return;
  const char c = 1;
  [[maybe_unused]] const auto n = ::write(wake_[1], &c, 1);  // a full pipe is awake already
}

redis_subscription subscriber::add(std::string channel, callback fn) {
  auto e = std::make_shared<entry>();
  e->channel = channel;
  e->fn = std::move(fn);
  {
    const std::lock_guard lock(mu_);
    entries_.emplace(std::move(channel), e);
    if (!thread_.joinable() && !stop_) {
      // The thread keeps the subscriber alive until it ends, so stopping it from one of its
      // own callbacks (which cannot join) is safe.
      thread_ = std::thread([self = shared_from_this()] { self->run(); });
    }
  }
  wake();
  return std::make_shared<handle>(weak_from_this(), std::move(e));
}

void subscriber::remove(const std::shared_ptr<entry>& e) {
  {
    const std::lock_guard lock(mu_);
    auto [first, last] = entries_.equal_range(e->channel);
    for (auto it = first; it != last; ++it) {
      if (it->second == e) {
        entries_.erase(it);
        break;
      }
    }
  }
  wake();
}

bool subscriber::confirmed(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] {
    return std::all_of(entries_.begin(), entries_.end(),
                       [&](const auto& kv) { return confirmed_.count(kv.first) != 0; });
  });
}

void subscriber::stop() {
  {
    const std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake();
  if (!thread_.joinable()) return;
  if (thread_.get_id() == std::this_thread::get_id()) {
    thread_.detach();
  } else {
    thread_.join();
  }
}

void subscriber::dispatch(const std::string& channel, std::string_view message, bool resubscribed) {
  std::vector<std::shared_ptr<entry>> targets;
  {
    const std::lock_guard lock(mu_);
    auto [first, last] = entries_.equal_range(channel);
    for (auto it = first; it != last; ++it) targets.push_back(it->second);
  }
  for (const auto& e : targets) {
    const std::lock_guard call(e->call_mu);
    if (!e->live) continue;
    try {
      e->fn(message, resubscribed);
    } catch (...) {  // a callback's exception must not end the thread
    }
  }
}

void subscriber::run() {
  std::unique_ptr<connection> conn;
  std::set<std::string> asked;   // SUBSCRIBE sent on this connection
  std::set<std::string> missed;  // subscribed when a connection was lost: told once back
  auto backoff = std::chrono::milliseconds(first_backoff);
  auto last_heard = steady::now();
  auto last_ping = steady::now();
  const auto drop = [&] {
    conn.reset();
    missed.insert(asked.begin(), asked.end());
    asked.clear();
    const std::lock_guard lock(mu_);
    confirmed_.clear();
  };
  const auto pause = [&](std::chrono::milliseconds d) {
    pollfd p{wake_[0], POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(d.count()));
  };
  for (;;) {
    std::set<std::string> desired;
    {
      const std::lock_guard lock(mu_);
      if (stop_) break;
      for (const auto& kv : entries_) desired.insert(kv.first);
    }
    if (!conn) {
      auto c = connection::open(ep_, opts_);
      if (!c) {
        pause(backoff);
        backoff = std::min<std::chrono::milliseconds>(backoff * 2, max_backoff);
        continue;
      }
      conn = std::move(*c);
      backoff = first_backoff;
      last_heard = last_ping = steady::now();
    }
    const auto deadline = steady::now() + opts_.command_timeout;
    bool ok = true;
    for (const auto& ch : desired) {
      if (asked.count(ch) != 0) continue;
      const std::string_view cmd[] = {"SUBSCRIBE", ch};
      ok = ok && conn->send(cmd, deadline).has_value();
      asked.insert(ch);
    }
    for (auto it = asked.begin(); ok && it != asked.end();) {
      if (desired.count(*it) != 0) {
        ++it;
        continue;
      }
      const std::string_view cmd[] = {"UNSUBSCRIBE", *it};
      ok = conn->send(cmd, deadline).has_value();
      missed.erase(*it);
      it = asked.erase(it);
    }
    const auto now = steady::now();
    if (ok && now - last_heard > ping_after && now - last_ping > ping_after) {
      const std::string_view cmd[] = {"PING"};
      ok = conn->send(cmd, deadline).has_value();
      last_ping = now;
    }
    if (!ok || now - last_heard > dead_after) {
      drop();
      continue;
    }
    pollfd p[2] = {{conn->fd(), POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (::poll(p, 2, 1000) < 0) continue;
    if ((p[1].revents & POLLIN) != 0) {
      char buf[64];
      while (::read(wake_[0], buf, sizeof buf) > 0) {
      }
    }
    if (p[0].revents == 0) continue;
    auto got = conn->read_available();
    if (!got) {
      drop();
      continue;
    }
    last_heard = steady::now();
    for (;;) {
      auto r = conn->next_reply();
      if (!r) {
        ok = false;
        break;
      }
      if (!*r) break;
      const redis_reply& m = **r;
      if (!m.is_array() || m.elements.size() < 2 || !m.elements[0].is_string()) {
        ok = false;  // an error reply (e.g. refused credentials) or something unexpected
        break;
      }
      const std::string& kind = m.elements[0].str;
      const std::string& channel = m.elements[1].str;
      if (kind == "message" && m.elements.size() == 3) {
        dispatch(channel, m.elements[2].str, false);
      } else if (kind == "subscribe") {
        {
          const std::lock_guard lock(mu_);
          confirmed_.insert(channel);
        }
        cv_.notify_all();
        if (missed.erase(channel) != 0) dispatch(channel, {}, true);
      } else if (kind == "unsubscribe") {
        const std::lock_guard lock(mu_);
        if (asked.count(channel) == 0) confirmed_.erase(channel);
      }
    }
    if (!ok) drop();
  }
}

}  // namespace mcp::redis_detail
