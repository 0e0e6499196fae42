// What `mcp-cpp tools` shows a person: the tool table, a tool's arguments, and a call's result
// (text as text, structuredContent indented, media saved to files).
#include <mcp/content.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "tools_cli.hpp"

namespace mcp::cli {

namespace {

const json::object* object_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr ? v->if_object() : nullptr;
}

/// The first line of `text`, cut to `max` bytes (on a UTF-8 boundary) with "...".
std::string first_line(std::string_view text, std::size_t max) {
  text = text.substr(0, text.find('\n'));
  if (text.size() <= max) return std::string(text);
  std::size_t cut = max - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) --cut;
  return std::string(text.substr(0, cut)) + "...";
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string joined(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

void append_pretty(std::string& out, const json::value& v, int indent) {
  const std::string in(static_cast<std::size_t>(indent + 2), ' ');
  if (const auto* o = v.if_object(); o != nullptr && !o->empty()) {
    out += "{\n";
    bool first = true;
    for (const auto& kv : *o) {
      if (!first) out += ",\n";
      first = false;
      out += in;
      append_json_string(out, kv.key());
      out += ": ";
      append_pretty(out, kv.value(), indent + 2);
    }
    out += "\n" + std::string(static_cast<std::size_t>(indent), ' ') + "}";
  } else if (const auto* a = v.if_array(); a != nullptr && !a->empty()) {
    out += "[\n";
    bool first = true;
    for (const auto& e : *a) {
      if (!first) out += ",\n";
      first = false;
      out += in;
      append_pretty(out, e, indent + 2);
    }
    out += "\n" + std::string(static_cast<std::size_t>(indent), ' ') + "]";
  } else {
    append_json(out, v);
  }
}

/// The type of a property schema as a word: "integer", "string|null", "array of string",
/// "enum", "any".
std::string type_text(const json::object& prop) {
  std::string t;
  if (const auto* type = prop.if_contains("type")) {
    if (type->is_string()) t = type->get_string();
    if (const auto* list = type->if_array()) {
      std::vector<std::string> names;
      for (const auto& e : *list) {
        if (e.is_string()) names.emplace_back(e.get_string());
      }
      t = joined(names, "|");
    }
  }
  if (t == "array") {
    if (const auto* items = object_at(prop, "items")) {
      const auto inner = type_text(*items);
      if (inner != "any") t += " of " + inner;
    }
  }
  for (const char* key : {"anyOf", "oneOf"}) {
    const auto* branches = prop.if_contains(key);
    if (!t.empty() || branches == nullptr || !branches->is_array()) continue;
    std::vector<std::string> names;
    for (const auto& b : branches->get_array()) {
      if (const auto* o = b.if_object()) names.push_back(type_text(*o));
    }
    t = joined(names, "|");
  }
  if (t.empty() && prop.contains("properties")) t = "object";
  if (t.empty()) t = prop.contains("enum") ? "enum" : "any";
  return terminal_safe(t);
}

/// "range 1..16", "length >= 1": a lower and an upper bound of one kind.
std::string bounds(const json::object& prop, std::string_view what, const char* min_key,
                   const char* max_key, const char* xmin_key, const char* xmax_key) {
  const json::value* lo = prop.if_contains(min_key);
  const json::value* hi = prop.if_contains(max_key);
  const json::value* xlo = xmin_key != nullptr ? prop.if_contains(xmin_key) : nullptr;
  const json::value* xhi = xmax_key != nullptr ? prop.if_contains(xmax_key) : nullptr;
  if (lo != nullptr && hi != nullptr) {
    return std::string(what) + " " + to_json_string(*lo) + ".." + to_json_string(*hi);
  }
  std::vector<std::string> parts;
  if (lo != nullptr) parts.push_back(">= " + to_json_string(*lo));
  if (xlo != nullptr) parts.push_back("> " + to_json_string(*xlo));
  if (hi != nullptr) parts.push_back("<= " + to_json_string(*hi));
  if (xhi != nullptr) parts.push_back("< " + to_json_string(*xhi));
  if (parts.empty()) return {};
  return std::string(what) + " " + joined(parts, " and ");
}

/// Default, range, length, pattern, format and allowed values of a property.
std::vector<std::string> constraints(const json::object& prop) {
  std::vector<std::string> out;
  if (const auto* d = prop.if_contains("default")) out.push_back("default " + to_json_string(*d));
  for (auto b :
       {bounds(prop, "range", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"),
        bounds(prop, "length", "minLength", "maxLength", nullptr, nullptr),
        bounds(prop, "items", "minItems", "maxItems", nullptr, nullptr)}) {
    if (!b.empty()) out.push_back(std::move(b));
  }
  if (auto p = string_at(prop, "pattern"); !p.empty()) out.push_back("pattern " + p);
  if (auto f = string_at(prop, "format"); !f.empty()) out.push_back("format " + f);
  if (const auto* e = prop.if_contains("enum"); e != nullptr && e->is_array()) {
    std::vector<std::string> values;
    for (const auto& v : e->get_array()) values.push_back(to_json_string(v));
    out.push_back("one of " + joined(values, ", "));
  }
  if (const auto* c = prop.if_contains("const")) out.push_back("always " + to_json_string(*c));
  return out;
}

std::string extension_for(std::string_view mime) {
  static const std::pair<std::string_view, std::string_view> known[] = {
      {"image/png", "png"},   {"image/jpeg", "jpg"},    {"image/gif", "gif"},
      {"image/webp", "webp"}, {"image/svg+xml", "svg"}, {"audio/wav", "wav"},
      {"audio/x-wav", "wav"}, {"audio/wave", "wav"},    {"audio/mpeg", "mp3"},
      {"audio/ogg", "ogg"},   {"audio/flac", "flac"},   {"application/pdf", "pdf"}};
  for (const auto& [m, ext] : known) {
    if (mime == m) return std::string(ext);
  }
  return "bin";
}

/// Saves base64 `data` as the next free `<tool>-<n>.<ext>` under `dir`; the path written.
result<std::string> save_media(const std::string& dir, const std::string& tool,
                               std::string_view mime, std::string_view data) {
  auto bytes = base64_decode(data);
  if (!bytes) return error{errc::invalid_params, "the server sent data that is not base64"};
  std::string stem;
  for (char c : tool)
    stem += std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == '_'
                ? c
                : '_';
  const std::filesystem::path base(dir.empty() ? std::string(".") : dir);
  std::filesystem::path path;
  for (int n = 1;; ++n) {
    path = base / (stem + "-" + std::to_string(n) + "." + extension_for(mime));
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) break;
  }
  std::ofstream f(path, std::ios::binary);
  f.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  if (!f) return error{errc::internal_error, "cannot write " + path.string()};
  return path.string() + " (" + std::string(mime) + ", " + std::to_string(bytes->size()) +
         " bytes)";
}

}  // namespace

std::string terminal_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char buf[8];
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0U;
    const auto third = i + 2 < text.size() ? static_cast<unsigned char>(text[i + 2]) : 0U;
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else if (c == 0xc2 && next >= 0x80 && next <= 0x9f) {  // C1 controls (U+0080-U+009F)
      std::snprintf(buf, sizeof buf, "\\u%04x", next);
      out += buf;
      ++i;
    } else if (c == 0xe2 && ((next == 0x80 && third >= 0xaa && third <= 0xae) ||
                             (next == 0x81 && third >= 0xa6 && third <= 0xa9))) {
      // bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069)
      std::snprintf(buf, sizeof buf, "\\u%04x",
                    next == 0x80 ? 0x2000U + (third - 0x80U) : 0x2040U + (third - 0x80U));
      out += buf;
      i += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string pretty_json(const json::value& v) {
  std::string out;
  append_pretty(out, v, 0);
  return out;
}

bool read_only(const tool_info& tool) {
  return tool.annotations && tool.annotations->read_only_hint.value_or(false);
}

std::vector<std::string> badges(const tool_info& tool) {
  const tool_annotations none;
  const auto& a = tool.annotations ? *tool.annotations : none;
  std::vector<std::string> out;
  const bool ro = read_only(tool);
  if (ro) out.emplace_back("read-only");
  if (!ro && a.destructive_hint.value_or(true)) out.emplace_back("destructive");
  if (a.idempotent_hint.value_or(false)) out.emplace_back("idempotent");
  if (a.open_world_hint.value_or(true)) out.emplace_back("open-world");
  return out;
}

std::string task_support(const tool_info& tool) {
  switch (tool.task_mode()) {
    case mcp::task_support::optional:
      return "optional";
    case mcp::task_support::required:
      return "required";
    case mcp::task_support::forbidden:
      break;
  }
  return "forbidden";
}

void print_tool_table(std::ostream& out, const std::vector<tool_info>& tools) {
  std::size_t name_w = 4;
  std::size_t badge_w = 11;
  for (const auto& t : tools) {
    name_w = std::max(name_w, terminal_safe(t.name).size());
    badge_w = std::max(badge_w, joined(badges(t), ", ").size());
  }
  out << pad("NAME", name_w + 2) << pad("ANNOTATIONS", badge_w + 2) << pad("TASKS", 11)
      << "DESCRIPTION\n";
  for (const auto& t : tools) {
    const auto mode = task_support(t);
    out << pad(terminal_safe(t.name), name_w + 2) << pad(joined(badges(t), ", "), badge_w + 2)
        << pad(mode == "forbidden" ? "-" : mode, 11)
        << first_line(terminal_safe(t.description.value_or("")), 70) << "\n";
  }
  out << tools.size() << (tools.size() == 1 ? " tool" : " tools")
      << ". Annotations are hints from the server, not guarantees.\n";
}

void print_tool_description(std::ostream& out, const tool_info& tool) {
  out << terminal_safe(tool.name);
  if (tool.title && !tool.title->empty()) out << " - " << terminal_safe(*tool.title);
  out << "\n";
  if (tool.description && !tool.description->empty()) {
    out << "\n" << terminal_safe(*tool.description) << "\n";
  }
  out << "\nannotations (hints from the server, not guarantees): " << joined(badges(tool), ", ")
      << "\n"
      << "task support: " << task_support(tool) << "\n";
  const json::object empty;
  const auto* schema = &tool.input_schema;
  const auto* props = object_at(*schema, "properties");
  std::vector<std::string> required;
  if (const auto* r = schema->if_contains("required"); r != nullptr && r->is_array()) {
    for (const auto& e : r->get_array()) {
      if (e.is_string()) required.emplace_back(e.get_string());
    }
  }
  if (props == nullptr || props->empty()) {
    out << "\narguments: none\n";
  } else {
    out << "\narguments:\n";
    std::size_t name_w = 4;
    std::size_t type_w = 4;
    for (const auto& kv : *props) {
      name_w = std::max(name_w, kv.key().size());
      if (const auto* p = kv.value().if_object()) type_w = std::max(type_w, type_text(*p).size());
    }
    for (const auto& kv : *props) {
      const json::object* p = kv.value().if_object();
      if (p == nullptr) p = &empty;
      const bool req =
          std::find(required.begin(), required.end(), std::string(kv.key())) != required.end();
      std::string line = "  " + pad(terminal_safe(kv.key()), name_w + 2) +
                         pad(type_text(*p), type_w + 2) + pad(req ? "required" : "optional", 10);
      line += string_at(*p, "description");
      if (auto extra = constraints(*p); !extra.empty()) {
        line += (line.back() == ' ' ? "" : "  ") + ("[" + joined(extra, "; ") + "]");
      }
      out << line.substr(0, line.find_last_not_of(' ') + 1) << "\n";
    }
  }
  if (const auto* os = tool.output_schema ? &*tool.output_schema : nullptr) {
    std::vector<std::string> names;
    if (const auto* p = object_at(*os, "properties")) {
      for (const auto& kv : *p) names.push_back(terminal_safe(kv.key()));
    }
    out << "\noutput: structuredContent checked against the outputSchema"
        << (names.empty() ? "" : " (" + joined(names, ", ") + ")") << "\n";
  }
}

result<void> print_call_result(std::ostream& out, const json::object& result,
                               const std::string& tool, const std::string& out_dir) {
  const json::value* structured = result.if_contains("structuredContent");
  if (const auto* content = result.if_contains("content"); content && content->is_array()) {
    for (const auto& item : content->get_array()) {
      const auto* block = item.if_object();
      if (block == nullptr) continue;
      const auto type = string_at(*block, "type");
      if (type == "text") {
        const auto text = string_at(*block, "text");
        if (structured != nullptr) {
          auto as_json = parse_json(text);
          if (as_json && *as_json == *structured) continue;  // the same data, shown below
        }
        out << text << (text.empty() || text.back() != '\n' ? "\n" : "");
      } else if (type == "image" || type == "audio") {
        auto saved =
            save_media(out_dir, tool, string_at(*block, "mimeType"), string_at(*block, "data"));
        if (!saved) return saved.error();
        out << "[" << type << " saved to " << *saved << "]\n";
      } else if (type == "resource_link") {
        out << "[link " << string_at(*block, "uri");
        if (auto n = string_at(*block, "title"); !n.empty()) out << " \"" << n << "\"";
        if (auto m = string_at(*block, "mimeType"); !m.empty()) out << " (" << m << ")";
        out << "]\n";
      } else if (const auto* res = object_at(*block, "resource"); type == "resource" && res) {
        out << "[resource " << string_at(*res, "uri");
        if (res->contains("blob")) {
          auto saved =
              save_media(out_dir, tool, string_at(*res, "mimeType"), string_at(*res, "blob"));
          if (!saved) return saved.error();
          out << " saved to " << *saved << "]\n";
        } else {
          out << "]\n" << string_at(*res, "text") << "\n";
        }
      } else {
        out << pretty_json(item) << "\n";
      }
    }
  }
  if (structured != nullptr) out << "structured content:\n" << pretty_json(*structured) << "\n";
  return {};
}

std::string string_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? terminal_safe(v->get_string()) : std::string();
}

int fail(std::string_view message) {
  std::cerr << "mcp-cpp: " << terminal_safe(message) << "\n";
  return exit_usage;
}

}  // namespace mcp::cli
