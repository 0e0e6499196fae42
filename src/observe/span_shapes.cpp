// Span shapes: made once per set of constant attributes, encoded once, shared by every span of
// that set (mcp/observe/tracing.hpp, span_shapes.hpp). The process keeps one table (a tracer's
// spans may outlive it, queued in an exporter); each thread keeps a small direct-mapped cache
// in front of it, so that a known set costs a few word compares and no lock.
#include "observe/span_shapes.hpp"

#include <mcp/json.hpp>

#include <array>
#include <mutex>
#include <unordered_map>

#include "detail/string_hash.hpp"
#include "observe/operation_match.hpp"

namespace mcp::observe {

std::shared_ptr<const span_shape> make_span_shape(std::string name, kind side,
                                                  std::vector<attribute> attributes) {
  auto s = std::make_shared<span_shape>();
  s->name = std::move(name);
  s->side = side;
  s->attributes = std::move(attributes);
  s->otlp_name_kind = ",\"name\":";
  append_json_string(s->otlp_name_kind, s->name);
  s->otlp_name_kind += side == kind::server ? ",\"kind\":2" : ",\"kind\":3";
  for (const auto& a : s->attributes) {
    if (!s->otlp_attributes.empty()) s->otlp_attributes += ',';
    detail::append_otlp_key_value(s->otlp_attributes, a.key, a.value);
  }
  detail::append_otlp_protobuf_shape(s->otlp_protobuf, s->name, side, s->attributes);
  return s;
}

namespace detail {
namespace {

constexpr std::size_t max_interned = 1024;
/// Longest key interned: method and target are the peer's words (an unknown method, a tool
/// name of any length), and an interned shape lives as long as the process. Longer ones get a
/// shape of their span's own, freed with it.
constexpr std::size_t max_interned_key = 256;

/// One interned shape, with the start attributes it was made of (for the cache's compare).
struct entry {
  series::operation_fields fields;
  kind side = kind::server;
  std::shared_ptr<const span_shape> shape;
};

/// The process's shapes by key. Never freed: the entries' addresses are what the threads'
/// caches and the spans keep.
struct table {
  std::mutex mu;
  std::unordered_map<std::string, std::unique_ptr<entry>, mcp::detail::string_hash, std::equal_to<>>
      by_key;
};

table& shapes() {
  static auto* t = new table();  // NOLINT(cppcoreguidelines-owning-memory): lives to the end
  return *t;
}

void key_field(std::string& key, std::string_view s) {
  key += std::to_string(s.size());
  key += ':';
  key += s;
}

std::string key_of(const operation& op, bool target_keyed) {
  std::string key;
  key += op.side == kind::server ? 's' : 'c';
  key += static_cast<char>('0' + static_cast<int>(op.transport));
  key_field(key, op.method);
  key_field(key, target_keyed ? op.target : std::string_view());
  key_field(key, op.protocol_version);
  key_field(key, op.network_protocol_name);
  key_field(key, op.network_protocol_version);
  if (op.side == kind::client) {
    key_field(key, op.peer_address);
    key += std::to_string(op.peer_port);
  }
  return key;
}

std::unique_ptr<entry> make_entry(const operation& op, bool target_keyed) {
  auto e = std::make_unique<entry>();
  e->fields = series::fields_of(op, target_keyed);
  e->side = op.side;
  e->shape =
      make_span_shape(span_name(op), op.side, operation_attributes(op, attribute_use::metric));
  return e;
}

/// A shared pointer to an interned shape that owns nothing (the table keeps it).
std::shared_ptr<const span_shape> unowned(const entry& e) {
  return {std::shared_ptr<const span_shape>(), e.shape.get()};
}

/// The interned entry of `op`'s shape: from this thread's cache (its attributes compared), else
/// from the process's table (made when new); null when it is not interned (a long key, or the
/// table is full).
const entry* interned_entry(const operation& op) {
  struct slot {
    std::size_t hash = 0;
    const entry* found = nullptr;
  };
  thread_local std::array<slot, 64> cache{};
  const auto hash = series::operation_hash(op) ^ static_cast<std::size_t>(op.side);
  auto& s = cache[hash % cache.size()];
  if (s.found != nullptr && s.hash == hash && s.found->side == op.side &&
      series::same_operation(s.found->fields, op, false)) {
    return s.found;
  }
  const bool target_keyed = !target_key(op.method).empty();
  auto key = key_of(op, target_keyed);
  if (key.size() > max_interned_key) return nullptr;
  auto& t = shapes();
  std::lock_guard lock(t.mu);
  auto it = t.by_key.find(key);
  if (it == t.by_key.end() && t.by_key.size() < max_interned) {
    it = t.by_key.emplace(std::move(key), make_entry(op, target_keyed)).first;
  }
  if (it == t.by_key.end()) return nullptr;
  s = {hash, it->second.get()};
  return it->second.get();
}

}  // namespace

std::shared_ptr<const span_shape> interned_shape(const operation& op) {
  // A numbered operation (`operation::attribute_set`) finds its entry by the number alone.
  struct numbered {
    std::uint64_t number = 0;
    const entry* found = nullptr;
  };
  thread_local std::array<numbered, 64> by_number{};
  numbered* n = nullptr;
  if (op.attribute_set != 0) {
    n = &by_number[op.attribute_set % by_number.size()];
    if (n->number == op.attribute_set) return unowned(*n->found);
  }
  if (const auto* e = interned_entry(op); e != nullptr) {
    if (n != nullptr) *n = {op.attribute_set, e};
    return unowned(*e);
  }
  // Not interned: a shape of this span's own.
  return make_entry(op, !target_key(op.method).empty())->shape;
}

}  // namespace detail
}  // namespace mcp::observe
