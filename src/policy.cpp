// The declarative tool policy (mcp/policy.hpp): the file format, and the interceptor that
// applies it.
#include <mcp/content.hpp>
#include <mcp/json.hpp>
#include <mcp/policy.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <fstream>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "detail/call_state.hpp"
#include "detail/timer.hpp"
#include "detail/token_bucket.hpp"

namespace mcp {

namespace {

// ---------------------------------------------------------------------------------------------
// The file format

struct parse_failure {
  std::string message;
};

[[noreturn]] void fail(const std::string& at, const std::string& problem) {
  throw parse_failure{at + ": " + problem};
}

const json::object& as_object(const json::value& v, const std::string& at) {
  if (!v.is_object()) fail(at, "must be an object");
  return v.get_object();
}

void only_members(const json::object& o, std::initializer_list<std::string_view> known,
                  const std::string& at) {
  for (const auto& [k, v] : o) {
    if (std::find(known.begin(), known.end(), std::string_view(k)) == known.end()) {
      fail(at.empty() ? std::string(k) : at + "." + std::string(k), "unknown member");
    }
  }
}

double number_at_least(const json::value& v, const std::string& at, double min,
                       const char* problem) {
  double d = 0;
  if (v.is_int64()) {
    d = static_cast<double>(v.get_int64());
  } else if (v.is_uint64()) {
    d = static_cast<double>(v.get_uint64());
  } else if (v.is_double()) {
    d = v.get_double();
  } else {
    fail(at, problem);
  }
  if (!(d >= min) || d > 1e12) fail(at, problem);
  return d;
}

std::size_t count(const json::value& v, const std::string& at) {
  const bool whole = v.is_int64() ? v.get_int64() > 0
                                  : v.is_uint64() && v.get_uint64() <= (std::uint64_t{1} << 62U);
  if (!whole) fail(at, "must be a whole number > 0");
  return v.is_int64() ? static_cast<std::size_t>(v.get_int64())
                      : static_cast<std::size_t>(v.get_uint64());
}

std::vector<std::string> strings(const json::value& v, const std::string& at) {
  if (!v.is_array()) fail(at, "must be an array of strings");
  std::vector<std::string> out;
  for (const auto& s : v.get_array()) {
    if (!s.is_string() || s.get_string().empty()) fail(at, "must be an array of non-empty strings");
    out.emplace_back(s.get_string());
  }
  return out;
}

bool boolean(const json::value& v, const std::string& at) {
  if (!v.is_bool()) fail(at, "must be true or false");
  return v.get_bool();
}

rate_rule parse_rate(const json::value& v, const std::string& at) {
  const auto& o = as_object(v, at);
  only_members(o, {"per_second", "burst"}, at);
  const auto* ps = o.if_contains("per_second");
  if (ps == nullptr) fail(at + ".per_second", "is required");
  rate_rule r;
  r.per_second = number_at_least(*ps, at + ".per_second", 0.001, "must be a number > 0");
  r.burst = std::max(1.0, 2 * r.per_second);
  if (const auto* b = o.if_contains("burst")) {
    r.burst = number_at_least(*b, at + ".burst", 1, "must be a number >= 1");
  }
  return r;
}

tool_rule parse_tool_rule(const json::value& v, const std::string& at) {
  const auto& o = as_object(v, at);
  only_members(o,
               {"deny", "grant", "scopes", "roles", "rate", "max_concurrent", "deadline_ms",
                "max_output_bytes"},
               at);
  tool_rule r;
  if (const auto* d = o.if_contains("deny"); d && boolean(*d, at + ".deny")) r.allow = false;
  if (const auto* g = o.if_contains("grant"); g && boolean(*g, at + ".grant")) {
    if (r.allow == false) fail(at, "cannot both deny and grant");
    r.allow = true;
  }
  if (const auto* s = o.if_contains("scopes")) r.scopes = strings(*s, at + ".scopes");
  if (const auto* s = o.if_contains("roles")) r.roles = strings(*s, at + ".roles");
  if (const auto* s = o.if_contains("rate")) r.rate = parse_rate(*s, at + ".rate");
  if (const auto* s = o.if_contains("max_concurrent")) {
    r.max_concurrent = count(*s, at + ".max_concurrent");
  }
  if (const auto* s = o.if_contains("deadline_ms")) {
    r.deadline = std::chrono::milliseconds(count(*s, at + ".deadline_ms"));
  }
  if (const auto* s = o.if_contains("max_output_bytes")) {
    r.max_output_bytes = count(*s, at + ".max_output_bytes");
  }
  return r;
}

access_rule parse_access_rule(const json::value& v, const std::string& at) {
  const auto& o = as_object(v, at);
  only_members(o, {"deny", "scopes", "roles"}, at);
  access_rule r;
  if (const auto* d = o.if_contains("deny")) r.deny = boolean(*d, at + ".deny");
  if (const auto* s = o.if_contains("scopes")) r.scopes = strings(*s, at + ".scopes");
  if (const auto* s = o.if_contains("roles")) r.roles = strings(*s, at + ".roles");
  return r;
}

void parse_access_rules(const json::object& o, std::string_view member,
                        std::map<std::string, access_rule, std::less<>>& out) {
  const auto* m = o.if_contains(member);
  if (m == nullptr) return;
  const std::string at(member);
  for (const auto& [key, rule] : as_object(*m, at)) {
    if (key.empty()) fail(at, "a name is empty");
    out.emplace(std::string(key), parse_access_rule(rule, at + "." + std::string(key)));
  }
}

policy_rules parse_rules(const json::value& doc) {
  const auto& o = as_object(doc, "policy");
  only_members(
      o,
      {"defaults", "tools", "principals", "destructive_tools_need_grant", "resources", "prompts"},
      "");
  policy_rules r;
  if (const auto* d = o.if_contains("defaults")) r.defaults = parse_tool_rule(*d, "defaults");
  if (const auto* g = o.if_contains("destructive_tools_need_grant")) {
    r.destructive_tools_need_grant = boolean(*g, "destructive_tools_need_grant");
  }
  if (const auto* t = o.if_contains("tools")) {
    for (const auto& [name, rule] : as_object(*t, "tools")) {
      if (name.empty()) fail("tools", "a tool name is empty");
      r.tools.emplace(std::string(name), parse_tool_rule(rule, "tools." + std::string(name)));
    }
  }
  if (const auto* p = o.if_contains("principals")) {
    for (const auto& [key, rule] : as_object(*p, "principals")) {
      const std::string at = "principals." + std::string(key);
      const auto& po = as_object(rule, at);
      only_members(po, {"roles", "rate"}, at);
      principal_rule pr;
      if (const auto* s = po.if_contains("roles")) pr.roles = strings(*s, at + ".roles");
      if (const auto* s = po.if_contains("rate")) pr.rate = parse_rate(*s, at + ".rate");
      r.principals.emplace(std::string(key), std::move(pr));
    }
  }
  parse_access_rules(o, "resources", r.resources);
  parse_access_rules(o, "prompts", r.prompts);
  return r;
}

// ---------------------------------------------------------------------------------------------
// Applying it

bool destructive(const tool_spec& t) {
  return !t.annotations.read_only_hint.value_or(false) &&
         t.annotations.destructive_hint.value_or(true);
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

/// `over` on top of `base`: set members win.
void overlay(tool_rule& base, const tool_rule& over) {
  if (over.allow) base.allow = over.allow;
  if (!over.scopes.empty()) base.scopes = over.scopes;
  if (!over.roles.empty()) base.roles = over.roles;
  if (over.rate) base.rate = over.rate;
  if (over.max_concurrent) base.max_concurrent = over.max_concurrent;
  if (over.deadline) base.deadline = over.deadline;
  if (over.max_output_bytes) base.max_output_bytes = over.max_output_bytes;
}

/// The rule for `name` in `rules`: exact, else the longest matching pattern.
template <class Rule>
const Rule* match(const std::map<std::string, Rule, std::less<>>& rules, std::string_view name) {
  if (auto it = rules.find(name); it != rules.end()) return &it->second;
  const Rule* best = nullptr;
  std::size_t best_len = 0;
  for (const auto& [pattern, rule] : rules) {
    if (pattern.empty() || pattern.back() != '*') continue;
    const std::string_view prefix(pattern.data(), pattern.size() - 1);
    if (name.starts_with(prefix) && (best == nullptr || prefix.size() >= best_len)) {
      best = &rule;
      best_len = prefix.size();
    }
  }
  return best;
}

/// One set of rules with the state that goes with it (reset when the rules are replaced).
struct generation {
  explicit generation(policy_rules r) : rules(std::make_shared<const policy_rules>(std::move(r))) {}

  std::shared_ptr<const policy_rules> rules;
  mutable std::shared_mutex effective_mu;
  mutable std::unordered_map<std::string, std::shared_ptr<const tool_rule>> effective;
  std::mutex buckets_mu;
  std::unordered_map<std::string, detail::token_bucket> buckets;
  std::mutex running_mu;
  std::unordered_map<std::string, std::shared_ptr<std::atomic<std::size_t>>> running;

  std::shared_ptr<const tool_rule> rule_for(const std::string& tool) const {
    {
      std::shared_lock lock(effective_mu);
      if (auto it = effective.find(tool); it != effective.end()) return it->second;
    }
    auto r = std::make_shared<tool_rule>(rules->defaults);
    if (const auto* t = match(rules->tools, tool)) overlay(*r, *t);
    std::unique_lock lock(effective_mu);
    if (effective.size() > 10000) effective.clear();
    return effective.emplace(tool, std::move(r)).first->second;
  }

  const principal_rule* principal_for(const principal& who) const {
    if (rules->principals.empty()) return nullptr;
    if (auto it = rules->principals.find(who.key()); it != rules->principals.end()) {
      return &it->second;
    }
    if (!who.issuer.empty()) return nullptr;  // a subject alone names only issuer-less callers
    auto it = rules->principals.find(who.subject);
    return it == rules->principals.end() ? nullptr : &it->second;
  }

  std::string refusal(const principal& who, const tool_spec& tool, const tool_rule& rule,
                      const principal_rule* extra) const {
    if (rule.allow == false) return "the policy denies it";
    if (rules->destructive_tools_need_grant && destructive(tool) && rule.allow != true) {
      return "it may destroy, and the policy does not grant it";
    }
    return lacks(who, rule.scopes, rule.roles, extra);
  }

  /// Why `who` lacks what `scopes` and `roles` ask (empty: it has it).
  static std::string lacks(const principal& who, const std::vector<std::string>& scopes,
                           const std::vector<std::string>& roles, const principal_rule* extra) {
    std::vector<std::string> lacking;
    for (const auto& s : scopes) {
      if (!who.has_scope(s)) lacking.push_back(s);
    }
    if (!lacking.empty()) return "it needs scope " + join(lacking);
    if (roles.empty()) return {};
    auto has = [&](const std::string& role) {
      if (extra != nullptr &&
          std::find(extra->roles.begin(), extra->roles.end(), role) != extra->roles.end()) {
        return true;
      }
      const auto* claimed = who.claims.if_contains("roles");
      if (claimed == nullptr || !claimed->is_array()) return false;
      const auto& a = claimed->get_array();
      return std::any_of(a.begin(), a.end(), [&](const json::value& r) {
        return r.is_string() && r.get_string() == role;
      });
    };
    if (std::any_of(roles.begin(), roles.end(), has)) return {};
    return "it needs one of the roles " + join(roles);
  }

  /// Why `who` may not use the resource or prompt `name` under `rules` (empty: it may).
  std::string access_refusal(const principal& who,
                             const std::map<std::string, access_rule, std::less<>>& all,
                             std::string_view name) const {
    const auto* rule = match(all, name);
    if (rule == nullptr) return {};
    if (rule->deny) return "the policy denies it";
    return lacks(who, rule->scopes, rule->roles, principal_for(who));
  }

  /// Takes a token from the caller's bucket; the wait in ms when there is none.
  long long take(const std::string& key, const rate_rule& rate) {
    std::lock_guard lock(buckets_mu);
    const auto now = detail::clock::now();
    if (buckets.size() >= 100000 && !buckets.contains(key)) buckets.clear();
    auto it = buckets.try_emplace(key, detail::token_bucket::full(rate.burst, now)).first;
    return it->second.take(rate.per_second, rate.burst, now);
  }

  std::shared_ptr<std::atomic<std::size_t>> counter(const std::string& tool) {
    std::lock_guard lock(running_mu);
    auto& c = running[tool];
    if (!c) c = std::make_shared<std::atomic<std::size_t>>(0);
    return c;
  }
};

}  // namespace

result<policy_rules> parse_policy(std::string_view json_text) {
  auto doc = parse_json(json_text, json_limits{.max_size = std::size_t{4} << 20U, .max_depth = 16});
  if (!doc) return error{doc.error().code, "policy: " + doc.error().message};
  try {
    return parse_rules(*doc);
  } catch (const parse_failure& f) {
    return error{errc::invalid_params, "policy: " + f.message};
  }
}

struct tool_policy::state {
  mutable std::mutex mu;
  std::shared_ptr<generation> current;
  std::filesystem::path path;
  policy_file_options opts;
  std::filesystem::file_time_type seen{};
  // Deadline and output checks are the pipeline's own interceptors, one per distinct value;
  // kept for the policy's life (a call in flight may still use one after a reload).
  std::mutex helpers_mu;
  std::map<long long, std::shared_ptr<call_interceptor>> deadlines;
  std::map<std::size_t, std::shared_ptr<call_interceptor>> outputs;
  // The file watcher.
  std::mutex stop_mu;
  std::condition_variable stop_cv;
  bool stopping = false;
  std::thread watcher;

  std::shared_ptr<generation> now() const {
    std::lock_guard lock(mu);
    return current;
  }
  void replace(policy_rules rules) {
    auto g = std::make_shared<generation>(std::move(rules));
    {
      std::lock_guard lock(mu);
      current = std::move(g);
    }
    if (opts.on_change) opts.on_change();
  }
  result<policy_rules> read() {
    std::ifstream in(path, std::ios::binary);
    if (!in) return error{errc::invalid_params, "policy: cannot open " + path.string()};
    std::ostringstream text;
    text << in.rdbuf();
    auto rules = parse_policy(text.str());
    if (!rules) return error{rules.error().code, path.string() + ": " + rules.error().message};
    return rules;
  }
  std::shared_ptr<call_interceptor> deadline_of(std::chrono::milliseconds ms) {
    std::lock_guard lock(helpers_mu);
    auto& d = deadlines[ms.count()];
    if (!d) d = deadline(ms);
    return d;
  }
  std::shared_ptr<call_interceptor> output_of(std::size_t bytes) {
    std::lock_guard lock(helpers_mu);
    auto& o = outputs[bytes];
    if (!o) o = output_limits({.max_bytes = bytes});
    return o;
  }
};

std::shared_ptr<tool_policy> make_tool_policy(policy_rules rules) {
  std::shared_ptr<tool_policy> p(new tool_policy());
  p->state_ = std::make_shared<tool_policy::state>();
  p->state_->current = std::make_shared<generation>(std::move(rules));
  return p;
}

result<std::shared_ptr<tool_policy>> make_tool_policy(std::filesystem::path path,
                                                      policy_file_options opts) {
  auto s = std::make_shared<tool_policy::state>();
  s->path = std::move(path);
  s->opts = std::move(opts);
  std::error_code ec;
  s->seen = std::filesystem::last_write_time(s->path, ec);
  auto rules = s->read();
  if (!rules) return rules.error();
  s->current = std::make_shared<generation>(std::move(*rules));
  std::shared_ptr<tool_policy> p(new tool_policy());
  p->state_ = s;
  if (s->opts.watch) {
    // The watcher holds the state only: it stops when the policy is destroyed.
    s->watcher = std::thread([raw = s.get()] {
      std::unique_lock lock(raw->stop_mu);
      while (
          !raw->stop_cv.wait_for(lock, raw->opts.watch_interval, [raw] { return raw->stopping; })) {
        std::error_code e;
        const auto t = std::filesystem::last_write_time(raw->path, e);
        if (e || t == raw->seen) continue;
        raw->seen = t;
        lock.unlock();
        try {
          if (auto r = raw->read()) {
            raw->replace(std::move(*r));
          } else if (raw->opts.on_error) {
            raw->opts.on_error(r.error());
          }
        } catch (...) {  // a callback that throws loses that notice, not the watcher
        }
        lock.lock();
      }
    });
  }
  return p;
}

tool_policy::~tool_policy() {
  if (state_ && state_->watcher.joinable()) {
    {
      std::lock_guard lock(state_->stop_mu);
      state_->stopping = true;
    }
    state_->stop_cv.notify_all();
    state_->watcher.join();
  }
}

void tool_policy::set(policy_rules rules) { state_->replace(std::move(rules)); }

result<void> tool_policy::reload() {
  if (state_->path.empty()) return error{errc::invalid_request, "policy: not read from a file"};
  auto rules = state_->read();
  if (!rules) return rules.error();
  state_->replace(std::move(*rules));
  return {};
}

std::shared_ptr<const policy_rules> tool_policy::rules() const { return state_->now()->rules; }

std::string tool_policy::refusal(const principal& who, const tool_spec& tool) const {
  const auto g = state_->now();
  return g->refusal(who, tool, *g->rule_for(tool.name), g->principal_for(who));
}

bool tool_policy::visible(const principal& who, const tool_spec& tool) const {
  return refusal(who, tool).empty();
}

std::string tool_policy::resource_refusal(const principal& who, std::string_view uri) const {
  const auto g = state_->now();
  if (g->rules->resources.empty()) return {};
  return g->access_refusal(who, g->rules->resources, uri);
}

std::string tool_policy::prompt_refusal(const principal& who, std::string_view name) const {
  const auto g = state_->now();
  if (g->rules->prompts.empty()) return {};
  return g->access_refusal(who, g->rules->prompts, name);
}

namespace {

/// The result side of `rule` (its deadline, its output limit), then `next`.
void limit(tool_policy::state& st, const tool_call& call, const tool_rule& rule,
           const std::function<void()>& next) {
  std::shared_ptr<call_interceptor> d = rule.deadline ? st.deadline_of(*rule.deadline) : nullptr;
  std::shared_ptr<call_interceptor> o =
      rule.max_output_bytes ? st.output_of(*rule.max_output_bytes) : nullptr;
  // Both pass the call on before they return (they only arm a timer or add a filter).
  if (d && o) return d->intercept(call, [&] { o->intercept(call, next); });
  if (d) return d->intercept(call, next);
  if (o) return o->intercept(call, next);
  next();
}

}  // namespace

void tool_policy::intercept(const tool_call& call, const std::function<void()>& next) {
  const auto g = state_->now();
  const auto& who = call.caller();
  const auto rule = g->rule_for(call.tool_name());
  const auto* extra = g->principal_for(who);
  // A task admitted where it was accepted gets only the rule's result side (deadline, output).
  if (call.admitted_earlier()) return limit(*state_, call, *rule, next);
  if (auto why = g->refusal(who, call.tool(), *rule, extra); !why.empty()) {
    return call.finish(tool_error_result("Access denied: \"" + who.subject +
                                         "\" may not call tool \"" + call.tool_name() +
                                         "\": " + why));
  }
  const auto* rate = extra != nullptr && extra->rate ? &*extra->rate
                     : rule->rate                    ? &*rule->rate
                                                     : nullptr;
  if (rate != nullptr) {
    if (const auto wait = g->take(who.key() + '\n' + call.tool_name(), *rate); wait > 0) {
      return call.finish(tool_error_result("Rate limit exceeded for tool \"" + call.tool_name() +
                                           "\": retry in " + std::to_string(wait) + " ms"));
    }
  }
  if (rule->max_concurrent) {
    auto running = g->counter(call.tool_name());
    if (running->fetch_add(1) >= *rule->max_concurrent) {
      running->fetch_sub(1);
      return call.finish(tool_error_result(
          "Too many concurrent calls of tool \"" + call.tool_name() + "\" (limit " +
          std::to_string(*rule->max_concurrent) + "); retry later"));
    }
    // Released when the handler is done, whatever the outcome (also after a deadline answer).
    using counter_ref = std::shared_ptr<std::atomic<std::size_t>>;
    detail::tool_call_access::state(call)->on_release(
        [](void* ctx, std::uint64_t /*unused*/) {
          const std::unique_ptr<counter_ref> held(static_cast<counter_ref*>(ctx));
          (*held)->fetch_sub(1);
        },
        new counter_ref(std::move(running)), 0);
  }
  limit(*state_, call, *rule, next);
}

}  // namespace mcp
