// The plain tools/call reader against the general path (differential): whatever the reader
// takes, parse_json and jsonrpc::decode take too and make the same request of it — the same id,
// method and params, member for member, in the same order and of the same kinds. The reader may
// leave anything to the general path; it may never read a text differently. The same with a
// `_meta` kept as text (`lazy`): put back, the request is the same, and what `lazy` says of the
// revision, the capabilities and the log level is what that `_meta` holds.
#include <mcp/json.hpp>
#include <mcp/jsonrpc.hpp>

#include <boost/json/serialize.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "detail/call_scan.hpp"

namespace {

/// Equal, and of the same kinds all the way down (json::value's == compares numbers by value).
bool same(const mcp::json::value& a, const mcp::json::value& b) {
  if (a.kind() != b.kind()) return false;
  if (const auto* o = a.if_object()) {
    const auto& p = b.get_object();
    if (o->size() != p.size()) return false;
    for (auto i = o->begin(), j = p.begin(); i != o->end(); ++i, ++j) {
      if (i->key() != j->key() || !same(i->value(), j->value())) return false;
    }
    return true;
  }
  if (const auto* arr = a.if_array()) {
    const auto& brr = b.get_array();
    if (arr->size() != brr.size()) return false;
    for (std::size_t i = 0; i < arr->size(); ++i) {
      if (!same((*arr)[i], brr[i])) return false;
    }
    return true;
  }
  return a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Small limits too, so that the reader's own limit checks are reached.
  const mcp::json_limits limits{.max_size = size > 0 ? 64 + data[0] % 64U : 16,
                                .max_depth = size > 1 ? data[1] % 6U : 1};
  for (const auto& l : {mcp::json_limits{.max_size = 65536, .max_depth = 64}, limits}) {
    mcp::jsonrpc::message scanned = mcp::jsonrpc::notification{.method = "untouched", .params = {}};
    if (!mcp::detail::scan_tool_call(text, l, scanned)) {
      // A text the reader does not take leaves `out` as it was, with `lazy` too (which reads
      // a `_meta` that may stay text another way, and must take no text the first does not).
      const auto* n = std::get_if<mcp::jsonrpc::notification>(&scanned);
      if (n == nullptr || n->method != "untouched" || !n->params.empty()) std::abort();
      mcp::detail::meta_text lazy{.whole = "untouched"};
      if (mcp::detail::scan_tool_call(text, l, scanned, &lazy) || lazy.whole != "untouched") {
        std::abort();
      }
      continue;
    }
    mcp::jsonrpc::message kept;
    mcp::detail::meta_text lazy;
    if (!mcp::detail::scan_tool_call(text, l, kept, &lazy)) std::abort();
    auto& slow = std::get<mcp::jsonrpc::request>(kept);
    if (!lazy.whole.empty()) {
      if (slow.params.contains("_meta")) std::abort();
      mcp::detail::put_meta_text(slow.params, lazy.whole);
      const auto& meta = slow.params.at("_meta").get_object();
      const auto* version = meta.if_contains(mcp::detail::meta_version_key);
      const auto* caps = meta.if_contains(mcp::detail::meta_caps_key);
      const auto* level = meta.if_contains(mcp::detail::meta_level_key);
      if (version == nullptr || !version->is_string() || version->get_string() != lazy.version ||
          caps == nullptr || !caps->is_object() || caps->get_object().size() != lazy.caps_members ||
          !same(*caps, mcp::json::value(mcp::detail::meta_object(lazy.caps))) ||
          (level != nullptr) != lazy.has_level ||
          (level != nullptr && (!level->is_string() || level->get_string() != lazy.level))) {
        std::abort();
      }
    }
    const auto& fast = std::get<mcp::jsonrpc::request>(scanned);
    if (slow.id != fast.id || !same(mcp::json::value(slow.params), mcp::json::value(fast.params)) ||
        mcp::json::serialize(slow.params) != mcp::json::serialize(fast.params)) {
      std::abort();
    }
    auto v = mcp::parse_json(text, l);
    if (!v) std::abort();
    auto m = mcp::jsonrpc::decode(std::move(*v));
    if (!m) std::abort();
    const auto* req = std::get_if<mcp::jsonrpc::request>(&*m);
    if (req == nullptr || req->id != fast.id || req->method != fast.method ||
        !same(mcp::json::value(req->params), mcp::json::value(fast.params)) ||
        mcp::json::serialize(req->params) != mcp::json::serialize(fast.params)) {
      std::abort();
    }
  }
  return 0;
}
