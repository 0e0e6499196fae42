// The SDK's built-in call interceptors: rate limit, deadline, output limits and access control
// (the concurrency limit is in concurrency.cpp).
#include <mcp/pipeline.hpp>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>

#include "detail/call_state.hpp"
#include "detail/timer.hpp"
#include "detail/token_bucket.hpp"
#include "detail/utf8.hpp"
#include "server_core.hpp"
#include "server_session.hpp"

namespace mcp {

namespace {

using detail::clock;

using detail::call_state;
using detail::plain_step;

class rate_limiter final : public call_interceptor, public plain_step {
 public:
  explicit rate_limiter(rate_limit_options o) : opts_(std::move(o)) {}

  void intercept(const tool_call& call, const std::function<void()>& next) override {
    if (admit(*detail::tool_call_access::state(call))) next();
  }

  bool filter_text(const call_state& /*call*/, std::string& /*text*/) const override {
    return true;  // no filter
  }
  bool admit(call_state& call) override {
    if (call.admitted_earlier ||  // counted where it was accepted
        (!opts_.tools.empty() &&
         std::find(opts_.tools.begin(), opts_.tools.end(), call.tool()) == opts_.tools.end())) {
      return true;
    }
    std::string key = call.caller().key();
    if (opts_.per_tool) {
      key += '\n';
      key += call.tool();
    }
    long long ms = 0;
    // Processes sharing state (server_options::shared) share the buckets; when the shared
    // state cannot answer, this process's own bucket decides.
    auto shared = shared_state_of(call);
    auto taken = shared ? shared->take_token("rate:" + key, opts_.per_second, opts_.burst)
                        : result<long long>(error{errc::internal_error, "no shared state"});
    if (taken) {
      ms = *taken;
    } else {
      std::lock_guard lock(mu_);
      const auto now = clock::now();
      if (buckets_.size() >= opts_.max_keys && !buckets_.contains(key)) evict(now);
      auto it = buckets_.try_emplace(key, detail::token_bucket::full(opts_.burst, now)).first;
      ms = it->second.take(opts_.per_second, opts_.burst, now);
    }
    if (ms > 0) {
      call.complete(tool_error_result("Rate limit exceeded for tool \"" + call.tool() +
                                      "\": retry in " + std::to_string(ms) + " ms"));
      return false;
    }
    return true;
  }

 private:
  static std::shared_ptr<shared_state> shared_state_of(const call_state& call) {
    auto session = call.session();
    return session ? session->core().opts.shared : nullptr;
  }

  /// Drops buckets that have refilled completely (they behave like fresh ones), or, if none
  /// has, the least recently used one.
  void evict(clock::time_point now) {
    const double full_after = opts_.burst / opts_.per_second;
    std::erase_if(buckets_, [&](const auto& kv) {
      return std::chrono::duration<double>(now - kv.second.last).count() >= full_after;
    });
    if (buckets_.size() >= opts_.max_keys) {
      auto oldest = std::min_element(
          buckets_.begin(), buckets_.end(),
          [](const auto& a, const auto& b) { return a.second.last < b.second.last; });
      buckets_.erase(oldest);
    }
  }

  rate_limit_options opts_;
  std::mutex mu_;
  std::unordered_map<std::string, detail::token_bucket> buckets_;
};

class deadline_interceptor final : public call_interceptor, public plain_step {
 public:
  explicit deadline_interceptor(std::chrono::milliseconds limit) : limit_(limit) {}

  void intercept(const tool_call& call, const std::function<void()>& next) override {
    if (admit(*detail::tool_call_access::state(call))) next();
  }

  bool filter_text(const call_state& /*call*/, std::string& /*text*/) const override {
    return true;  // no filter
  }
  bool admit(call_state& call) override {
    // A targeted timer (the call, held weakly; no allocation), armed only if the call is
    // still running when its synchronous part returns, and cancelled when it ends.
    call.defer_timer(clock::now() + limit_, &expire, static_cast<std::uint64_t>(limit_.count()));
    return true;
  }

 private:
  static void expire(const std::shared_ptr<void>& target, std::uint64_t limit_ms) {
    auto* call = static_cast<detail::call_state*>(target.get());
    call->stop_source().request_stop();
    call->complete(tool_error_result("Tool \"" + call->tool() + "\" did not finish within " +
                                     std::to_string(limit_ms) + " ms"));
  }

  std::chrono::milliseconds limit_;
};

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto len = detail::decode_utf8(s, i).length;
    if (len == 0) return false;
    i += len;
  }
  return true;
}

/// `s` with every invalid UTF-8 byte replaced by U+FFFD.
std::string repair_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    const auto len = detail::decode_utf8(s, i).length;
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

/// The serialized size of `v` within a few bytes per value (string escapes are not counted),
/// without serializing it.
std::size_t approximate_size(const json::value& v) {
  switch (v.kind()) {
    case json::kind::string:
      return v.get_string().size() + 2;
    case json::kind::array: {
      std::size_t n = 2;
      for (const auto& e : v.get_array()) n += approximate_size(e) + 1;
      return n;
    }
    case json::kind::object: {
      std::size_t n = 2;
      for (const auto& kv : v.get_object()) n += kv.key().size() + 4 + approximate_size(kv.value());
      return n;
    }
    default:
      return 8;
  }
}
std::size_t approximate_size(const json::object& o) {
  std::size_t n = 2;
  for (const auto& kv : o) n += kv.key().size() + 4 + approximate_size(kv.value());
  return n;
}

bool valid_mime_type(std::string_view m) {
  const auto slash = m.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 >= m.size()) return false;
  return std::all_of(m.begin(), m.end(),
                     [](char c) { return c > 0x20 && c < 0x7F && c != '"' && c != '\\'; });
}

class output_limiter final : public call_interceptor, public plain_step {
 public:
  explicit output_limiter(output_limit_options o) : opts_(o) {}

  void intercept(const tool_call& call, const std::function<void()>& next) override {
    // Two pointers: std::function keeps them in place (no allocation). Both outlive the filter
    // (the call holds its interceptor chain and its tool entry).
    call.on_result(
        [self = this, name = &call.tool_name()](call_tool_result& r) { self->limit(*name, r); });
    next();
  }

  bool admit(call_state& /*call*/) override { return true; }
  void filter(const call_state& call, call_tool_result& r) const override { limit(call.tool(), r); }
  bool filter_text(const call_state& /*call*/, std::string& text) const override {
    if (!clean_text(text, opts_)) return false;
    // approximate_size of {"type":"text","text":text}: 2 + (4 + 4 + 6) + (4 + 4 + size + 2).
    return 26 + text.size() <= opts_.max_bytes;
  }

 private:
  void limit(const std::string& tool, call_tool_result& r) const {
    if (auto problem = check(r, opts_)) {
      r = tool_error_result("Tool \"" + tool + "\" produced an invalid result: " + *problem);
    }
  }

  static std::optional<std::string> check_string(json::object& o, std::string_view key,
                                                 const output_limit_options& opts) {
    auto* v = o.if_contains(key);
    if (!v || !v->is_string()) return std::nullopt;
    if (!clean_text(v->get_string(), opts)) return std::string(key) + " is not valid UTF-8";
    return std::nullopt;
  }
  /// A text (a `json::string` in a block, or a `std::string` held apart) repaired and stripped
  /// as `opts` say; false when it is not valid UTF-8 and is not to be repaired.
  template <class String>
  static bool clean_text(String& s, const output_limit_options& opts) {
    if (!valid_utf8(s)) {
      if (!opts.repair_utf8) return false;
      s = repair_utf8(s);
    }
    if (opts.strip_control_sequences) {
      if (auto clean = strip_controls(s)) s = std::move(*clean);
    }
    return true;
  }

  /// `s` without escape sequences and control characters (see output_limit_options), or
  /// nullopt when it has none. `s` is valid UTF-8.
  static std::optional<std::string> strip_controls(std::string_view s) {
    auto is_control = [](unsigned char c) {
      return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
    };
    auto c1_at = [&](std::size_t i) {  // U+0080-U+009F are C2 80-9F in UTF-8
      return static_cast<unsigned char>(s[i]) == 0xc2 && i + 1 < s.size() &&
             static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
             static_cast<unsigned char>(s[i + 1]) <= 0x9f;
    };
    std::size_t i = 0;
    while (i < s.size() && !is_control(static_cast<unsigned char>(s[i])) && !c1_at(i)) ++i;
    if (i == s.size()) return std::nullopt;
    std::string out(s.substr(0, i));
    while (i < s.size()) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c1_at(i)) {
        i += 2;
      } else if (c == 0x1b && i + 1 < s.size() && s[i + 1] == '[') {  // CSI: params, final byte
        i += 2;
        while (i < s.size() && (static_cast<unsigned char>(s[i]) < 0x40 ||
                                static_cast<unsigned char>(s[i]) > 0x7e)) {
          ++i;
        }
        if (i < s.size()) ++i;
      } else if (c == 0x1b && i + 1 < s.size() && s[i + 1] == ']') {  // OSC: to BEL or ST
        i += 2;
        while (i < s.size() && s[i] != '\a' &&
               !(s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '\\')) {
          ++i;
        }
        if (i < s.size()) i += s[i] == '\a' ? 1U : 2U;
      } else if (c == 0x1b) {  // ESC and the character after it
        i += i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0x80 ? 2U : 1U;
      } else if (is_control(c)) {
        ++i;
      } else {
        out.push_back(s[i++]);
      }
    }
    return out;
  }

  static std::optional<std::string> check_binary(const json::object& o, std::string_view data_key,
                                                 bool need_mime) {
    const auto* d = o.if_contains(data_key);
    if (!d || !d->is_string() || !is_valid_base64(d->get_string())) {
      return std::string(data_key) + " is not valid base64";
    }
    const auto* m = o.if_contains("mimeType");
    if (need_mime || m) {
      if (!m || !m->is_string() || !valid_mime_type(m->get_string())) {
        return std::string("mimeType is missing or not of the form type/subtype");
      }
    }
    return std::nullopt;
  }

  static std::optional<std::string> check(call_tool_result& r, const output_limit_options& opts) {
    std::size_t bytes = 0;
    for (auto& block : r.content) {
      if (!block.is_object()) return "a content block is not an object";
      auto& o = block.get_object();
      const auto* t = o.if_contains("type");
      if (!t || !t->is_string()) return "a content block has no type";
      const std::string_view type = t->get_string();  // not a copy of the json::string
      if (type == "text") {
        if (auto p = check_string(o, "text", opts)) return p;
      } else if (opts.check_binary && (type == "image" || type == "audio")) {
        if (auto p = check_binary(o, "data", true)) return std::string(type) + " " + *p;
      } else if (type == "resource") {
        auto* res = o.if_contains("resource");
        if (!res || !res->is_object()) return "an embedded resource has no resource object";
        auto& ro = res->get_object();
        if (ro.contains("blob")) {
          if (opts.check_binary) {
            if (auto p = check_binary(ro, "blob", false)) return "resource " + *p;
          }
        } else if (auto p = check_string(ro, "text", opts)) {
          return "resource " + *p;
        }
      }
      bytes += approximate_size(block);
    }
    if (r.structured_content) bytes += approximate_size(*r.structured_content);
    if (bytes > opts.max_bytes) {
      return "output of " + std::to_string(bytes) + " bytes exceeds the limit of " +
             std::to_string(opts.max_bytes) + " bytes";
    }
    return std::nullopt;
  }

  output_limit_options opts_;
};

class access_controller final : public call_interceptor, public plain_step {
 public:
  explicit access_controller(std::function<bool(const principal&, std::string_view)> allow)
      : allow_(std::move(allow)) {}

  void intercept(const tool_call& call, const std::function<void()>& next) override {
    if (admit(*detail::tool_call_access::state(call))) next();
  }

  bool filter_text(const call_state& /*call*/, std::string& /*text*/) const override {
    return true;  // no filter
  }
  bool admit(call_state& call) override {
    if (!call.admitted_earlier && !allow_(call.caller(), call.tool())) {
      call.complete(tool_error_result("Access denied: \"" + call.caller().subject +
                                      "\" may not call tool \"" + call.tool() + "\""));
      return false;
    }
    return true;
  }
  [[nodiscard]] bool visible(const principal& who, const tool_spec& tool) const override {
    return allow_(who, tool.name);
  }

 private:
  std::function<bool(const principal&, std::string_view)> allow_;
};

}  // namespace

std::shared_ptr<call_interceptor> rate_limit(rate_limit_options opts) {
  if (opts.per_second <= 0 || opts.burst < 1) {
    throw std::invalid_argument("rate_limit: per_second must be > 0 and burst >= 1");
  }
  return std::make_shared<rate_limiter>(std::move(opts));
}

std::shared_ptr<call_interceptor> deadline(std::chrono::milliseconds limit) {
  if (limit.count() <= 0) throw std::invalid_argument("deadline: limit must be > 0");
  return std::make_shared<deadline_interceptor>(limit);
}

std::shared_ptr<call_interceptor> output_limits(output_limit_options opts) {
  return std::make_shared<output_limiter>(opts);
}

std::shared_ptr<call_interceptor> access_control(
    std::function<bool(const principal&, std::string_view)> allow) {
  if (!allow) throw std::invalid_argument("access_control: predicate is empty");
  return std::make_shared<access_controller>(std::move(allow));
}

}  // namespace mcp
