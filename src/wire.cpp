#include "wire.hpp"

namespace mcp::detail::wire {

json::array icons(const std::vector<icon>& icons) {
  json::array arr;
  arr.reserve(icons.size());
  for (const auto& i : icons) {
    json::object o{{"src", i.src}};
    if (i.mime_type) o["mimeType"] = *i.mime_type;
    if (!i.sizes.empty()) {
      json::array sizes;
      for (const auto& z : i.sizes) sizes.emplace_back(z);
      o["sizes"] = std::move(sizes);
    }
    if (i.theme) o["theme"] = *i.theme;
    arr.emplace_back(std::move(o));
  }
  return arr;
}

json::object annotations(const content_annotations& a, era e) {
  json::object o;
  if (a.audience) {
    json::array aud;
    for (const auto& x : *a.audience) aud.emplace_back(x);
    o["audience"] = std::move(aud);
  }
  if (a.priority) o["priority"] = *a.priority;
  if (a.last_modified && traits(e).annotation_last_modified) o["lastModified"] = *a.last_modified;
  return o;
}

json::object tool_annotations(const mcp::tool_annotations& a) {
  json::object o;
  if (a.title) o["title"] = *a.title;
  if (a.read_only_hint) o["readOnlyHint"] = *a.read_only_hint;
  if (a.destructive_hint) o["destructiveHint"] = *a.destructive_hint;
  if (a.idempotent_hint) o["idempotentHint"] = *a.idempotent_hint;
  if (a.open_world_hint) o["openWorldHint"] = *a.open_world_hint;
  return o;
}

json::object implementation(const server_info& info, era e) {
  const auto& t = traits(e);
  json::object o{{"name", info.name}, {"version", info.version}};
  if (t.titles && info.title) o["title"] = *info.title;
  if (t.icons) {
    if (info.description) o["description"] = *info.description;
    if (info.website_url) o["websiteUrl"] = *info.website_url;
    if (!info.icons.empty()) o["icons"] = icons(info.icons);
  }
  return o;
}

std::string_view task_support_name(task_support t) noexcept {
  switch (t) {
    case task_support::optional:
      return "optional";
    case task_support::required:
      return "required";
    case task_support::forbidden:
      break;
  }
  return "forbidden";
}

std::string tool(const tool_spec& s, era e) {
  const auto& t = traits(e);
  json::object o;
  o["name"] = s.name;
  if (t.titles && s.title) o["title"] = *s.title;
  o["description"] = s.description;
  if (t.icons && !s.icons.empty()) o["icons"] = icons(s.icons);
  o["inputSchema"] = s.input_schema.value_or(json::object{{"type", "object"}});
  if (t.structured_output && s.output_schema) o["outputSchema"] = *s.output_schema;
  if (t.tool_annotations) {
    auto a = tool_annotations(s.annotations);
    if (!a.empty()) o["annotations"] = std::move(a);
  }
  if (t.tool_execution && s.task_support_mode) {
    o["execution"] = json::object{{"taskSupport", task_support_name(*s.task_support_mode)}};
  }
  if (t.titles && !s.meta.empty()) o["_meta"] = s.meta;
  return to_json_string(o);
}

namespace {

/// The fields `Resource` and `ResourceTemplate` share.
template <class Spec>
void resource_fields(json::object& o, const Spec& s, era e) {
  const auto& t = traits(e);
  o["name"] = s.name;
  if (t.titles && s.title) o["title"] = *s.title;
  if (s.description) o["description"] = *s.description;
  if (s.mime_type) o["mimeType"] = *s.mime_type;
  if (t.icons && !s.icons.empty()) o["icons"] = icons(s.icons);
  if (s.annotations) {
    auto a = annotations(*s.annotations, e);
    if (!a.empty()) o["annotations"] = std::move(a);
  }
  if (t.titles && !s.meta.empty()) o["_meta"] = s.meta;
}

}  // namespace

json::object resource(const resource_spec& s, era e) {
  json::object o{{"uri", s.uri}};
  resource_fields(o, s, e);
  if (s.size) o["size"] = *s.size;
  return o;
}

json::object resource_template(const resource_template_spec& s, era e) {
  json::object o{{"uriTemplate", s.uri_template}};
  resource_fields(o, s, e);
  return o;
}

json::object prompt(const prompt_spec& s, era e) {
  const auto& t = traits(e);
  json::object o{{"name", s.name}};
  if (t.titles && s.title) o["title"] = *s.title;
  if (s.description) o["description"] = *s.description;
  if (!s.arguments.empty()) {
    json::array args;
    for (const auto& a : s.arguments) {
      json::object ao{{"name", a.name}};
      if (t.titles && a.title) ao["title"] = *a.title;
      if (a.description) ao["description"] = *a.description;
      if (a.required) ao["required"] = true;
      args.emplace_back(std::move(ao));
    }
    o["arguments"] = std::move(args);
  }
  if (t.icons && !s.icons.empty()) o["icons"] = icons(s.icons);
  if (t.titles && !s.meta.empty()) o["_meta"] = s.meta;
  return o;
}

void drop_unknown_content(json::array& content, era e) {
  for (auto it = content.begin(); it != content.end();) {
    const auto* type = it->is_object() ? it->get_object().if_contains("type") : nullptr;
    const bool drop = type && type->is_string() && !content_type_known(type->get_string(), e);
    it = drop ? content.erase(it) : it + 1;
  }
}

void append_tool_result(std::string& out, const call_tool_result& r, const json::value* structured,
                        era e, std::string_view meta_member, bool open) {
  const auto& t = traits(e);
  out += R"({"content":[)";
  bool first = true;
  for (const auto& block : r.content) {
    const auto* type = block.is_object() ? block.get_object().if_contains("type") : nullptr;
    if (type && type->is_string() && !content_type_known(type->get_string(), e)) continue;
    if (!first) out += ',';
    first = false;
    append_json(out, block);
  }
  out += ']';
  if (structured && t.structured_output) {
    out += R"(,"structuredContent":)";
    append_json(out, *structured);
  }
  if (r.is_error) out += R"(,"isError":true)";
  const bool meta = !r.meta.empty() && t.result_meta;
  if (meta || !meta_member.empty()) {
    out += R"(,"_meta":)";
    if (meta) {
      append_json(out, r.meta);
      out.pop_back();  // its '}'
      if (!meta_member.empty()) out += ',';
    } else {
      out += '{';
    }
    out += meta_member;
    out += '}';
  }
  if (!open) out += '}';
}

void append_text_result(std::string& out, std::string_view text, std::string_view meta_member,
                        bool open) {
  // Every era knows text blocks; the block's members in `text_content`'s order.
  out += R"({"content":[{"type":"text","text":)";
  append_json_string(out, text);
  out += "}]";
  if (!meta_member.empty()) {
    out += R"(,"_meta":{)";
    out += meta_member;
    out += '}';
  }
  if (!open) out += '}';
}

}  // namespace mcp::detail::wire
