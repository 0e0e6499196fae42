// Resources and resource templates: wire forms, resources/list, resources/templates/list and
// resources/read (plain resources first, then templates in registration order).
#include <exception>

#include "catalog.hpp"

namespace mcp {

resource_contents resource_contents::text_of(std::string uri, std::string text,
                                             std::optional<std::string> mime_type) {
  resource_contents c;
  c.uri = std::move(uri);
  c.mime_type = std::move(mime_type);
  c.text = std::move(text);
  return c;
}

resource_contents resource_contents::blob_of(std::string uri, std::span<const std::byte> bytes,
                                             std::optional<std::string> mime_type) {
  resource_contents c;
  c.uri = std::move(uri);
  c.mime_type = std::move(mime_type);
  c.blob = base64_encode(bytes);
  return c;
}

json::object resource_contents::to_json() const {
  json::object o{{"uri", uri}};
  if (mime_type) o["mimeType"] = *mime_type;
  if (blob) {
    o["blob"] = *blob;
  } else {
    o["text"] = text.value_or(std::string{});
  }
  if (!meta.empty()) o["_meta"] = meta;
  return o;
}

error resource_not_found(std::string_view uri) {
  return error{errc::resource_not_found, "Resource not found: " + std::string(uri),
               json::value(json::object{{"uri", uri}})};
}

namespace detail {

json::array icons_to_json(const std::vector<icon>& icons) {
  json::array arr;
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

json::object annotations_to_json(const content_annotations& a) {
  json::object o;
  if (a.audience) {
    json::array aud;
    for (const auto& x : *a.audience) aud.emplace_back(x);
    o["audience"] = std::move(aud);
  }
  if (a.priority) o["priority"] = *a.priority;
  if (a.last_modified) o["lastModified"] = *a.last_modified;
  return o;
}

namespace {

/// The fields `Resource` and `ResourceTemplate` share.
template <class Spec>
void common_fields(json::object& o, const Spec& s, era e) {
  o["name"] = s.name;
  if (e >= era::v2025_06_18 && s.title) o["title"] = *s.title;
  if (s.description) o["description"] = *s.description;
  if (s.mime_type) o["mimeType"] = *s.mime_type;
  if (e >= era::v2025_11_25 && !s.icons.empty()) o["icons"] = icons_to_json(s.icons);
  if (s.annotations) {
    auto a = annotations_to_json(*s.annotations);
    if (e < era::v2025_06_18) a.erase("lastModified");
    if (!a.empty()) o["annotations"] = std::move(a);
  }
  if (e >= era::v2025_06_18 && !s.meta.empty()) o["_meta"] = s.meta;
}

}  // namespace

json::object resource_wire(const resource_spec& s, era e) {
  json::object o{{"uri", s.uri}};
  common_fields(o, s, e);
  if (s.size) o["size"] = *s.size;
  return o;
}

json::object template_wire(const resource_template_spec& s, era e) {
  json::object o{{"uriTemplate", s.uri_template}};
  common_fields(o, s, e);
  return o;
}

result<std::optional<std::string>> cursor_param(const json::object& params) {
  const auto* c = params.if_contains("cursor");
  if (!c) return std::optional<std::string>{};
  if (!c->is_string()) return error{errc::invalid_params, "cursor must be a string"};
  return std::optional<std::string>(std::string(c->get_string()));
}

namespace {

template <class Entry, class F>
result<json::object> list_of(const catalog<Entry>& cat, const json::object& params,
                             std::size_t page_size, std::string_view key, F&& to_wire) {
  auto cursor = cursor_param(params);
  if (!cursor) return cursor.error();
  auto page = cat.page(*cursor, page_size, std::forward<F>(to_wire));
  if (!page) return page.error();
  json::object out{{key, std::move(page->first)}};
  if (page->second) out["nextCursor"] = *page->second;
  return out;
}

}  // namespace

result<json::object> resources_list(const resource_catalogs& c, const json::object& params, era e,
                                    std::size_t page_size) {
  return list_of(c.resources, params, page_size, "resources",
                 [e](const resource_entry& r) { return resource_wire(r.spec, e); });
}

result<json::object> templates_list(const resource_catalogs& c, const json::object& params, era e,
                                    std::size_t page_size) {
  return list_of(c.templates, params, page_size, "resourceTemplates",
                 [e](const template_entry& t) { return template_wire(t.spec, e); });
}

result<json::object> resources_read(const resource_catalogs& c, const json::object& params,
                                    const principal& who) {
  const auto* u = params.if_contains("uri");
  if (!u || !u->is_string()) {
    return error{errc::invalid_params, "resources/read needs a string \"uri\""};
  }
  resource_request req{.uri = std::string(u->get_string()), .variables = {}, .caller = &who};
  resource_handler handler;
  if (auto r = c.resources.find(req.uri)) {
    handler = r->handler;
  } else {
    for (const auto& t : c.templates.all()) {
      if (auto vars = t->tmpl.match(req.uri)) {
        req.variables = std::move(*vars);
        handler = t->handler;
        break;
      }
    }
  }
  if (!handler) return resource_not_found(req.uri);
  result<read_resource_result> got = error{errc::internal_error, "no result"};
  try {
    got = handler(req);
  } catch (const std::exception& ex) {
    return error{errc::internal_error, std::string("reading ") + req.uri + " failed: " + ex.what()};
  } catch (...) {
    return error{errc::internal_error, "reading " + req.uri + " failed"};
  }
  if (!got) return got.error();
  json::array contents;
  for (const auto& item : got->contents) contents.emplace_back(item.to_json());
  json::object out{{"contents", std::move(contents)}};
  if (!got->meta.empty()) out["_meta"] = got->meta;
  return out;
}

}  // namespace detail

}  // namespace mcp
