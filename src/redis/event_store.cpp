// The Redis event store: one Redis stream per SSE stream (<prefix>sse:<session>:<stream>, entry
// id "<seq>-0", field d), trimmed to max_events_per_stream by XADD MAXLEN, and a set per session
// naming its streams (<prefix>sse:<session>); both expire session_ttl after the last event.
//
// The server appends under its stream's lock, on I/O threads, so appends and erasures go to a
// queue that one writer thread sends in pipelines (one round trip for up to `max_batch` events).
// A read first waits until the writer has sent what this process queued before it, then checks
// that the events it returns follow `after_seq` without a gap: an event lost (dropped from a full
// queue, a failed write, trimmed) makes the replay refused, never silently short.
#include <mcp/redis.hpp>

#include <charconv>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

namespace mcp {

namespace {

constexpr std::size_t max_batch = 128;    // queued operations sent in one pipeline
constexpr std::size_t max_broken = 4096;  // streams remembered as having lost an event

const redis_script erase_script(R"lua(
local streams = redis.call('SMEMBERS', KEYS[1])
for _, n in ipairs(streams) do redis.call('DEL', ARGV[1] .. n) end
redis.call('DEL', KEYS[1])
return #streams
)lua");

class redis_event_store final : public event_store {
 public:
  redis_event_store(std::shared_ptr<redis_client> client, redis_event_store_limits limits)
      : client_(std::move(client)),
        limits_(limits),
        maxlen_(std::to_string(std::max<std::size_t>(limits.max_events_per_stream, 1))),
        ttl_(std::to_string(std::max<std::int64_t>(limits.session_ttl.count(), 1))) {
    writer_ = std::thread([this] { write_loop(); });
  }
  redis_event_store(const redis_event_store&) = delete;
  redis_event_store& operator=(const redis_event_store&) = delete;
  ~redis_event_store() override {
    {
      const std::lock_guard lock(mu_);
      stop_ = true;
    }
    work_.notify_all();
    writer_.join();
  }

  void append(std::string_view session, std::uint64_t stream, std::uint64_t seq,
              std::string_view data) override {
    try {
      op o{false, std::string(session), stream, seq, std::string(data)};
      const std::lock_guard lock(mu_);
      if (queued_bytes_ + data.size() > limits_.max_queued_bytes) {
        mark_broken(stream_key(session, stream));
        return;
      }
      queued_bytes_ += o.data.size();
      queue_.push_back(std::move(o));
      ++queued_;
    } catch (...) {  // no memory for the copy: the event is lost, the replay will say so
      return;
    }
    work_.notify_one();
  }

  std::optional<std::vector<stored_event>> events_after(std::string_view session,
                                                        std::uint64_t stream,
                                                        std::uint64_t after_seq) override {
    try {
      const std::string key = stream_key(session, stream);
      {
        // What this process queued before now must be in Redis first.
        std::unique_lock lock(mu_);
        const std::uint64_t mine = queued_;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        if (!done_.wait_until(lock, deadline, [&] { return sent_ >= mine; })) return std::nullopt;
        if (broken_.count(key) != 0) return std::nullopt;
      }
      const std::string from = "(" + std::to_string(after_seq) + "-0";
      const std::string count = std::to_string(limits_.max_events_per_stream + 1);
      const std::vector<std::vector<std::string_view>> cmds = {
          {"EXISTS", key}, {"XRANGE", key, from, "+", "COUNT", count}};
      auto r = client_->pipeline(cmds);
      if (!r || r->size() != 2) return std::nullopt;
      const redis_reply& exists = (*r)[0];
      const redis_reply& range = (*r)[1];
      if (exists.type != redis_reply::kind::integer || exists.integer != 1) return std::nullopt;
      if (!range.is_array()) return std::nullopt;
      std::vector<stored_event> out;
      out.reserve(range.elements.size());
      std::uint64_t expect = after_seq + 1;
      for (const auto& entry : range.elements) {
        auto ev = read_entry(entry);
        if (!ev || ev->seq != expect) return std::nullopt;  // a gap: an event was lost
        out.push_back(std::move(*ev));
        ++expect;
      }
      return out;
    } catch (...) {
      return std::nullopt;
    }
  }

  void erase_session(std::string_view session) override {
    try {
      op o{true, std::string(session), 0, 0, {}};
      const std::lock_guard lock(mu_);
      queue_.push_back(std::move(o));
      ++queued_;
    } catch (...) {  // the session's keys expire by their ttl
      return;
    }
    work_.notify_one();
  }

 private:
  struct op {
    bool erase = false;
    std::string session;
    std::uint64_t stream = 0;
    std::uint64_t seq = 0;
    std::string data;
  };

  [[nodiscard]] std::string session_key(std::string_view session) const {
    std::string k = client_->key_prefix();
    k += "sse:";
    k += session;
    return k;
  }
  [[nodiscard]] std::string stream_key(std::string_view session, std::uint64_t stream) const {
    std::string k = session_key(session);
    k += ':';
    k += std::to_string(stream);
    return k;
  }

  /// The event in one XRANGE entry ([id, [field, value]]), or nothing.
  static std::optional<stored_event> read_entry(const redis_reply& entry) {
    if (!entry.is_array() || entry.elements.size() != 2 || !entry.elements[0].is_string() ||
        !entry.elements[1].is_array() || entry.elements[1].elements.size() != 2 ||
        !entry.elements[1].elements[1].is_string()) {
      return std::nullopt;
    }
    const std::string& id = entry.elements[0].str;
    stored_event ev;
    const auto [p, ec] = std::from_chars(id.data(), id.data() + id.size(), ev.seq);
    if (ec != std::errc{} ||
        std::string_view(p, static_cast<std::size_t>(id.data() + id.size() - p)) != "-0") {
      return std::nullopt;
    }
    ev.data = entry.elements[1].elements[1].str;
    return ev;
  }

  /// Remembers that `key` lost an event (call with `mu_` held).
  void mark_broken(std::string key) {
    if (broken_.size() >= max_broken) broken_.erase(broken_.begin());
    broken_.insert(std::move(key));
  }

  void write_loop() {
    std::unique_lock lock(mu_);
    for (;;) {
      work_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything was sent
      std::vector<op> batch;
      while (!queue_.empty() && batch.size() < max_batch) {
        queued_bytes_ -= queue_.front().data.size();
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      lock.unlock();
      const auto lost = send(batch);
      lock.lock();
      for (const auto& key : lost) mark_broken(key);
      if (stop_ && !lost.empty()) {
        // Going away while Redis fails: what is left would only wait for its timeouts.
        sent_ += queue_.size();
        queue_.clear();
        queued_bytes_ = 0;
      }
      for (const auto& o : batch) {
        if (o.erase) {
          const std::string prefix = session_key(o.session) + ":";
          for (auto it = broken_.lower_bound(prefix);
               it != broken_.end() && it->compare(0, prefix.size(), prefix) == 0;) {
            it = broken_.erase(it);
          }
        }
      }
      sent_ += batch.size();
      done_.notify_all();
    }
  }

  /// Sends `batch`; returns the stream keys that lost an event.
  std::vector<std::string> send(const std::vector<op>& batch) noexcept {
    std::vector<std::string> lost;
    try {
      std::deque<std::string> keys;  // stable storage for the views below
      std::deque<std::string> seqs;
      std::vector<std::vector<std::string_view>> cmds;
      std::vector<std::size_t> first_cmd;  // of each append, in `cmds`
      for (const auto& o : batch) {
        if (o.erase) {
          // Earlier appends of the batch go first, then the erasure (a script, not pipelined).
          flush(cmds, first_cmd, lost);
          keys.push_back(session_key(o.session));
          keys.push_back(keys.back() + ":");
          const std::string_view k[] = {keys[keys.size() - 2]};
          const std::string_view a[] = {keys.back()};
          (void)client_->eval(erase_script, k, a);
          continue;
        }
        keys.push_back(stream_key(o.session, o.stream));
        const std::string_view stream = keys.back();
        keys.push_back(session_key(o.session));
        const std::string_view set = keys.back();
        seqs.push_back(std::to_string(o.seq) + "-0");
        seqs.push_back(std::to_string(o.stream));
        first_cmd.push_back(cmds.size());
        cmds.push_back({"XADD", stream, "MAXLEN", maxlen_, seqs[seqs.size() - 2], "d", o.data});
        cmds.push_back({"PEXPIRE", stream, ttl_});
        cmds.push_back({"SADD", set, seqs.back()});
        cmds.push_back({"PEXPIRE", set, ttl_});
      }
      flush(cmds, first_cmd, lost);
    } catch (...) {
      // Out of memory: what was not sent is lost; readers find the gap.
    }
    return lost;
  }

  /// Sends the pipelined appends in `cmds` (XADD first in each group of four) and clears them.
  void flush(std::vector<std::vector<std::string_view>>& cmds, std::vector<std::size_t>& first_cmd,
             std::vector<std::string>& lost) {
    if (cmds.empty()) return;
    auto r = client_->pipeline(cmds);
    for (const std::size_t i : first_cmd) {
      const bool ok = r && r->size() == cmds.size() && (*r)[i].is_string();
      if (!ok) lost.emplace_back(cmds[i][1]);
    }
    cmds.clear();
    first_cmd.clear();
  }

  std::shared_ptr<redis_client> client_;
  const redis_event_store_limits limits_;
  const std::string maxlen_;
  const std::string ttl_;
  std::mutex mu_;
  std::condition_variable work_;
  std::condition_variable done_;
  std::deque<op> queue_;
  std::size_t queued_bytes_ = 0;
  std::uint64_t queued_ = 0;  // operations ever queued
  std::uint64_t sent_ = 0;    // operations the writer has finished with
  std::set<std::string> broken_;
  bool stop_ = false;
  std::thread writer_;
};

}  // namespace

result<std::shared_ptr<event_store>> make_redis_event_store(std::shared_ptr<redis_client> client,
                                                            redis_event_store_limits limits) {
  if (!client) return error{errc::invalid_params, "event store: no Redis client"};
  const std::string_view ping[] = {"PING"};
  if (auto r = client->command(ping); !r) {
    return error{errc::internal_error, "event store: " + r.error().message};
  }
  try {
    return std::shared_ptr<event_store>(
        std::make_shared<redis_event_store>(std::move(client), limits));
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("event store: ") + e.what()};
  }
}

result<std::shared_ptr<event_store>> make_redis_event_store(redis_options options,
                                                            redis_event_store_limits limits) {
  auto client = make_redis_client(std::move(options));
  if (!client) return client.error();
  return make_redis_event_store(std::move(*client), limits);
}

}  // namespace mcp
