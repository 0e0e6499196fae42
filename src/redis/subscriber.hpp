// Internal: the pub/sub side of a client. One thread with a connection of its own: it
// (un)subscribes as subscriptions come and go, delivers messages, PINGs an idle connection, and
// after losing the connection reconnects (backing off), subscribes again and tells each
// subscription that messages may have been lost. Callbacks run on that thread with no lock of
// the subscriber held, each under its own subscription's call lock, which a dropped handle
// takes to know that no call is running.
#pragma once

#include <mcp/redis.hpp>

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace mcp::redis_detail {

class subscriber : public std::enable_shared_from_this<subscriber> {
 public:
  using callback = std::function<void(std::string_view message, bool resubscribed)>;

  subscriber(redis_endpoint ep, redis_options opts);
  subscriber(const subscriber&) = delete;
  subscriber& operator=(const subscriber&) = delete;
  ~subscriber();

  /// Adds a subscription (starting the thread the first time).
  redis_subscription add(std::string channel, callback fn);
  /// Waits until Redis confirmed every channel subscribed to so far.
  bool confirmed(std::chrono::milliseconds timeout);
  /// Stops and joins the thread (detaches it when called on that thread).
  void stop();

 private:
  struct entry {
    std::string channel;
    callback fn;
    std::recursive_mutex call_mu;  // held while `fn` runs
    bool live = true;
  };
  class handle;

  void run();
  void remove(const std::shared_ptr<entry>& e);
  void wake() const;
  /// Calls every live subscription of `channel`.
  void dispatch(const std::string& channel, std::string_view message, bool resubscribed);

  const redis_endpoint ep_;
  const redis_options opts_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::multimap<std::string, std::shared_ptr<entry>> entries_;
  std::set<std::string> confirmed_;  // on the current connection
  bool stop_ = false;
  std::thread thread_;
  int wake_[2] = {-1, -1};
};

}  // namespace mcp::redis_detail
