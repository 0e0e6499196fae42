// The Redis task store: each operation one Lua script (task_scripts.hpp), so every status change
// is a compare-and-set whichever process makes it, published on <prefix>tasks:changed in the same
// step; `watch` subscribes to that channel. Replies are checked field by field: a task that does
// not read back is an internal error, never a crash.
#include <mcp/redis.hpp>

#include <boost/json/serialize.hpp>

#include <charconv>
#include <limits>

#include "detail/task_store_common.hpp"
#include "redis/task_scripts.hpp"

namespace mcp {

namespace {

using namespace redis_detail;

constexpr std::size_t max_page = 10'000;  // tasks in one list answer, whatever the limit asked
constexpr std::size_t batch = 1'000;      // tasks one sweep script handles
/// PEXPIREAT's ceiling (the year 9999): a longer ttl expires then in Redis, at its ttl on reads.
constexpr std::int64_t max_pexpireat = 253'402'300'799'999;

error corrupt(const char* what) {
  return error{errc::internal_error,
               std::string("task store: a stored task has a corrupt ") + what};
}

error storage(const error& e) { return error{errc::internal_error, "task store: " + e.message}; }

std::optional<std::int64_t> to_int(std::string_view s) {
  std::int64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string ms_text(std::optional<std::chrono::milliseconds> d) {
  return d ? std::to_string(d->count()) : std::string();
}

/// The `i` field: the pending request and its answer, as one object.
std::string input_field(const json::object& request, const json::object& response) {
  json::object o;
  if (!request.empty()) o["request"] = request;
  if (!response.empty()) o["response"] = response;
  return boost::json::serialize(o);
}

result<json::object> read_object(const redis_reply& r, const char* what) {
  if (!r.is_string()) return corrupt(what);
  auto v = parse_json(r.str, json_limits{std::numeric_limits<std::size_t>::max(), 1024});
  if (!v || !v->is_object()) return corrupt(what);
  return std::move(v->as_object());
}

/// A task from the fields of a script's answer (task_scripts.hpp FIELDS order, then `rerun`
/// when `with_rerun`), and its sequence number.
result<std::pair<std::uint64_t, task_record>> read_task(const redis_reply& r, bool with_rerun) {
  const std::size_t n = with_rerun ? 13 : 12;
  if (!r.is_array() || r.elements.size() != n) return corrupt("record");
  for (const auto& f : r.elements) {
    if (!f.is_string()) return corrupt("record");
  }
  const auto& e = r.elements;
  task_record t;
  t.owner = e[0].str;
  const auto status = task_status_from_string(e[1].str);
  if (!status) return corrupt("status");
  t.status = *status;
  t.status_message = e[2].str;
  const auto created = to_int(e[3].str);
  const auto updated = to_int(e[4].str);
  const auto seq = to_int(e[10].str);
  if (!created || !updated || !seq || *seq <= 0) return corrupt("record");
  t.created_at = detail::from_epoch_ms(*created);
  t.last_updated_at = detail::from_epoch_ms(*updated);
  for (auto [field, out] : {std::pair{&e[5], &t.ttl}, std::pair{&e[6], &t.poll_interval}}) {
    if (field->str.empty()) continue;
    const auto v = to_int(field->str);
    if (!v) return corrupt("time");
    *out = std::chrono::milliseconds(*v);
  }
  t.method = e[7].str;
  auto payload = read_object(e[8], "payload");
  if (!payload) return payload.error();
  t.payload = std::move(*payload);
  auto input = read_object(e[9], "input");
  if (!input) return input.error();
  const auto part = [&](const char* key) {
    const auto* v = input->if_contains(key);
    return v != nullptr && v->is_object() ? v->get_object() : json::object{};
  };
  t.input_request = part("request");
  t.input_response = part("response");
  if (with_rerun) {
    auto rerun = read_object(e[12], "rerun");
    if (!rerun) return rerun.error();
    t.rerun = std::move(*rerun);
  }
  return std::pair{static_cast<std::uint64_t>(*seq), std::move(t)};
}

/// An optional task from a script answering the fields or nil.
result<std::optional<task_record>> read_optional(const result<redis_reply>& r,
                                                 std::string_view id) {
  if (!r) return storage(r.error());
  if (r->is_nil()) return std::optional<task_record>{};
  auto t = read_task(*r, false);
  if (!t) return t.error();
  t->second.id = std::string(id);
  return std::optional<task_record>{std::move(t->second)};
}

/// Two integers {looked at, done} from a sweep script.
result<std::pair<std::int64_t, std::int64_t>> read_counts(const result<redis_reply>& r) {
  if (!r) return storage(r.error());
  if (!r->is_array() || r->elements.size() != 2 ||
      r->elements[0].type != redis_reply::kind::integer ||
      r->elements[1].type != redis_reply::kind::integer) {
    return error{errc::internal_error, "task store: Redis answered a sweep unexpectedly"};
  }
  return std::pair{r->elements[0].integer, r->elements[1].integer};
}

class redis_task_store final : public task_store {
 public:
  explicit redis_task_store(std::shared_ptr<redis_client> client)
      : client_(std::move(client)),
        prefix_(client_->key_prefix()),
        unfinished_key_(prefix_ + "tasks:unfinished"),
        expiry_key_(prefix_ + "tasks:expiry"),
        seq_key_(prefix_ + "tasks:seq"),
        channel_(prefix_ + "tasks:changed") {}

  result<void> create(const task_record& task) override try {
    const std::string key = task_key(task.id);
    const std::string owner_key = owner_index(task.owner);
    const std::string created = std::to_string(detail::to_epoch_ms(task.created_at));
    const std::string updated = std::to_string(detail::to_epoch_ms(task.last_updated_at));
    const std::string ttl = ms_text(task.ttl);
    const std::string poll = ms_text(task.poll_interval);
    const std::string payload = boost::json::serialize(task.payload);
    const std::string input = input_field(task.input_request, task.input_response);
    const std::string rerun = boost::json::serialize(task.rerun);
    std::string expiry;
    std::string pexpireat;
    if (task.ttl) {
      const std::int64_t c = detail::to_epoch_ms(task.created_at);
      const std::int64_t t = std::max<std::int64_t>(task.ttl->count(), 0);
      const std::int64_t at =
          t > std::numeric_limits<std::int64_t>::max() - c ? max_pexpireat : c + t;
      expiry = std::to_string(at);
      pexpireat = std::to_string(std::clamp<std::int64_t>(at, 1, max_pexpireat));
    }
    const std::string_view keys[] = {key, owner_key, unfinished_key_, expiry_key_, seq_key_};
    const std::string_view args[] = {task.id,
                                     task.owner,
                                     to_string(task.status),
                                     task.status_message,
                                     created,
                                     updated,
                                     ttl,
                                     poll,
                                     task.method,
                                     payload,
                                     input,
                                     rerun,
                                     expiry,
                                     pexpireat};
    auto r = client_->eval(create_script, keys, args);
    if (!r) return storage(r.error());
    if (r->type != redis_reply::kind::integer) {
      return error{errc::internal_error, "task store: Redis answered a create unexpectedly"};
    }
    if (r->integer == 0) {
      return error{errc::invalid_params, "task store: a task with this id exists"};
    }
    return {};
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("task store: ") + e.what()};
  }

  result<std::optional<task_record>> get(std::string_view id, std::string_view owner) override try {
    const std::string now = now_text();
    const std::string_view args[] = {prefix_, id, owner, now};
    return read_optional(client_->eval(get_script, {}, args), id);
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("task store: ") + e.what()};
  }

  result<std::optional<task_record>> update(std::string_view id, std::string_view owner,
                                            const task_update& u) override try {
    const std::string key = task_key(id);
    const std::string now = now_text();
    const std::string payload = boost::json::serialize(u.payload);
    const std::string input = input_field(u.input_request, u.input_response);
    const std::string_view keys[] = {key};
    const std::string_view args[] = {prefix_,          id,      owner, now,     to_string(u.status),
                                     u.status_message, payload, input, channel_};
    return read_optional(client_->eval(update_script, keys, args), id);
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("task store: ") + e.what()};
  }

  result<task_page> list(std::string_view owner, std::string_view cursor,
                         std::size_t limit) override try {
    std::uint64_t after = 0;
    if (!cursor.empty()) {
      const auto seq = detail::decode_task_cursor(cursor);
      if (!seq || *seq > (std::uint64_t{1} << 53U)) return detail::bad_task_cursor();
      after = *seq;
    }
    limit = std::clamp<std::size_t>(limit, 1, max_page);
    const std::string owner_key = owner_index(owner);
    const std::string after_text = std::to_string(after);
    const std::string limit_text = std::to_string(limit);
    const std::string now = now_text();
    const std::string_view keys[] = {owner_key, seq_key_};
    const std::string_view args[] = {prefix_, owner, after_text, limit_text, now};
    auto r = client_->eval(list_script, keys, args);
    if (!r) return storage(r.error());
    if (r->type == redis_reply::kind::integer && r->integer == -1) {
      return detail::bad_task_cursor();
    }
    if (!r->is_array() || r->elements.size() != 3 ||
        r->elements[0].type != redis_reply::kind::integer || !r->elements[1].is_array() ||
        !r->elements[2].is_array() || r->elements[1].elements.size() > limit ||
        r->elements[1].elements.size() != r->elements[2].elements.size()) {
      return error{errc::internal_error, "task store: Redis answered a list unexpectedly"};
    }
    task_page page;
    page.tasks.reserve(r->elements[1].elements.size());
    std::uint64_t last = 0;
    for (std::size_t i = 0; i < r->elements[1].elements.size(); ++i) {
      auto t = read_task(r->elements[1].elements[i], false);
      if (!t) return t.error();
      const auto& id = r->elements[2].elements[i];
      if (!id.is_string()) return corrupt("record");
      last = t->first;
      t->second.id = id.str;
      page.tasks.push_back(std::move(t->second));
    }
    if (r->elements[0].integer == 1 && last != 0)
      page.next_cursor = detail::encode_task_cursor(last);
    return page;
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("task store: ") + e.what()};
  }

  result<std::size_t> purge_expired(std::chrono::system_clock::time_point now) override try {
    const std::string at = std::to_string(detail::to_epoch_ms(now));
    const std::string batch_text = std::to_string(batch);
    const std::string_view keys[] = {expiry_key_};
    const std::string_view args[] = {prefix_, at, batch_text};
    std::size_t total = 0;
    for (;;) {
      auto counts = read_counts(client_->eval(purge_script, keys, args));
      if (!counts) return counts.error();
      total += static_cast<std::size_t>(std::max<std::int64_t>(counts->second, 0));
      if (counts->first < static_cast<std::int64_t>(batch)) return total;
    }
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("task store: ") + e.what()};
  }

  result<std::size_t> fail_unfinished(std::string_view message) override try {
    const std::string now = now_text();
    const std::string payload = boost::json::serialize(detail::unfinished_payload(message));
    const std::string batch_text = std::to_string(batch);
    const std::string_view keys[] = {unfinished_key_};
    const std::string_view args[] = {prefix_, message, now, payload, channel_, batch_text};
    std::size_t total = 0;
    for (;;) {
      auto counts = read_counts(client_->eval(fail_unfinished_script, keys, args));
      if (!counts) return counts.error();
      total += static_cast<std::size_t>(std::max<std::int64_t>(counts->second, 0));
      if (counts->first < static_cast<std::int64_t>(batch)) return total;
    }
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("task store: ") + e.what()};
  }

  result<std::vector<task_record>> unfinished() override try {
    const std::string now = now_text();
    const std::string batch_text = std::to_string(batch);
    const std::string_view keys[] = {unfinished_key_};
    std::vector<task_record> out;
    std::string after = "0";
    for (;;) {
      const std::string_view args[] = {prefix_, now, after, batch_text};
      auto r = client_->eval(unfinished_script, keys, args);
      if (!r) return storage(r.error());
      if (!r->is_array() || r->elements.size() != 3 || !r->elements[0].is_string() ||
          !r->elements[1].is_array() || !r->elements[2].is_array() ||
          r->elements[1].elements.size() != r->elements[2].elements.size()) {
        return error{errc::internal_error, "task store: Redis answered unexpectedly"};
      }
      for (std::size_t i = 0; i < r->elements[1].elements.size(); ++i) {
        auto t = read_task(r->elements[1].elements[i], true);
        if (!t) return t.error();
        const auto& id = r->elements[2].elements[i];
        if (!id.is_string()) return corrupt("record");
        t->second.id = id.str;
        out.push_back(std::move(t->second));
      }
      const auto last = to_int(r->elements[0].str);
      if (!last) return corrupt("sequence number");
      if (*last == 0) return out;
      after = r->elements[0].str;
    }
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("task store: ") + e.what()};
  }

  [[nodiscard]] bool shared_between_processes() const noexcept override { return true; }

  std::shared_ptr<void> watch(std::function<void(std::string_view task_id)> on_change) override {
    if (!on_change) return nullptr;
    try {
      auto sub = client_->subscribe(
          channel_, [fn = std::move(on_change)](std::string_view id, bool resubscribed) {
            fn(resubscribed ? std::string_view() : id);
          });
      // Changes made once watch returned are seen (unless Redis cannot be reached just now).
      (void)client_->subscribed(std::chrono::milliseconds(500));
      return sub;
    } catch (...) {
      return nullptr;
    }
  }

 private:
  [[nodiscard]] std::string task_key(std::string_view id) const {
    std::string k = prefix_;
    k += "task:";
    k += id;
    return k;
  }
  [[nodiscard]] std::string owner_index(std::string_view owner) const {
    std::string k = prefix_;
    k += "tasks:owner:";
    k += owner;
    return k;
  }
  static std::string now_text() {
    return std::to_string(detail::to_epoch_ms(std::chrono::system_clock::now()));
  }

  std::shared_ptr<redis_client> client_;
  const std::string prefix_;
  const std::string unfinished_key_;
  const std::string expiry_key_;
  const std::string seq_key_;
  const std::string channel_;
};

}  // namespace

result<std::shared_ptr<task_store>> make_redis_task_store(std::shared_ptr<redis_client> client) {
  if (!client) return error{errc::invalid_params, "task store: no Redis client"};
  const std::string_view ping[] = {"PING"};
  if (auto r = client->command(ping); !r) return storage(r.error());
  try {
    return std::shared_ptr<task_store>(std::make_shared<redis_task_store>(std::move(client)));
  } catch (const std::exception& e) {
    return error{errc::internal_error, std::string("task store: ") + e.what()};
  }
}

result<std::shared_ptr<task_store>> make_redis_task_store(redis_options options) {
  auto client = make_redis_client(std::move(options));
  if (!client) return client.error();
  return make_redis_task_store(std::move(*client));
}

}  // namespace mcp
