#include "tool_registry.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

namespace mcp::detail {

era era_of(std::string_view v) noexcept {
  if (v >= "2025-11-25") return era::v2025_11_25;
  if (v >= "2025-06-18") return era::v2025_06_18;
  if (v >= "2025-03-26") return era::v2025_03_26;
  return era::v2024_11_05;
}

bool content_type_known(std::string_view type, era e) noexcept {
  if (type == "resource_link") return e >= era::v2025_06_18;
  if (type == "audio") return e >= era::v2025_03_26;
  return true;
}

void check_tool_name(std::string_view name) {
  if (name.empty() || name.size() > 128) {
    throw std::invalid_argument("tool name must be 1-128 characters: \"" + std::string(name) +
                                "\"");
  }
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok) {
      throw std::invalid_argument("tool name \"" + std::string(name) +
                                  "\" may contain only A-Z a-z 0-9 _ - .");
    }
  }
}

namespace {

json::array icons_json(const std::vector<icon>& icons) {
  json::array arr;
  for (const auto& i : icons) {
    json::object o;
    o["src"] = i.src;
    if (i.mime_type) o["mimeType"] = *i.mime_type;
    if (!i.sizes.empty()) {
      json::array s;
      for (const auto& z : i.sizes) s.emplace_back(z);
      o["sizes"] = std::move(s);
    }
    if (i.theme) o["theme"] = *i.theme;
    arr.emplace_back(std::move(o));
  }
  return arr;
}

json::object annotations_json(const tool_annotations& a) {
  json::object o;
  if (a.title) o["title"] = *a.title;
  if (a.read_only_hint) o["readOnlyHint"] = *a.read_only_hint;
  if (a.destructive_hint) o["destructiveHint"] = *a.destructive_hint;
  if (a.idempotent_hint) o["idempotentHint"] = *a.idempotent_hint;
  if (a.open_world_hint) o["openWorldHint"] = *a.open_world_hint;
  return o;
}

std::string_view task_support_name(task_support t) {
  switch (t) {
    case task_support::forbidden:
      return "forbidden";
    case task_support::optional:
      return "optional";
    case task_support::required:
      return "required";
  }
  return "forbidden";
}

/// The Tool object as the given era defines it.
std::string tool_wire(const tool_spec& s, era e) {
  json::object o;
  o["name"] = s.name;
  if (e >= era::v2025_06_18 && s.title) o["title"] = *s.title;
  o["description"] = s.description;
  if (e >= era::v2025_11_25 && !s.icons.empty()) o["icons"] = icons_json(s.icons);
  o["inputSchema"] = *s.input_schema;
  if (e >= era::v2025_06_18 && s.output_schema) o["outputSchema"] = *s.output_schema;
  if (e >= era::v2025_03_26) {
    auto a = annotations_json(s.annotations);
    if (!a.empty()) o["annotations"] = std::move(a);
  }
  if (e >= era::v2025_11_25 && s.task_support_mode) {
    o["execution"] = json::object{{"taskSupport", task_support_name(*s.task_support_mode)}};
  }
  if (e >= era::v2025_06_18 && !s.meta.empty()) o["_meta"] = s.meta;
  return to_json_string(o);
}

std::shared_ptr<const json_schema::validator> compile_schema(const json::object& schema,
                                                             std::string_view what,
                                                             std::string_view tool) {
  const auto* type = schema.if_contains("type");
  if (!type || !type->is_string() || type->get_string() != "object") {
    throw std::invalid_argument("tool \"" + std::string(tool) + "\": " + std::string(what) +
                                " must have \"type\": \"object\" at its root");
  }
  auto v = json_schema::validator::compile(json::value(schema));
  if (!v) {
    throw std::invalid_argument("tool \"" + std::string(tool) + "\": " + std::string(what) +
                                " does not compile: " + v.error().message);
  }
  return std::make_shared<const json_schema::validator>(std::move(*v));
}

}  // namespace

std::string make_cursor(std::string_view epoch, std::uint64_t seq) {
  return base64_encode("c1:" + std::string(epoch) + ":" + std::to_string(seq));
}

/// The sequence number a cursor names; nothing for an invalid or stale cursor.
std::optional<std::uint64_t> read_cursor(std::string_view cursor, std::string_view epoch) {
  if (!is_valid_base64(cursor) || cursor.size() > 200) return std::nullopt;
  std::string plain;
  std::uint32_t buf = 0;
  int bits = 0;
  for (const char c : cursor) {
    if (c == '=') break;
    std::uint32_t v = 0;
    if (c >= 'A' && c <= 'Z')
      v = static_cast<std::uint32_t>(c - 'A');
    else if (c >= 'a' && c <= 'z')
      v = static_cast<std::uint32_t>(c - 'a' + 26);
    else if (c >= '0' && c <= '9')
      v = static_cast<std::uint32_t>(c - '0' + 52);
    else
      v = c == '+' ? 62U : 63U;
    buf = (buf << 6U) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      plain.push_back(static_cast<char>((buf >> static_cast<unsigned>(bits)) & 0xFFU));
    }
  }
  const std::string prefix = "c1:" + std::string(epoch) + ":";
  if (plain.rfind(prefix, 0) != 0) return std::nullopt;
  std::uint64_t seq = 0;
  const char* first = plain.data() + prefix.size();
  const char* last = plain.data() + plain.size();
  auto r = std::from_chars(first, last, seq);
  if (r.ec != std::errc{} || r.ptr != last || first == last) return std::nullopt;
  return seq;
}

tool_registry::tool_registry() {
  std::random_device rd;
  epoch_ = std::to_string(rd()) + std::to_string(rd());
}

void tool_registry::add(tool_spec spec, async_tool_handler handler) {
  check_tool_name(spec.name);
  if (!handler) throw std::invalid_argument("tool \"" + spec.name + "\": handler is empty");
  auto e = std::make_shared<tool_entry>();
  if (!spec.input_schema) spec.input_schema = json::object{{"type", "object"}};
  e->input_validator = compile_schema(*spec.input_schema, "inputSchema", spec.name);
  if (spec.output_schema) {
    e->output_validator = compile_schema(*spec.output_schema, "outputSchema", spec.name);
  }
  for (std::size_t i = 0; i < e->wire.size(); ++i)
    e->wire[i] = tool_wire(spec, static_cast<era>(i));
  e->spec = std::move(spec);
  e->handler = std::move(handler);

  std::unique_lock lock(mu_);
  if (by_name_.contains(e->spec.name)) {
    throw std::invalid_argument("tool \"" + e->spec.name + "\" is already registered");
  }
  e->seq = next_seq_++;
  by_name_.emplace(e->spec.name, e->seq);
  by_seq_.emplace(e->seq, std::move(e));
}

bool tool_registry::remove(std::string_view name) {
  std::unique_lock lock(mu_);
  auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) return false;
  by_seq_.erase(it->second);
  by_name_.erase(it);
  return true;
}

bool tool_registry::set_enabled(std::string_view name, bool enabled) {
  std::unique_lock lock(mu_);
  auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) return false;
  auto& entry = by_seq_.at(it->second);
  if (entry->enabled == enabled) return true;
  // Entries are shared with running calls: replace instead of mutating.
  auto copy = std::make_shared<tool_entry>(*entry);
  copy->enabled = enabled;
  entry = std::move(copy);
  return true;
}

std::vector<std::string> tool_registry::names() const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  out.reserve(by_seq_.size());
  for (const auto& [seq, e] : by_seq_) out.push_back(e->spec.name);
  return out;
}

std::shared_ptr<const tool_entry> tool_registry::find(std::string_view name) const {
  std::shared_lock lock(mu_);
  auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) return nullptr;
  auto e = by_seq_.at(it->second);
  if (!e->enabled) return nullptr;
  return e;
}

result<list_page> tool_registry::list(const std::optional<std::string>& cursor, era e,
                                      std::size_t page_size, std::string& out) const {
  std::uint64_t after = 0;
  if (cursor) {
    auto seq = read_cursor(*cursor, epoch_);
    if (!seq) return error{errc::invalid_params, "Invalid cursor"};
    after = *seq;
  }
  list_page page;
  std::vector<const std::string*> tools;
  tools.reserve(std::min<std::size_t>(page_size, 1024));
  std::size_t bytes = 2;
  std::uint64_t last = after;
  std::shared_lock lock(mu_);
  for (auto it = by_seq_.upper_bound(after); it != by_seq_.end(); ++it) {
    if (!it->second->enabled) continue;
    if (tools.size() == page_size) {
      page.next_cursor = make_cursor(epoch_, last);
      break;
    }
    tools.push_back(&it->second->wire[static_cast<std::size_t>(e)]);
    bytes += tools.back()->size() + 1;
    last = it->first;
  }
  out.reserve(out.size() + bytes + 128);  // room for what the caller appends after the page
  out.push_back('[');
  for (std::size_t i = 0; i < tools.size(); ++i) {
    if (i > 0) out.push_back(',');
    out += *tools[i];
  }
  out.push_back(']');
  return page;
}

}  // namespace mcp::detail
