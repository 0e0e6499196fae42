// What a client remembers beyond one request: the negotiation verdict per origin (one table
// for the process) and the result cache of mcp/client_cache.hpp (a bounded LRU list of results
// the server said may be kept).
#include <mcp/client_cache.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <list>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace mcp {

// ---- the verdicts ----

namespace {

constexpr std::size_t max_verdicts = 1024;

struct verdict_table {
  std::mutex mu;
  std::map<std::string, era_verdict, std::less<>> by_origin;
  std::list<std::string> order;  // oldest first
};

verdict_table& verdicts() {
  static verdict_table t;  // the process's: a verdict outlives the sessions that found it
  return t;
}

}  // namespace

std::optional<era_verdict> cached_era(std::string_view origin) {
  auto& t = verdicts();
  std::lock_guard lock(t.mu);
  auto it = t.by_origin.find(origin);
  if (it == t.by_origin.end()) return std::nullopt;
  return it->second;
}

void forget_era(std::string_view origin) {
  auto& t = verdicts();
  std::lock_guard lock(t.mu);
  auto it = t.by_origin.find(origin);
  if (it == t.by_origin.end()) return;
  t.order.remove(it->first);
  t.by_origin.erase(it);
}

void remember_era(std::string_view origin, era_verdict verdict) {
  if (verdict.era == protocol_era::none) return forget_era(origin);
  auto& t = verdicts();
  std::lock_guard lock(t.mu);
  auto it = t.by_origin.find(origin);
  if (it != t.by_origin.end()) {
    it->second = std::move(verdict);
    return;
  }
  while (t.by_origin.size() >= max_verdicts && !t.order.empty()) {
    t.by_origin.erase(t.order.front());
    t.order.pop_front();
  }
  t.by_origin.emplace(std::string(origin), std::move(verdict));
  t.order.emplace_back(origin);
}

void forget_all_eras() {
  auto& t = verdicts();
  std::lock_guard lock(t.mu);
  t.by_origin.clear();
  t.order.clear();
}

// ---- the result cache ----

namespace {

/// The params that shape a result: all but `_meta` (and what only input rounds carry).
std::string params_key(const json::object& params) {
  json::object p = params;
  p.erase("_meta");
  p.erase("inputResponses");
  p.erase("requestState");
  return json::serialize(p);
}

/// `ttlMs` of a result: nothing when it is absent, not a number or not positive.
std::optional<std::chrono::milliseconds> ttl_of(const json::object& r) {
  const auto* t = r.if_contains("ttlMs");
  if (t == nullptr) return std::nullopt;
  double ms = 0;
  if (t->is_int64()) {
    ms = static_cast<double>(t->get_int64());
  } else if (t->is_uint64()) {
    ms = static_cast<double>(t->get_uint64());
  } else if (t->is_double()) {
    ms = t->get_double();
  } else {
    return std::nullopt;
  }
  if (!(ms >= 1)) return std::nullopt;  // 0, negative or NaN: stale at once
  constexpr double year_ms = 365.0 * 24 * 3600 * 1000;
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::min(ms, year_ms)));
}

}  // namespace

struct result_cache::state {
  struct entry {
    std::string key;
    std::string origin;
    std::string method;
    std::string uri;  // resources/read: the resource
    json::object value;
    std::chrono::steady_clock::time_point expires;
    std::size_t bytes = 0;
  };
  result_cache_options opts;
  mutable std::mutex mu;
  std::list<entry> lru;  // most recently used first
  std::unordered_map<std::string, std::list<entry>::iterator> index;
  std::size_t bytes = 0;
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;

  static std::string key_of(std::string_view origin, std::string_view context,
                            std::string_view method, const std::string& params) {
    std::string k;
    k.reserve(origin.size() + context.size() + method.size() + params.size() + 3);
    k.append(origin).push_back('\n');
    k.append(context).push_back('\n');
    k.append(method).push_back('\n');
    k.append(params);
    return k;
  }

  void erase(std::list<entry>::iterator it) {
    bytes -= it->bytes;
    index.erase(it->key);
    lru.erase(it);
  }

  /// The fresh entry under `key`, moved to the front; expired ones go.
  const entry* find(const std::string& key, std::chrono::steady_clock::time_point now) {
    auto it = index.find(key);
    if (it == index.end()) return nullptr;
    if (it->second->expires <= now) {
      erase(it->second);
      return nullptr;
    }
    lru.splice(lru.begin(), lru, it->second);
    return &*it->second;
  }
};

result_cache::result_cache(result_cache_options opts) : s_(std::make_unique<state>()) {
  s_->opts = opts;
}

result_cache::~result_cache() = default;

std::optional<json::object> result_cache::lookup(std::string_view origin, std::string_view context,
                                                 std::string_view method,
                                                 const json::object& params) {
  const auto p = params_key(params);
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(s_->mu);
  const auto* e = s_->find(state::key_of(origin, context, method, p), now);
  if (e == nullptr) e = s_->find(state::key_of(origin, {}, method, p), now);
  if (e == nullptr) {
    ++s_->misses;
    return std::nullopt;
  }
  ++s_->hits;
  return e->value;
}

bool result_cache::store(std::string_view origin, std::string_view context, std::string_view method,
                         const json::object& params, const json::object& result) {
  if (const auto* t = result.if_contains("resultType"); t != nullptr && *t != "complete") {
    return false;
  }
  auto ttl = ttl_of(result);
  if (!ttl) return false;
  const auto* scope = result.if_contains("cacheScope");
  const bool is_public = scope != nullptr && *scope == "public";
  const bool is_private = scope != nullptr && *scope == "private";
  if (!is_public && !is_private) return false;  // no scope: not a CacheableResult
  if (is_private && context.empty()) return false;
  if (s_->opts.max_ttl.count() > 0) *ttl = std::min(*ttl, s_->opts.max_ttl);

  state::entry e;
  e.key =
      state::key_of(origin, is_public ? std::string_view{} : context, method, params_key(params));
  e.origin = std::string(origin);
  e.method = std::string(method);
  if (const auto* u = params.if_contains("uri"); u != nullptr && u->is_string()) {
    e.uri = std::string(u->get_string());
  }
  e.bytes = e.key.size() + json::serialize(result).size();
  if (e.bytes > s_->opts.max_bytes || s_->opts.max_entries == 0) return false;
  e.value = result;
  e.expires = std::chrono::steady_clock::now() + *ttl;

  std::lock_guard lock(s_->mu);
  if (auto it = s_->index.find(e.key); it != s_->index.end()) s_->erase(it->second);
  while (!s_->lru.empty() && (s_->index.size() + 1 > s_->opts.max_entries ||
                              s_->bytes + e.bytes > s_->opts.max_bytes)) {
    s_->erase(std::prev(s_->lru.end()));
  }
  s_->bytes += e.bytes;
  s_->lru.push_front(std::move(e));
  s_->index.emplace(s_->lru.front().key, s_->lru.begin());
  return true;
}

void result_cache::invalidate(std::string_view origin, std::string_view method,
                              std::string_view uri) {
  std::lock_guard lock(s_->mu);
  for (auto it = s_->lru.begin(); it != s_->lru.end();) {
    auto next = std::next(it);
    // "tools/list" drops "tools/list <revision>" too: every revision's entries.
    const bool of_method =
        it->method == method ||
        (it->method.size() > method.size() && std::string_view(it->method).starts_with(method) &&
         it->method[method.size()] == ' ');
    if (it->origin == origin && of_method && (uri.empty() || it->uri == uri)) {
      s_->erase(it);
    }
    it = next;
  }
}

void result_cache::clear() {
  std::lock_guard lock(s_->mu);
  s_->lru.clear();
  s_->index.clear();
  s_->bytes = 0;
}

result_cache_stats result_cache::stats() const {
  std::lock_guard lock(s_->mu);
  return result_cache_stats{
      .hits = s_->hits, .misses = s_->misses, .entries = s_->index.size(), .bytes = s_->bytes};
}

std::shared_ptr<result_cache> make_result_cache(result_cache_options opts) {
  return std::make_shared<result_cache>(opts);
}

}  // namespace mcp
