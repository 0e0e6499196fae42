// The Prometheus text exposition (format 0.0.4) of a metrics snapshot, with OpenTelemetry's
// mapping (specification compatibility/prometheus_and_openmetrics.md): names and label names
// with discouraged characters replaced by `_` (runs collapsed), the unit as a suffix (`s` →
// `seconds`, `{...}` dropped), `_total` on counters, scope labels, `target_info` for the
// resource. Label values escaped (`\\`, `\"`, `\n`) and made valid UTF-8.
#include <mcp/observe/metrics.hpp>

#include <charconv>
#include <map>

#include "detail/utf8.hpp"

#ifndef MCP_OBSERVE_SCOPE_VERSION
#define MCP_OBSERVE_SCOPE_VERSION "0.0.0"
#endif

namespace mcp::observe {

std::string_view scope_name() noexcept { return "mcp-cpp"; }
std::string_view scope_version() noexcept { return MCP_OBSERVE_SCOPE_VERSION; }

namespace {

bool name_char(char c, bool colon_ok) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         (colon_ok && c == ':');
}

/// Discouraged characters to `_`, runs of `_` to one, a leading digit prefixed with `_`.
std::string sanitize(std::string_view in, bool colon_ok) {
  std::string out;
  out.reserve(in.size() + 1);
  for (const char c : in) {
    const char x = name_char(c, colon_ok) ? c : '_';
    if (x == '_' && !out.empty() && out.back() == '_') continue;
    out += x;
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out.insert(out.begin(), '_');
  return out;
}

/// The unit's word: brackets dropped, the UCUM units of time and size spelled out.
std::string unit_word(std::string_view unit) {
  std::string u;
  bool in_braces = false;
  for (const char c : unit) {
    if (c == '{') in_braces = true;
    if (!in_braces) u += c;
    if (c == '}') in_braces = false;
  }
  static const std::map<std::string, std::string, std::less<>> words = {
      {"s", "seconds"},       {"ms", "milliseconds"},
      {"us", "microseconds"}, {"ns", "nanoseconds"},
      {"min", "minutes"},     {"h", "hours"},
      {"By", "bytes"},        {"KiBy", "kibibytes"},
      {"MiBy", "mebibytes"},  {"1", ""}};
  if (auto it = words.find(u); it != words.end()) return it->second;
  return u.empty() ? u : sanitize(u, false);
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string family_name(const metric_data& m) {
  std::string name = sanitize(m.name, true);
  const auto unit = unit_word(m.unit);
  if (!unit.empty() && !ends_with(name, unit)) name += "_" + unit;
  if (m.type == metric_type::counter && !ends_with(name, "_total")) name += "_total";
  return name;
}

void append_help(std::string& out, std::string_view text) {
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

void append_label_value(std::string& out, std::string_view v) {
  for (std::size_t i = 0; i < v.size();) {
    const auto ch = detail::decode_utf8(v, i);
    if (ch.length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not UTF-8
      ++i;
      continue;
    }
    const char c = v[i];
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.append(v.substr(i, ch.length));
    }
    i += ch.length;
  }
}

void append_number(std::string& out, double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_number(std::string& out, std::int64_t v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_number(std::string& out, std::uint64_t v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

std::string value_text(const attribute_value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  std::string out;
  append_number(out, std::get<std::int64_t>(v));
  return out;
}

/// `{name="value",...,otel_scope_name="mcp-cpp",otel_scope_version="x"` (not closed).
std::string label_set(const std::vector<attribute>& attrs) {
  std::string out = "{";
  for (const auto& a : attrs) {
    out += sanitize(a.key, false);
    out += "=\"";
    append_label_value(out, value_text(a.value));
    out += "\",";
  }
  out += "otel_scope_name=\"";
  append_label_value(out, scope_name());
  out += "\",otel_scope_version=\"";
  append_label_value(out, scope_version());
  out += '"';
  return out;
}

void write_target_info(const resource_attributes& resource, std::string& out) {
  // Labels from the attributes; keys that map to the same label get their values joined with
  // `;` in key order.
  std::map<std::string, std::pair<std::string, std::string>> labels;  // label -> (key, value)
  std::map<std::string, std::string> sorted(resource.begin(), resource.end());
  for (const auto& [k, v] : sorted) {
    auto& slot = labels[sanitize(k, false)];
    slot.second = slot.first.empty() ? v : slot.second + ";" + v;
    slot.first = k;
  }
  out += "# HELP target_info Target metadata\n# TYPE target_info gauge\ntarget_info{";
  bool first = true;
  for (const auto& [label, kv] : labels) {
    if (!first) out += ',';
    first = false;
    out += label;
    out += "=\"";
    append_label_value(out, kv.second);
    out += '"';
  }
  out += "} 1\n";
}

}  // namespace

void write_prometheus(const metrics_snapshot& snap, const resource_attributes& resource,
                      std::string& out) {
  if (!resource.empty()) write_target_info(resource, out);
  for (const auto& m : snap.metrics) {
    const auto name = family_name(m);
    out += "# HELP ";
    out += name;
    out += ' ';
    append_help(out, m.description);
    out += "\n# TYPE ";
    out += name;
    out += m.type == metric_type::histogram ? " histogram\n"
           : m.type == metric_type::counter ? " counter\n"
                                            : " gauge\n";
    for (const auto& p : m.number_points) {
      out += name;
      out += label_set(p.attributes);
      out += "} ";
      append_number(out, p.value);
      out += '\n';
    }
    for (const auto& p : m.histogram_points) {
      const auto labels = label_set(p.attributes);
      std::uint64_t cumulative = 0;
      for (std::size_t i = 0; i < duration_buckets; ++i) {
        cumulative += p.bucket_counts[i];
        out += name;
        out += "_bucket";
        out += labels;
        out += ",le=\"";
        if (i < duration_bounds.size()) {
          append_number(out, duration_bounds[i]);
        } else {
          out += "+Inf";
        }
        out += "\"} ";
        append_number(out, cumulative);
        out += '\n';
      }
      out += name;
      out += "_sum";
      out += labels;
      out += "} ";
      append_number(out, p.sum);
      out += '\n';
      out += name;
      out += "_count";
      out += labels;
      out += "} ";
      append_number(out, p.count);
      out += '\n';
    }
  }
}

}  // namespace mcp::observe
