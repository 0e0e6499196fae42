// The bounded in-memory event store: per (session, stream) a deque of events, a global byte
// budget, and eviction of the least recently appended streams when the budget is exceeded.
#include <mcp/http_server.hpp>

#include <deque>
#include <list>
#include <mutex>
#include <unordered_map>

namespace mcp {
namespace {

class memory_event_store final : public event_store {
 public:
  explicit memory_event_store(memory_event_store_limits limits) : limits_(limits) {}

  void append(std::string_view session, std::uint64_t stream, std::uint64_t seq,
              std::string_view data) override {
    std::lock_guard lock(mu_);
    auto key = key_of(session, stream);
    auto it = streams_.find(key);
    if (it == streams_.end()) {
      lru_.push_back(key);
      it = streams_.emplace(std::move(key), entry{}).first;
      it->second.pos = std::prev(lru_.end());
      it->second.session = std::string(session);
    } else {
      lru_.splice(lru_.end(), lru_, it->second.pos);  // most recently used last
    }
    auto& e = it->second;
    e.events.push_back(stored_event{seq, std::string(data)});
    bytes_ += data.size();
    while (e.events.size() > limits_.max_events_per_stream) {
      e.dropped_up_to = e.events.front().seq;
      bytes_ -= e.events.front().data.size();
      e.events.pop_front();
    }
    while (bytes_ > limits_.max_bytes && lru_.size() > 1) evict_oldest();
  }

  std::optional<std::vector<stored_event>> events_after(std::string_view session,
                                                        std::uint64_t stream,
                                                        std::uint64_t after_seq) override {
    std::lock_guard lock(mu_);
    auto it = streams_.find(key_of(session, stream));
    if (it == streams_.end()) return std::nullopt;
    const auto& e = it->second;
    if (after_seq < e.dropped_up_to) return std::nullopt;  // some were evicted
    std::vector<stored_event> out;
    for (const auto& ev : e.events) {
      if (ev.seq > after_seq) out.push_back(ev);
    }
    return out;
  }

  void erase_session(std::string_view session) override {
    std::lock_guard lock(mu_);
    for (auto it = streams_.begin(); it != streams_.end();) {
      if (it->second.session == session) {
        for (const auto& ev : it->second.events) bytes_ -= ev.data.size();
        lru_.erase(it->second.pos);
        it = streams_.erase(it);
      } else {
        ++it;
      }
    }
  }

 private:
  struct entry {
    std::string session;
    std::deque<stored_event> events;
    std::uint64_t dropped_up_to = 0;  // events with seq <= this are gone
    std::list<std::string>::iterator pos;
  };

  static std::string key_of(std::string_view session, std::uint64_t stream) {
    std::string k(session);
    k += '\x1f';
    k += std::to_string(stream);
    return k;
  }

  void evict_oldest() {
    auto it = streams_.find(lru_.front());
    if (it != streams_.end()) {
      for (const auto& ev : it->second.events) bytes_ -= ev.data.size();
      streams_.erase(it);
    }
    lru_.pop_front();
  }

  memory_event_store_limits limits_;
  std::mutex mu_;
  std::unordered_map<std::string, entry> streams_;
  std::list<std::string> lru_;
  std::size_t bytes_ = 0;
};

}  // namespace

std::shared_ptr<event_store> make_memory_event_store(memory_event_store_limits limits) {
  return std::make_shared<memory_event_store>(limits);
}

}  // namespace mcp
