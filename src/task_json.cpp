// The Task object on the wire (2025-11-25 and the 2026-07-28 extension's flat Task): as a
// JSON object (tasks/get, tasks/list, tasks/cancel, the DetailedTask) and written straight to
// JSON text (the CreateTaskResult and notifications/tasks/status, once per task each).
#include <mcp/json.hpp>

#include <charconv>
#include <cstdint>
#include <string>

#include "detail/rfc3339.hpp"
#include "tasks.hpp"

namespace mcp::detail {

json::object task_json(const task_record& t, bool modern) {
  // Room for every member (a 2026-07-28 DetailedTask's too): no rehash on the way.
  json::object o(modern ? 9 : 7);
  o.emplace("taskId", t.id);
  o.emplace("status", to_string(t.status));
  if (!t.status_message.empty()) o.emplace("statusMessage", t.status_message);
  o.emplace("createdAt", rfc3339(t.created_at));
  o.emplace("lastUpdatedAt", rfc3339(t.last_updated_at));
  // 2025-11-25: `ttl` (null: unlimited) and `pollInterval`; 2026-07-28: `ttlMs` (null for 0
  // too) and `pollIntervalMs` (left out for 0).
  const bool ttl = modern ? t.ttl && t.ttl->count() > 0 : t.ttl.has_value();
  if (ttl) {
    o.emplace(modern ? "ttlMs" : "ttl", t.ttl->count());
  } else {
    o.emplace(modern ? "ttlMs" : "ttl", nullptr);
  }
  if (t.poll_interval && (!modern || t.poll_interval->count() > 0)) {
    o.emplace(modern ? "pollIntervalMs" : "pollInterval", t.poll_interval->count());
  }
  return o;
}

void append_task_json(std::string& out, const task_record& t, bool modern) {
  const auto number = [&out](std::int64_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
  };
  out += R"({"taskId":)";
  append_json_string(out, t.id);
  out += R"(,"status":")";
  out += to_string(t.status);  // a fixed word: nothing to escape
  out += '"';
  if (!t.status_message.empty()) {
    out += R"(,"statusMessage":)";
    append_json_string(out, t.status_message);
  }
  out += R"(,"createdAt":")";
  append_rfc3339(out, t.created_at);
  out += R"(","lastUpdatedAt":")";
  append_rfc3339(out, t.last_updated_at);
  out += modern ? R"(","ttlMs":)" : R"(","ttl":)";
  // As task_json: 2026-07-28 writes null for 0 too, and leaves a 0 pollIntervalMs out.
  if (modern ? t.ttl && t.ttl->count() > 0 : t.ttl.has_value()) {
    number(t.ttl->count());
  } else {
    out += "null";
  }
  if (t.poll_interval && (!modern || t.poll_interval->count() > 0)) {
    out += modern ? R"(,"pollIntervalMs":)" : R"(,"pollInterval":)";
    number(t.poll_interval->count());
  }
  out += '}';
}

}  // namespace mcp::detail
