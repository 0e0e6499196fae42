// Internal: answering a paginated list request (tools/list, resources/list,
// resources/templates/list, prompts/list) from a catalog. The whole response is written into
// one string, sized once: a page can be large (a page of 1,000 tools is about 150 KB), and
// building it as a DOM and copying it into the message would make several such buffers per
// call.
#pragma once

#include <mcp/json.hpp>

#include <string>
#include <string_view>

#include "catalog.hpp"
#include "server_core.hpp"
#include "server_session.hpp"

namespace mcp::detail {

/// Answers `req` with one page of `cat`: `{"<key>":[...],"nextCursor":...}`. `visible(entry)`
/// filters, `size_hint(entry)` guesses an entry's bytes (0: unknown) and `write(out, entry)`
/// appends its JSON. A `cursor` that is not a string, invalid or stale gets -32602.
template <class Entry, class Visible, class SizeHint, class Write>
void answer_list(server_session_impl& s, const jsonrpc::request& req, const catalog<Entry>& cat,
                 std::string_view key, Visible&& visible, SizeHint&& size_hint, Write&& write) {
  std::optional<std::string> cursor;
  if (const auto* c = req.params.if_contains("cursor")) {
    if (!c->is_string()) {
      return s.reply_error(req.id, error{errc::invalid_params, "cursor must be a string"});
    }
    cursor = std::string(c->get_string());
  }
  auto page = cat.list(cursor, s.core().opts.page_size, visible);
  if (!page) return s.reply_error(req.id, page.error());
  std::size_t bytes = 128 + key.size();
  for (const Entry* e : page->entries) bytes += size_hint(*e) + 1;
  std::string message;
  message.reserve(bytes);
  message += R"({"jsonrpc":"2.0","id":)";
  jsonrpc::append_id(message, req.id);
  message += R"(,"result":{")";
  message += key;
  message += R"(":[)";
  for (std::size_t i = 0; i < page->entries.size(); ++i) {
    if (i > 0) message.push_back(',');
    write(message, *page->entries[i]);
  }
  message.push_back(']');
  const auto next = std::move(page->next_cursor);
  page->lock.unlock();
  if (next) {
    message += R"(,"nextCursor":)";
    append_json_string(message, *next);
  }
  s.append_result_fields(message, &s.core().opts.list_cache);
  message += "}}";
  s.send_final(req.id, std::move(message));
}

/// The same for a catalog whose entries are all listed, with no size hint.
template <class Entry, class Write>
void answer_list(server_session_impl& s, const jsonrpc::request& req, const catalog<Entry>& cat,
                 std::string_view key, Write&& write) {
  answer_list(
      s, req, cat, key, [](const Entry&) { return true; },
      [](const Entry&) { return std::size_t{0}; }, std::forward<Write>(write));
}

}  // namespace mcp::detail
