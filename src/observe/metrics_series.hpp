// The metrics observer's series (metrics.cpp records into them, metrics_snapshot.cpp reads
// them): histograms found by their start attributes once per operation (member by member in a
// per-thread cache; on a miss, by a key built in a per-thread buffer in a map under a shared
// lock), then recorded: a success into the recording thread's own cell of the series (no
// locked add; the cells are summed when read), an error with relaxed atomic adds; counters of
// rare events under a mutex; gauges.
// Each series keeps its own start time for cumulative export.
#pragma once

#include <mcp/observe/conventions.hpp>
#include <mcp/observe/metrics.hpp>

#include <atomic>
#include <charconv>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <unordered_map>
#include <utility>

#include "detail/hot_tls.hpp"
#include "detail/spinlock.hpp"
#include "detail/string_hash.hpp"
#include "observe/operation_match.hpp"
#include "observe/set_word.hpp"

namespace mcp::observe {
namespace series {

using steady = std::chrono::steady_clock;

inline constexpr std::array<std::uint64_t, duration_bounds.size()> bounds_ns = {
    10'000'000,     20'000'000,     50'000'000,      100'000'000,    200'000'000,
    500'000'000,    1'000'000'000,  2'000'000'000,   5'000'000'000,  10'000'000'000,
    30'000'000'000, 60'000'000'000, 120'000'000'000, 300'000'000'000};

/// Error variants kept per attribute set; more go to one `_OTHER` series.
inline constexpr std::size_t max_error_variants = 32;

inline std::uint64_t unix_now_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

inline std::uint64_t elapsed_ns(steady::time_point since, steady::time_point until) {
  const auto d = until - since;
  return d.count() < 0 ? 0
                       : static_cast<std::uint64_t>(
                             std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

/// The bucket of a duration: the first whose bound it does not exceed (the last: above all).
/// The first bucket is laid out as the usual case: a longer operation pays one more compare.
[[gnu::always_inline]] inline std::size_t bucket_of(std::uint64_t ns) noexcept {
  if (ns <= bounds_ns[0]) [[likely]]
    return 0;
  std::size_t i = 1;
  while (i < bounds_ns.size() && ns > bounds_ns[i]) ++i;
  return i;
}

struct histogram_cell {
  std::array<std::atomic<std::uint64_t>, duration_buckets> buckets{};
  std::atomic<std::uint64_t> sum_ns{0};

  /// Any thread: relaxed atomic adds.
  void record(std::uint64_t ns) noexcept {
    buckets[bucket_of(ns)].fetch_add(1, std::memory_order_relaxed);
    sum_ns.fetch_add(ns, std::memory_order_relaxed);
  }

  /// Only the one thread that writes this cell (its own, `group::record_ok`): a load and a
  /// store each, without the locked add that makes `record` cost several times more.
  void record_alone(std::uint64_t ns) noexcept {
    auto& b = buckets[bucket_of(ns)];
    b.store(b.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    sum_ns.store(sum_ns.load(std::memory_order_relaxed) + ns, std::memory_order_relaxed);
  }

  /// `record_alone` of a duration known to be in the first bucket.
  void record_alone_first(std::uint64_t ns) noexcept {
    auto& b = buckets[0];
    b.store(b.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    sum_ns.store(sum_ns.load(std::memory_order_relaxed) + ns, std::memory_order_relaxed);
  }

  /// Adds this cell's counts and sum (in nanoseconds, into `sum_ns`) to `p` and `sum`.
  void add_to(histogram_point& p, std::uint64_t& sum) const noexcept {
    for (std::size_t i = 0; i < buckets.size(); ++i) {
      const auto n = buckets[i].load(std::memory_order_relaxed);
      p.bucket_counts[i] += n;
      p.count += n;
    }
    sum += sum_ns.load(std::memory_order_relaxed);
  }

  [[nodiscard]] histogram_point read(const std::vector<attribute>& attrs,
                                     std::uint64_t start) const {
    histogram_point p{.attributes = attrs, .start_unix_ns = start};
    std::uint64_t sum = 0;
    add_to(p, sum);
    p.sum = static_cast<double>(sum) / 1e9;
    return p;
  }
};

/// A thread's own cell of a group's success series (`group::record_ok`).
struct alignas(64) thread_cell {  // a line of its own: its thread alone writes it
  histogram_cell cell;
  std::uint64_t owner = 0;  ///< the writing thread's `thread_token`
  thread_cell* next = nullptr;
};

/// Cells of one group per thread at most; a thread past them records into the shared cell.
inline constexpr std::size_t max_thread_cells = 32;

inline std::atomic<std::uint64_t> next_thread_token{1};
inline std::atomic<std::uint64_t> next_group_uid{1};

/// This thread's number, never reused (a new thread never writes a cell of a finished one).
inline std::uint64_t thread_token() noexcept {
  thread_local const std::uint64_t token =
      next_thread_token.fetch_add(1, std::memory_order_relaxed);
  return token;
}

/// A group's success cell of this thread (`group::record_ok`), by the group's number.
struct cached_cell {
  std::uint64_t uid = 0;
  histogram_cell* cell = nullptr;
};
/// This thread's own cells of the groups it recorded a success into last.
MCP_HOT_TLS inline thread_local std::array<cached_cell, 16> ok_cache{};

/// One outcome variant of a group: its extra attributes and its cell.
struct variant_series {
  std::string error_type;
  std::string status_code;
  std::vector<attribute> attributes;
  std::uint64_t start_unix_ns = 0;
  histogram_cell cell;
};

/// The series of one set of start attributes: the success series inline, error variants aside.
struct group {
  group() = default;
  group(const group&) = delete;
  group& operator=(const group&) = delete;
  ~group() {
    for (auto* c = own.load(std::memory_order_acquire); c != nullptr;)
      delete std::exchange(c, c->next);
  }

  const std::uint64_t uid =
      next_group_uid.fetch_add(1, std::memory_order_relaxed);  ///< never reused
  std::string_view key;     ///< the family's map key (stable); empty for the overflow group
  operation_fields fields;  ///< an operation group's attributes (set before it is published)
  std::vector<attribute> base;
  std::vector<attribute> counter_attributes;  ///< method and target, for the derived counters
  std::string counter_key;                    ///< the same as a key
  std::uint64_t start_unix_ns = unix_now_ns();
  histogram_cell ok;  ///< the success series: with the threads' own cells (`own`)
  /// The threads' own cells of the success series, newest first; pushed, never removed.
  std::atomic<thread_cell*> own{nullptr};
  std::atomic<std::size_t> own_count{0};
  detail::spinlock mu;
  std::vector<std::unique_ptr<variant_series>> variants;

  /// Records a success: into this thread's own cell (found in a per-thread cache by the
  /// group's number), which no other thread writes, so that no add is locked; into `ok` past
  /// `max_thread_cells` threads or without memory.
  void record_ok(std::uint64_t ns) noexcept {
    auto& c = ok_cache[uid % ok_cache.size()];
    if (c.uid != uid) {
      auto* mine = own_cell();
      if (mine == nullptr) return ok.record(ns);
      c = {uid, mine};
    }
    c.cell->record_alone(ns);
  }

  /// This thread's own cell of the success series if `record_ok` cached it; null otherwise.
  [[nodiscard]] histogram_cell* known_cell() const noexcept {
    const auto& c = ok_cache[uid % ok_cache.size()];
    return c.uid == uid ? c.cell : nullptr;
  }

  /// The success series: `ok` plus every thread's own cell.
  [[nodiscard]] histogram_point read_ok() const {
    histogram_point p{.attributes = base, .start_unix_ns = start_unix_ns};
    std::uint64_t sum = 0;
    ok.add_to(p, sum);
    for (const auto* c = own.load(std::memory_order_acquire); c != nullptr; c = c->next) {
      c->cell.add_to(p, sum);
    }
    p.sum = static_cast<double>(sum) / 1e9;
    return p;
  }

  histogram_cell& cell_for(const error_classification& c) {
    if (c.error_type.empty() && c.status_code.empty()) return ok;
    std::lock_guard lock(mu);
    for (const auto& v : variants) {
      if (v->error_type == c.error_type && v->status_code == c.status_code) return v->cell;
    }
    const bool full = variants.size() >= max_error_variants;
    auto v = std::make_unique<variant_series>();
    v->error_type = full ? "_OTHER" : c.error_type;
    v->status_code = full ? "" : c.status_code;
    if (full) {
      for (const auto& o : variants) {
        if (o->error_type == v->error_type && o->status_code.empty()) return o->cell;
      }
    }
    v->attributes = base;
    if (!v->error_type.empty()) v->attributes.push_back({attr::error_type, v->error_type});
    if (!v->status_code.empty()) v->attributes.push_back({attr::status_code, v->status_code});
    v->start_unix_ns = unix_now_ns();
    variants.push_back(std::move(v));
    return variants.back()->cell;
  }

  template <class F>
  void each_point(F&& f) {
    f(read_ok(), static_cast<const variant_series*>(nullptr));
    // Variants are never removed: read them outside the lock that recorders take.
    std::vector<const variant_series*> all;
    {
      std::lock_guard lock(mu);
      all.reserve(variants.size());
      for (const auto& v : variants) all.push_back(v.get());
    }
    for (const auto* v : all) f(v->cell.read(v->attributes, v->start_unix_ns), v);
  }

 private:
  /// This thread's own cell, made when it has none; null past `max_thread_cells` or without
  /// memory (out of line: once per thread and group, or after the cache lost it).
  [[gnu::noinline]] histogram_cell* own_cell() noexcept {
    const auto me = thread_token();
    auto* head = own.load(std::memory_order_acquire);
    for (auto* c = head; c != nullptr; c = c->next) {
      if (c->owner == me) return &c->cell;
    }
    if (own_count.fetch_add(1, std::memory_order_relaxed) >= max_thread_cells) {
      own_count.fetch_sub(1, std::memory_order_relaxed);
      return nullptr;
    }
    auto* mine = new (std::nothrow) thread_cell();
    if (mine == nullptr) {
      own_count.fetch_sub(1, std::memory_order_relaxed);
      return nullptr;
    }
    mine->owner = me;
    mine->next = head;
    while (!own.compare_exchange_weak(mine->next, mine, std::memory_order_release,
                                      std::memory_order_acquire)) {
    }
    return &mine->cell;
  }
};

inline std::atomic<std::uint64_t> next_family_id{1};

/// A hash for the per-thread cache, eight bytes at a time (keys are short; a collision costs
/// only a miss, since the slot's key is compared too).
inline std::size_t quick_hash(std::string_view key) noexcept {
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ key.size();
  std::size_t i = 0;
  for (; i + 8 <= key.size(); i += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, key.data() + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
  }
  std::uint64_t tail = 0;
  if (i < key.size()) std::memcpy(&tail, key.data() + i, key.size() - i);
  h = (h ^ tail) * 0xc4ceb9fe1a85ec53ULL;
  return static_cast<std::size_t>(h ^ (h >> 29U));
}

/// A family's recent lookups on this thread: (family, key hash) -> group, checked against the
/// group's key, so that a known attribute set costs no lock.
struct cache_slot {
  std::uint64_t family = 0;
  std::size_t hash = 0;
  group* found = nullptr;
};

/// Groups by key, in creation order, capped.
struct group_family {
  const std::uint64_t id = next_family_id.fetch_add(1, std::memory_order_relaxed);
  std::shared_mutex mu;
  std::unordered_map<std::string, std::unique_ptr<group>, detail::string_hash, std::equal_to<>>
      by_key;
  std::vector<group*> order;
  std::unique_ptr<group> overflow;
  std::size_t cap = 0;

  /// The group of `op` (made by `make` from it, looked up by `key_of(op)` in the map): first
  /// in this thread's cache, without building the key.
  template <class KeyOf, class Make>
  group* find_operation(const operation& op, bool with_uri, KeyOf&& key_of, Make&& make) {
    thread_local std::array<cache_slot, 64> cache{};
    const auto hash = operation_hash(op);
    auto& slot = cache[(hash ^ id) % cache.size()];
    if (slot.family == id && slot.hash == hash &&
        same_operation(slot.found->fields, op, with_uri)) {
      return slot.found;
    }
    bool cacheable = true;
    group* g = key_of(op, [&](std::string_view key) {
      return find_locked(key, std::forward<Make>(make), cacheable);
    });
    if (cacheable) slot = {id, hash, g};
    return g;
  }

  /// `find_operation` for an operation its engine numbered (`operation::attribute_set`): the
  /// number alone finds the group in this thread's cache (no attribute is compared). The group
  /// of a number stays the same (a number names one set; a set keeps its group, or the
  /// overflow for good), so whatever `find_operation` found is kept for it.
  template <class KeyOf, class Make>
  group* find_numbered(const operation& op, KeyOf&& key_of, Make&& make) {
    auto& slot = mcp::detail::numbered_cache<group*, group_family>::at(id, op.attribute_set);
    if (slot.holds(id, op.attribute_set)) return slot.value;
    group* g = find_operation(op, false, std::forward<KeyOf>(key_of), std::forward<Make>(make));
    slot = {id, op.attribute_set, g};
    return g;
  }

  template <class Make>
  group* find(std::string_view key, Make&& make) {
    thread_local std::array<cache_slot, 64> cache{};
    const auto hash = quick_hash(key);
    auto& slot = cache[(hash ^ id) % cache.size()];
    if (slot.family == id && slot.hash == hash && slot.found->key == key) return slot.found;
    bool cacheable = true;
    group* g = find_locked(key, std::forward<Make>(make), cacheable);
    if (cacheable) slot = {id, hash, g};
    return g;
  }

 private:
  template <class Make>
  group* find_locked(std::string_view key, Make&& make, bool& cacheable) {
    {
      std::shared_lock lock(mu);
      if (auto it = by_key.find(key); it != by_key.end()) return it->second.get();
    }
    std::unique_lock lock(mu);
    if (auto it = by_key.find(key); it != by_key.end()) return it->second.get();
    if (by_key.size() >= cap) {
      cacheable = false;  // its key is none of the keys that lead to it
      if (!overflow) {
        overflow = std::make_unique<group>();
        overflow->base = {{attr::overflow, true}};
        overflow->counter_attributes = overflow->base;
        overflow->counter_key = "\x01overflow";
        order.push_back(overflow.get());
      }
      return overflow.get();
    }
    auto g = std::make_unique<group>();
    make(*g);
    auto* raw = g.get();
    auto [it, fresh] = by_key.emplace(std::string(key), std::move(g));
    raw->key = it->first;
    order.push_back(raw);
    return raw;
  }
};

struct counter_series {
  std::vector<attribute> attributes;
  std::uint64_t start_unix_ns = unix_now_ns();
  std::int64_t value = 0;
};

/// Counters of rare events (denials, task statuses), under a mutex.
struct counter_family {
  std::mutex mu;
  std::map<std::string, std::size_t, std::less<>> index;
  std::vector<counter_series> series;
  std::size_t cap = 0;

  /// Adds one to the series of `key`, made with `make()` the first time.
  template <class Make>
  void add(const std::string& key, Make&& make) {
    std::lock_guard lock(mu);
    auto it = index.find(key);
    if (it == index.end()) {
      if (index.size() >= cap) {
        it = index.find(std::string_view("\x01overflow"));
        if (it == index.end()) {
          it = index.emplace("\x01overflow", series.size()).first;
          series.push_back({.attributes = {{attr::overflow, true}}});
        }
      } else {
        it = index.emplace(key, series.size()).first;
        series.push_back({.attributes = make()});
      }
    }
    ++series[it->second].value;
  }

  void read(std::vector<number_point>& out) {
    std::lock_guard lock(mu);
    for (const auto& s : series) out.push_back({s.attributes, s.value, s.start_unix_ns});
  }
};

struct gauge {
  std::atomic<std::int64_t> value{0};
  std::atomic<bool> used{false};
  void add(std::int64_t d) {
    used.store(true, std::memory_order_relaxed);
    value.fetch_add(d, std::memory_order_relaxed);
  }
};

/// Appends `s` with its length first, so that keys of different field splits never collide.
inline void key_field(std::string& key, std::string_view s) {
  const auto n = static_cast<std::uint32_t>(s.size());
  key.append(reinterpret_cast<const char*>(&n), sizeof n);
  key.append(s);
}

inline std::size_t side_index(kind k) { return k == kind::server ? 0 : 1; }

/// A key built like `key_field` does, in a fixed buffer; `fits` is false once it overflowed.
struct stack_key {
  std::array<char, 384> buf;
  std::size_t size = 0;
  bool fits = true;

  void field(std::string_view s) noexcept {
    const auto n = static_cast<std::uint32_t>(s.size());
    if (!fits || size + sizeof n + s.size() > buf.size()) {
      fits = false;
      return;
    }
    std::memcpy(buf.data() + size, &n, sizeof n);
    if (!s.empty()) std::memcpy(buf.data() + size + sizeof n, s.data(), s.size());
    size += sizeof n + s.size();
  }
  void byte(char c) noexcept {
    if (!fits || size == buf.size()) {
      fits = false;
      return;
    }
    buf[size++] = c;
  }
  [[nodiscard]] std::string_view view() const noexcept { return {buf.data(), size}; }
};

/// The same in a string, for keys longer than `stack_key` holds.
struct string_key {
  std::string text;
  void field(std::string_view s) { key_field(text, s); }
  void byte(char c) { text += c; }
};

}  // namespace series

struct metrics::impl {
  metrics_options opts;
  std::uint64_t start_unix_ns = series::unix_now_ns();
  std::array<series::group_family, 2> operations;  // [server, client]
  std::array<series::group_family, 2> sessions;
  std::array<series::counter_family, 2> denials;
  series::counter_family tasks;
  std::array<series::gauge, 2> active_sessions;
  std::array<series::gauge, 2> active_streams;

  explicit impl(metrics_options o) : opts(std::move(o)) {
    for (auto* f : {&operations[0], &operations[1], &sessions[0], &sessions[1]}) {
      f->cap = opts.max_series;
    }
    denials[0].cap = denials[1].cap = tasks.cap = opts.max_series;
  }

  /// The key of an operation's start attributes (`key_field`s in a fixed order).
  template <class Key>
  void operation_key(Key& key, const operation& op) const {
    key.field(op.method);
    if (!target_key(op.method).empty()) key.field(op.target);
    key.field(op.protocol_version);
    key.byte(static_cast<char>(op.transport));
    key.field(op.network_protocol_name);
    key.field(op.network_protocol_version);
    if (op.side == kind::client) {
      key.field(op.peer_address);
      std::array<char, 8> port{};
      const auto r = std::to_chars(port.data(), port.data() + port.size(), op.peer_port);
      key.field({port.data(), static_cast<std::size_t>(r.ptr - port.data())});
    }
    if (opts.resource_uri_attribute) key.field(op.resource_uri);
  }

  series::group* operation_group(const operation& op) {
    using namespace series;  // NOLINT(google-build-using-namespace)
    // On a miss in the thread's cache, the key is built on the stack (one longer than the
    // buffer, in a string) and looked up in the map.
    const auto key_of = [this](const operation& o, auto&& find) {
      stack_key small;
      operation_key(small, o);
      if (small.fits) return find(small.view());
      thread_local string_key large;
      large.text.clear();
      operation_key(large, o);
      return find(std::string_view(large.text));
    };
    const bool with_uri = opts.resource_uri_attribute;
    const auto make = [&](group& g) {
      g.fields = fields_of(op, !target_key(op.method).empty(), with_uri);
      g.base = operation_attributes(op, attribute_use::metric, opts.resource_uri_attribute);
      g.counter_attributes.push_back({attr::method_name, std::string(op.method)});
      key_field(g.counter_key, op.method);
      if (const auto k = target_key(op.method); !k.empty() && !op.target.empty()) {
        g.counter_attributes.push_back({k, std::string(op.target)});
        key_field(g.counter_key, op.target);
      }
    };
    auto& family = operations[side_index(op.side)];
    // A number does not cover the resource URI: with URIs recorded, the attributes are compared.
    if (op.attribute_set != 0 && !with_uri) return family.find_numbered(op, key_of, make);
    return family.find_operation(op, with_uri, key_of, make);
  }

  series::group* session_group(const session_info& info) {
    using namespace series;  // NOLINT(google-build-using-namespace)
    thread_local std::string key;
    key.clear();
    key_field(key, info.protocol_version);
    key += static_cast<char>(info.transport);
    key_field(key, info.network_protocol_name);
    key_field(key, info.network_protocol_version);
    if (info.side == kind::client) {
      key_field(key, info.peer_address);
      key_field(key, std::to_string(info.peer_port));
    }
    return sessions[side_index(info.side)].find(
        key, [&](group& g) { g.base = session_attributes(info); });
  }
};

}  // namespace mcp::observe
