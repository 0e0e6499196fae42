// Internal: timestamps as RFC 3339 text (tasks' createdAt, the audit log).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>

namespace mcp::detail {

/// RFC 3339 in UTC with milliseconds, appended to `out`: 2025-11-25T10:30:00.123Z. Written by
/// hand (the civil date from the day count): every task's createdAt and lastUpdatedAt is
/// formatted on each read, where gmtime_r and snprintf cost more than the rest of the Task object.
inline void append_rfc3339(std::string& out, std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::floor<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const auto days = std::chrono::floor<std::chrono::days>(std::chrono::milliseconds(ms));
  const std::chrono::year_month_day ymd{std::chrono::sys_days(days)};
  const int year = static_cast<int>(ymd.year());
  if (year < 0 || year > 9999) {  // outside four digits: as printf spells it
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(ms % 1000));
    out += buf;
    return;
  }
  const auto in_day = static_cast<std::uint32_t>(ms - days.count() * 86'400'000LL);
  const std::size_t base = out.size();
  out.resize(base + 24, '0');
  const auto put = [&out, base](std::size_t at, std::uint32_t v, std::size_t width) {
    for (std::size_t i = width; i > 0; --i, v /= 10)
      out[base + at + i - 1] = static_cast<char>('0' + v % 10);
  };
  put(0, static_cast<std::uint32_t>(year), 4);
  out[base + 4] = '-';
  put(5, static_cast<unsigned>(ymd.month()), 2);
  out[base + 7] = '-';
  put(8, static_cast<unsigned>(ymd.day()), 2);
  out[base + 10] = 'T';
  put(11, in_day / 3'600'000U, 2);
  out[base + 13] = ':';
  put(14, in_day / 60'000U % 60U, 2);
  out[base + 16] = ':';
  put(17, in_day / 1000U % 60U, 2);
  out[base + 19] = '.';
  put(20, in_day % 1000U, 3);
  out[base + 23] = 'Z';
}

/// The same as a string of its own.
inline std::string rfc3339(std::chrono::system_clock::time_point t) {
  std::string out;
  out.reserve(24);
  append_rfc3339(out, t);
  return out;
}

}  // namespace mcp::detail
