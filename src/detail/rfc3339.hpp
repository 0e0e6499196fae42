// Internal: timestamps as RFC 3339 text (tasks' createdAt, the audit log).
#pragma once

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

namespace mcp::detail {

/// RFC 3339 in UTC with milliseconds: 2025-11-25T10:30:00.123Z.
inline std::string rfc3339(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch());
  const std::time_t secs = static_cast<std::time_t>(ms.count() / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms.count() % 1000));
  return buf;
}

}  // namespace mcp::detail
