// The OTLP/HTTP exporter's queue and thread (mcp/observe/otlp.hpp). Callers only take the queue's
// lock (`queue_lock`: an atomic exchange each way when it is free) to push a span (the thread
// holds it only to take the queue's blocks out and give emptied ones and sent spans' records
// back) and wake the thread only when a block (a batch) is full; the thread also wakes every
// `batch_delay` and `metrics_interval`, and waits, and is woken, under a mutex of its own. The
// queue holds pointers to the spans' records (span_node.hpp): a tracer's span is queued as the
// pointer to the record it wrote, and the record goes back to a thread that queues spans, for a
// later span, once sent. HTTP goes through one `http_detail::fetch_connection`, kept open from one
// request to the next.
#include <mcp/observe/otlp.hpp>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <ctime>
#include <deque>
#include <mutex>
#include <random>
#include <span>
#include <thread>

#include "http/fetch.hpp"
#include "observe/otlp_answer.hpp"
#include "observe/span_node.hpp"

namespace mcp::observe {

namespace {

using steady = std::chrono::steady_clock;

/// The queue's lock: one compare-exchange to take it and one exchange to give it back when no one
/// waits (a std::mutex's pthread calls cost several times that, once per span queued); a thread
/// that finds it held sleeps on the atomic (a futex) until the holder lets it go, as on a mutex.
/// Held only to move pointers. Never throws.
class queue_lock {
 public:
  void lock() noexcept {
    int free = 0;
    if (state_.compare_exchange_strong(free, 1, std::memory_order_acquire)) return;
    // Held: mark it waited for (2), so that the holder wakes a sleeper when it lets it go.
    while (state_.exchange(2, std::memory_order_acquire) != 0) {
      state_.wait(2, std::memory_order_relaxed);
    }
  }
  void unlock() noexcept {
    if (state_.exchange(0, std::memory_order_release) == 2) state_.notify_one();
  }

 private:
  std::atomic<int> state_{0};  ///< 0 free, 1 held, 2 held and maybe waited for
};

bool retryable(unsigned status) {
  return status == 429 || status == 502 || status == 503 || status == 504;
}

}  // namespace

std::optional<std::chrono::seconds> parse_retry_after(std::string_view v,
                                                      std::chrono::system_clock::time_point now) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  if (v.empty()) return std::nullopt;
  if (std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (v.size() > 9) return std::chrono::seconds(999'999'999);
    long long s = 0;
    std::from_chars(v.data(), v.data() + v.size(), s);
    return std::chrono::seconds(s);
  }
  // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT".
  if (v.size() != 29 || v.substr(3, 2) != ", " || v.substr(25) != " GMT") return std::nullopt;
  static constexpr std::string_view months = "JanFebMarAprMayJunJulAugSepOctNovDec";
  const auto num = [&v](std::size_t at, std::size_t n, int& out) {
    const auto r = std::from_chars(v.data() + at, v.data() + at + n, out);
    return r.ec == std::errc{} && r.ptr == v.data() + at + n;
  };
  std::tm tm{};
  int day = 0, year = 0, hour = 0, minute = 0, second = 0;
  const auto month = months.find(v.substr(8, 3));
  if (!num(5, 2, day) || !num(12, 4, year) || !num(17, 2, hour) || !num(20, 2, minute) ||
      !num(23, 2, second) || month == std::string_view::npos || month % 3 != 0 || v[7] != ' ' ||
      v[11] != ' ' || v[16] != ' ' || v[19] != ':' || v[22] != ':') {
    return std::nullopt;
  }
  tm.tm_mday = day;
  tm.tm_mon = static_cast<int>(month / 3);
  tm.tm_year = year - 1900;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  // In seconds: a date past the year 2262 would overflow the clock's nanoseconds.
  const auto d = static_cast<long long>(timegm(&tm)) -
                 static_cast<long long>(std::chrono::system_clock::to_time_t(now));
  return std::chrono::seconds(std::clamp(d, 0LL, 999'999'999LL));
}

struct otlp_exporter::impl {
  otlp_options opts;
  std::string traces_url;
  std::string metrics_url;

  /// The thread's waits and wakes, flushes and the end (`stopping`, `abandon`, `exited`,
  /// `flush_*`). Taken before `ql` when both are.
  std::mutex mu;
  std::condition_variable wake;      // the thread
  std::condition_variable finished;  // flush waiters
  /// The queue, its spare blocks and the kept records (`queue` to `free_records`), and
  /// `stopping` (written under both locks).
  queue_lock ql;
  /// The spans waiting, in blocks of at most `max_batch` (each block one request's batch) of
  /// pointers to their records; emptied blocks are kept for the next ones (`spare`), and sent
  /// spans' records for callers' next spans (`free_records`, up to its capacity:
  /// `kept_records()`), so that a steady flow reuses the same warm memory; all are freed when
  /// the thread ends.
  std::deque<std::vector<detail::record_ptr>> queue;
  std::size_t queued = 0;  ///< spans in `queue`
  std::vector<std::vector<detail::record_ptr>> spare;
  static constexpr std::size_t spare_blocks = 4;
  std::vector<detail::record_ptr> free_records;
  /// How many sent records are kept: a few batches' worth (at most `max_queue` and 65,536).
  [[nodiscard]] std::size_t kept_records() const {
    constexpr std::size_t most = std::size_t{1} << 16U;
    const std::size_t batches = opts.max_batch >= most / 4 ? most : 4 * opts.max_batch;
    return std::min(batches, opts.max_queue);
  }
  /// A thread holding fewer spare records than this (`detail::spare_records`) is given up to
  /// `refill_count` when it queues a span.
  static constexpr std::size_t refill_below = 8;
  static constexpr std::size_t refill_count = 32;

  /// An empty block (under `ql`). Throws std::bad_alloc.
  std::vector<detail::record_ptr> new_block() {
    if (!spare.empty()) {
      auto b = std::move(spare.back());
      spare.pop_back();
      return b;
    }
    std::vector<detail::record_ptr> b;
    b.reserve(std::min(opts.max_batch, opts.max_queue));
    return b;
  }
  /// Whether a block is full (blocks fill in order: then the first is). Under `ql`.
  [[nodiscard]] bool full_block() const {
    return !queue.empty() && queue.front().size() >= opts.max_batch;
  }
  bool stopping = false;
  bool abandon = false;  // shutdown's time is up: no more retries
  bool exited = false;
  std::uint64_t flush_requested = 0;
  std::uint64_t flush_done = 0;
  std::mutex join_mu;  // one joiner at a time
  std::thread worker;

  void join() {
    std::lock_guard lock(join_mu);
    if (worker.joinable()) worker.join();
  }

  std::atomic<std::uint64_t> spans_exported{0}, spans_dropped{0}, spans_failed{0},
      metric_exports{0}, metric_failures{0}, requests{0}, retries{0};

  std::minstd_rand jitter{std::random_device{}()};

  /// Queues `r`. In the same hold of the lock, gives this thread's spare records
  /// (`detail::spare_records`), when it holds fewer than `refill_below`, sent ones for its next
  /// spans; a dropped span's record joins them too.
  void enqueue(detail::record_ptr r) noexcept {
    if (!r) return;
    auto* refill = detail::spare_records();
    bool wake_thread = false;
    {
      std::lock_guard lock(ql);
      if (refill != nullptr && refill->size() < refill_below) {
        auto k = std::min({free_records.size(), refill->capacity() - refill->size(), refill_count});
        for (; k > 0; --k) {
          refill->push_back(std::move(free_records.back()));  // within its capacity
          free_records.pop_back();
        }
      }
      if (stopping || queued >= opts.max_queue) {
        spans_dropped.fetch_add(1, std::memory_order_relaxed);
      } else {
        try {
          if (queue.empty() || queue.back().size() >= opts.max_batch) {
            queue.push_back(new_block());  // when it throws, nothing is queued
          }
          queue.back().push_back(std::move(r));  // within the block's reserve
          ++queued;
          wake_thread = queue.back().size() == opts.max_batch;  // a block just filled
        } catch (...) {
          spans_dropped.fetch_add(1, std::memory_order_relaxed);
        }
      }
    }
    if (r) detail::give_back(refill, std::move(r));  // dropped: kept as a spare, or freed
    if (wake_thread) {
      // Through `mu`: the thread tests for a full block holding `mu`, then waits, releasing it;
      // once `mu` is ours it either saw the block or waits for this wake.
      { std::lock_guard lock(mu); }
      wake.notify_one();
    }
  }

  /// Waits `d` unless shutdown gives up first; false when it did.
  bool pause(std::chrono::milliseconds d) {
    std::unique_lock lock(mu);
    return !wake.wait_for(lock, d, [this] { return abandon; });
  }

  /// The request the thread sends, its body reused from one export to the next (a batch's
  /// JSON is hundreds of KB: allocated anew each time, glibc would map and unmap it).
  http_detail::fetch_request request;

  /// The connection to the collector, kept between requests (opened again after an error or a
  /// close). Used by the thread only.
  http_detail::fetch_connection conn;

  /// POSTs `request` with retries. The answer's body on a 2xx, else nothing.
  std::optional<std::string> post(const std::string& url) {
    const auto& req = request;
    for (int attempt = 1;; ++attempt) {
      requests.fetch_add(1, std::memory_order_relaxed);
      std::optional<std::chrono::milliseconds> wait;
      try {
        auto res = conn.exchange(url, req, opts.timeout, max_otlp_answer_bytes);
        if (res.status >= 200 && res.status < 300) return std::move(res.body);
        if (!retryable(res.status)) return std::nullopt;
        if (auto ra = parse_retry_after(res.retry_after, std::chrono::system_clock::now())) {
          wait = std::min<std::chrono::milliseconds>(*ra, opts.max_backoff);
        }
      } catch (const std::exception&) {  // no answer: retried with backoff
      }
      if (attempt >= opts.max_attempts) return std::nullopt;
      if (!wait) {
        auto base = opts.initial_backoff * (1LL << std::min(attempt - 1, 20));
        base = std::min<std::chrono::milliseconds>(base, opts.max_backoff);
        // Jitter: between half and all of the backoff.
        std::uniform_int_distribution<long long> pick(base.count() / 2, base.count());
        wait = std::chrono::milliseconds(pick(jitter));
      }
      retries.fetch_add(1, std::memory_order_relaxed);
      if (!pause(*wait)) return std::nullopt;
    }
  }

  /// Where `request.headers` holds the Content-Type (set per request: spans may be protobuf).
  std::size_t content_type_at = 0;

  /// Sends `spans`: in one request, or (protobuf, a message over its length limit) in as many
  /// as it takes; a span too long for a request of its own fails.
  void send_spans(std::span<const detail::record_ptr> spans) {
    while (!spans.empty()) {
      request.body.clear();
      std::size_t n = spans.size();
      if (opts.traces_encoding == otlp_encoding::protobuf) {
        n = detail::write_otlp_traces_protobuf_records(spans, opts.resource, request.body);
        request.headers[content_type_at].second = "application/x-protobuf";
      } else {
        detail::write_otlp_traces_records(spans, opts.resource, request.body);
        request.headers[content_type_at].second = "application/json";
      }
      if (n == 0) {
        spans_failed.fetch_add(1, std::memory_order_relaxed);
        spans = spans.subspan(1);
        continue;
      }
      const auto batch = spans.first(n);
      spans = spans.subspan(n);
      auto answer = post(traces_url);
      if (!answer) {
        spans_failed.fetch_add(batch.size(), std::memory_order_relaxed);
        continue;
      }
      const auto said = opts.traces_encoding == otlp_encoding::protobuf
                            ? otlp_rejected_protobuf(*answer)
                            : otlp_rejected_json(*answer, "rejectedSpans");
      const auto refused = std::min<std::uint64_t>(said, batch.size());
      spans_failed.fetch_add(refused, std::memory_order_relaxed);
      spans_exported.fetch_add(batch.size() - refused, std::memory_order_relaxed);
    }
  }

  void send_metrics() {
    auto snap = opts.metrics->snapshot();
    if (snap.metrics.empty()) return;  // no empty envelopes
    request.body.clear();
    if (opts.metrics_encoding == otlp_encoding::protobuf) {
      write_otlp_metrics_protobuf(snap, opts.resource, request.body);
      request.headers[content_type_at].second = "application/x-protobuf";
    } else {
      write_otlp_metrics(snap, opts.resource, request.body);
      request.headers[content_type_at].second = "application/json";
    }
    if (post(metrics_url)) {
      metric_exports.fetch_add(1, std::memory_order_relaxed);
    } else {
      metric_failures.fetch_add(1, std::memory_order_relaxed);
    }
  }

  void run() {
    std::deque<std::vector<detail::record_ptr>> taken;  // the blocks being sent
    std::unique_lock lock(mu);
    auto next_batch = steady::now() + opts.batch_delay;
    auto next_metrics = steady::now() + opts.metrics_interval;
    for (;;) {
      const auto until = opts.metrics ? std::min(next_batch, next_metrics) : next_batch;
      wake.wait_until(lock, until, [&] {
        if (stopping || flush_requested != flush_done) return true;
        std::lock_guard q(ql);
        return full_block();
      });
      const auto generation = flush_requested;
      const bool flushing = generation != flush_done;
      const bool stop = stopping;
      // A full block goes at once, with whatever queued beside it; the rest when its time
      // came, or for a flush or the end. The queue is taken whole (no span is moved twice).
      const bool all = flushing || stop || steady::now() >= next_batch;
      for (;;) {
        if (abandon) break;
        {
          std::lock_guard q(ql);
          if (queue.empty() || !(all || full_block())) break;
          taken.swap(queue);
          queued = 0;
        }
        lock.unlock();
        for (auto& block : taken) {
          try {
            send_spans(block);
          } catch (...) {  // out of memory encoding it: the batch is lost, the thread goes on
            spans_failed.fetch_add(block.size(), std::memory_order_relaxed);
          }
          for (auto& r : block) detail::trim(*r);
        }
        {
          std::lock_guard q(ql);
          for (auto& block : taken) {
            for (auto& r : block) {
              if (free_records.size() == free_records.capacity()) break;
              free_records.push_back(std::move(r));  // within its capacity
            }
          }
        }
        for (auto& block : taken) block.clear();  // the records beyond those kept are freed
        {
          std::lock_guard q(ql);
          while (spare.size() < spare_blocks && !taken.empty()) {
            spare.push_back(std::move(taken.back()));
            taken.pop_back();
          }
        }
        taken.clear();  // the blocks beyond those kept
        lock.lock();
      }
      if (all) next_batch = steady::now() + opts.batch_delay;
      if (opts.metrics && !abandon && (flushing || stop || steady::now() >= next_metrics)) {
        lock.unlock();
        try {
          send_metrics();
        } catch (...) {  // out of memory: this export is lost
          metric_failures.fetch_add(1, std::memory_order_relaxed);
        }
        lock.lock();
        next_metrics = steady::now() + opts.metrics_interval;
      }
      if (flushing) {
        flush_done = generation;
        finished.notify_all();
      }
      if (stop) break;
    }
    std::deque<std::vector<detail::record_ptr>> left;
    std::vector<detail::record_ptr> kept;
    {
      std::lock_guard q(ql);
      spans_failed.fetch_add(queued, std::memory_order_relaxed);
      left.swap(queue);
      queued = 0;
      kept.swap(free_records);  // no span is sent any more: the kept records and room are freed
    }
    left.clear();
    kept.clear();
    conn.close();
    exited = true;
    finished.notify_all();
  }
};

otlp_exporter::otlp_exporter(std::shared_ptr<impl> im) : impl_(std::move(im)) {}

otlp_exporter::~otlp_exporter() { shutdown(); }

result<std::shared_ptr<otlp_exporter>> make_otlp_exporter(otlp_options opts) {
  std::string base = opts.endpoint;
  while (!base.empty() && base.back() == '/') base.pop_back();
  try {
    (void)http_detail::parse_fetch_target(base + "/v1/traces");
  } catch (const std::exception& e) {
    return error(errc::invalid_params, "OTLP endpoint: " + std::string(e.what()));
  }
  if (opts.max_queue == 0 || opts.max_batch == 0 || opts.max_attempts < 1 ||
      opts.batch_delay.count() <= 0 || opts.metrics_interval.count() <= 0 ||
      opts.timeout.count() <= 0) {
    return error(errc::invalid_params, "OTLP exporter: queue, batch, tries and times must be > 0");
  }
  auto im = std::make_shared<otlp_exporter::impl>();
  im->traces_url = base + "/v1/traces";
  im->metrics_url = base + "/v1/metrics";
  im->opts = std::move(opts);
  im->request = {.method = "POST", .ca_file = im->opts.ca_file, .headers = im->opts.headers};
  im->content_type_at = im->request.headers.size();
  im->request.headers.emplace_back("Content-Type", "application/json");
  // Room for every spare block now: giving one back on the thread never allocates.
  im->spare.reserve(otlp_exporter::impl::spare_blocks);
  im->spare.push_back(im->new_block());  // the first block, made before any span waits
  // Room to keep a few batches' sent records: a steady flow reuses them rather than asking
  // malloc on one thread and freeing on another.
  im->free_records.reserve(im->kept_records());
  im->conn.set_idle_limit(im->opts.connection_idle_limit);
  im->worker = std::thread([raw = im.get()] { raw->run(); });
  return std::shared_ptr<otlp_exporter>(new otlp_exporter(std::move(im)));
}

void otlp_exporter::export_span(std::unique_ptr<span_record> s) noexcept {
  impl_->enqueue(std::move(s));
}

std::function<void(std::unique_ptr<span_record>)> otlp_exporter::span_sink() {
  return [im = impl_](std::unique_ptr<span_record> s) { im->enqueue(std::move(s)); };
}

bool otlp_exporter::flush(std::chrono::milliseconds timeout) {
  std::unique_lock lock(impl_->mu);
  if (impl_->exited) {
    std::lock_guard q(impl_->ql);
    return impl_->queue.empty();
  }
  const auto generation = ++impl_->flush_requested;
  impl_->wake.notify_one();
  return impl_->finished.wait_for(lock, timeout,
                                  [&] { return impl_->flush_done >= generation || impl_->exited; });
}

void otlp_exporter::shutdown(std::chrono::milliseconds timeout) {
  {
    std::unique_lock lock(impl_->mu);
    if (impl_->stopping) {
      lock.unlock();
      impl_->join();
      return;
    }
    {
      std::lock_guard q(impl_->ql);
      impl_->stopping = true;
    }
    impl_->wake.notify_one();
    impl_->finished.wait_for(lock, timeout, [&] { return impl_->exited; });
    impl_->abandon = true;  // an export still running gives up its retries
    impl_->wake.notify_all();
  }
  impl_->join();
}

otlp_stats otlp_exporter::stats() const {
  const auto& im = *impl_;
  constexpr auto r = std::memory_order_relaxed;
  return {.spans_exported = im.spans_exported.load(r),
          .spans_dropped = im.spans_dropped.load(r),
          .spans_failed = im.spans_failed.load(r),
          .metric_exports = im.metric_exports.load(r),
          .metric_failures = im.metric_failures.load(r),
          .requests = im.requests.load(r),
          .retries = im.retries.load(r)};
}

}  // namespace mcp::observe
