// File: mcp/resource.hpp
//
// Resources (MCP server/resources) and argument completion (server/utilities/completion).
// Defines what a server registers with `server::add_resource` and
// `server::add_resource_template`, what their read handlers see and return, and the completion
// callback shared with prompts (`completion_handler`).
//
// A read handler has the shapes of a tool handler (mcp/typed_tool.hpp) with other types.
// Parameters, each at most once, in any order: `const resource_request&` (the URI, the template
// variables, the caller), `request_context&` (cancellation, progress, logging, requests to the
// client: mcp/context.hpp), `reply<Out>` (completes later; the handler returns void), and, for
// templates, a struct described with MCP_FIELDS whose fields are the template's variables
// (strings). Out, returned as it is, in a `result<Out>`, or from a coroutine
// (`boost::asio::awaitable<Out>`, with <mcp/asio.hpp>): `read_resource_result`, `std::string`
// (text contents of the URI read, with the spec's MIME type), `resource_contents`, or
// `std::vector<resource_contents>`. Errors (returned or thrown) are JSON-RPC errors: return
// `resource_not_found(uri)` for a URI that does not exist.
//
// Example:
//
//   server.add_resource({.uri = "config://app", .name = "app-config",
//                        .mime_type = "application/json"},
//                       [] { return std::string(R"({"debug":true})"); });
//   struct user_vars { std::string id; };
//   MCP_FIELDS(user_vars, (id))
//   server.add_resource_template(
//       {.uri_template = "users://{id}/profile", .name = "user-profile",
//        .complete = [](const mcp::completion_request& c) {
//          return mcp::completion_result{.values = {"alice", "bob"}};
//        }},
//       [](const user_vars& v, const mcp::resource_request& r) -> mcp::result<std::string> {
//         if (v.id != "alice") return mcp::resource_not_found(r.uri);
//         return std::string("Alice");
//       });
//   server.notify_resource_updated("config://app");   // to every subscribed session
#pragma once

#include <mcp/content.hpp>
#include <mcp/context.hpp>
#include <mcp/detail/handler_traits.hpp>
#include <mcp/detail/unique_function.hpp>
#include <mcp/error.hpp>
#include <mcp/json.hpp>
#include <mcp/tool.hpp>
#include <mcp/transport.hpp>
#include <mcp/uri_template.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mcp {

// ---------------------------------------------------------------------------------------------
// Completion (shared by prompts and resource templates)

/// What `completion/complete` asks: the argument (or template variable) being completed, its
/// partial value, and the values of the other arguments already resolved (`context.arguments`).
struct completion_request {
  std::string argument;     ///< the argument's (or template variable's) name
  std::string value;        ///< what the user typed so far
  uri_variables context{};  ///< the other arguments' values, by name; may be empty
};

/// Candidate values. At most 100 are sent (the spec's limit); `has_more` is then set.
struct completion_result {
  std::vector<std::string> values{};   ///< candidates; the first 100 are sent
  std::optional<std::size_t> total{};  ///< how many candidates exist in all; unset: not said
  bool has_more = false;               ///< more exist than were sent
};

/// Completes one argument. Runs on the server's executor (the handler pool), like a tool; it
/// should still be quick (clients complete while the user types). Must be thread-safe (several
/// sessions may complete at once). May be move-only.
using completion_handler = unique_function<completion_result(const completion_request&)>;

// ---------------------------------------------------------------------------------------------
// Resources

/// How long a 2026-07-28 client may keep a result before asking again (`ttlMs`), and whether
/// caches shared by several callers may hold it (`cacheScope`: "public") or only the caller's
/// own ("private"). A list_changed notification ends a cached list sooner.
struct cache_policy {
  std::chrono::milliseconds ttl{0};  ///< 0: stale at once (ask every time)
  bool shared = false;               ///< "public"; false: "private"
};

/// A resource the server lists (`Resource`).
struct resource_spec {
  std::string uri;                                   ///< unique in the server
  std::string name;                                  ///< programmatic name, required
  std::optional<std::string> title{};                ///< display name
  std::optional<std::string> description{};          ///< what it holds, for the model and the user
  std::optional<std::string> mime_type{};            ///< e.g. "text/markdown"
  std::optional<std::uint64_t> size{};               ///< bytes, before base64
  std::vector<icon> icons{};                         ///< for a client's UI
  std::optional<content_annotations> annotations{};  ///< audience, priority, last modified
  json::object meta{};                               ///< `_meta`
  /// 2026-07-28: how long reads of it may be cached; unset: `server_options::read_cache`.
  std::optional<cache_policy> cache{};
};

/// A parameterised family of resources (`ResourceTemplate`), read through URIs that match
/// `uri_template` (RFC 6570; see mcp/uri_template.hpp).
struct resource_template_spec {
  std::string uri_template;                  ///< unique in the server
  std::string name;                          ///< programmatic name, required
  std::optional<std::string> title{};        ///< display name
  std::optional<std::string> description{};  ///< what its resources hold
  std::optional<std::string> mime_type{};    ///< of every resource it matches, when they share one
  std::vector<icon> icons{};                 ///< for a client's UI
  std::optional<content_annotations> annotations{};  ///< audience, priority, last modified
  json::object meta{};                               ///< `_meta`
  /// Completes template variables (`ref/resource`); unset: no suggestions.
  completion_handler complete{};
  /// 2026-07-28: how long reads of its resources may be cached; unset: the server's.
  std::optional<cache_policy> cache{};
};

/// One item of `contents` (`TextResourceContents` or `BlobResourceContents`).
struct resource_contents {
  std::string uri;                         ///< the resource these contents are of
  std::optional<std::string> mime_type{};  ///< unset: not said
  std::optional<std::string> text{};       ///< set for text contents
  std::optional<std::string> blob{};       ///< base64, set for binary contents
  json::object meta{};                     ///< `_meta`

  /// Text contents.
  [[nodiscard]] static resource_contents text_of(std::string uri, std::string text,
                                                 std::optional<std::string> mime_type = {});
  /// Binary contents (`bytes` are base64-encoded here).
  [[nodiscard]] static resource_contents blob_of(std::string uri, std::span<const std::byte> bytes,
                                                 std::optional<std::string> mime_type = {});
  /// The wire form.
  [[nodiscard]] json::object to_json() const;
};

/// The result of `resources/read`.
struct read_resource_result {
  std::vector<resource_contents> contents{};  ///< one or more items (e.g. a directory's files)
  json::object meta{};                        ///< the result's `_meta`
};

/// What a read handler sees.
struct resource_request {
  std::string uri;                    ///< as the client sent it
  uri_variables variables{};          ///< template variables (empty for a plain resource)
  const principal* caller = nullptr;  ///< who is reading; valid during the call
};

/// A read handler in its raw form: completes `done` once, now or later, from any thread. Runs
/// on the server's executor (the handler pool), like a tool, so it may take its time without
/// holding up the connection. Must be thread-safe; may be move-only. A thrown exception becomes
/// -32603 (internal error); a thrown `protocol_error` its error. The typed forms (banner) are
/// adapted to this one.
using resource_handler =
    unique_function<void(request_context&, const resource_request&, reply<read_resource_result>)>;

/// The error for a resource `uri` that does not exist (`data: {"uri": ...}`): -32002 for
/// clients of 2025-11-25 and older, -32602 for 2026-07-28 (the server sends the code the
/// request's revision has).
[[nodiscard]] error resource_not_found(std::string_view uri);

namespace detail {

template <class T>
constexpr bool is_read_output_v =
    std::is_same_v<T, read_resource_result> || std::is_same_v<T, resource_contents> ||
    std::is_same_v<T, std::vector<resource_contents>> ||
    std::is_convertible_v<const T&, std::string_view>;

/// How resource read handlers plug into handler_adapter (mcp/detail/handler_traits.hpp).
struct resource_traits {
  using context = request_context;
  using request = resource_request;
  using done = reply<read_resource_result>;
  struct prepared {
    std::optional<std::string> mime_type;
  };
  static constexpr const char* what = "add_resource";

  template <class Out>
  class sink_type final : public outcome_sink<Out> {
   public:
    sink_type(done d, const prepared& p, const resource_request& r) : done_(std::move(d)) {
      if constexpr (std::is_convertible_v<const Out&, std::string_view>) {
        mime_ = p.mime_type;
        uri_ = r.uri;
      }
    }
    void value(Out&& out) override {
      using T = std::remove_cvref_t<Out>;
      if constexpr (std::is_same_v<T, read_resource_result>) {
        done_(std::move(out));
      } else if constexpr (std::is_same_v<T, resource_contents>) {
        done_(read_resource_result{.contents = {std::move(out)}});
      } else if constexpr (std::is_same_v<T, std::vector<resource_contents>>) {
        done_(read_resource_result{.contents = std::move(out)});
      } else {
        done_(read_resource_result{.contents = {resource_contents::text_of(
                                       uri_, std::string(std::string_view(out)), mime_)}});
      }
    }
    void failure(error&& e) override { done_(std::move(e)); }
    void protocol(error&& e) override { done_.fail_request(std::move(e)); }

   private:
    done done_;
    std::optional<std::string> mime_;  ///< for text: the spec's MIME type
    std::string uri_;                  ///< for text: the URI read
  };

  template <class In, class Out, bool TakesRequest, class Spec>
  static prepared prepare(Spec& spec) {
    static_assert(std::is_void_v<Out> || is_read_output_v<Out>,
                  "mcp::server::add_resource: a read handler returns read_resource_result, "
                  "std::string (text), resource_contents or std::vector<resource_contents> (in "
                  "a result<...> or a coroutine, or through reply<...>)");
    static_assert(!std::is_void_v<Out>,
                  "mcp::server::add_resource: a read handler returns what it read");
    static_assert(std::is_void_v<In> || described_struct<In>,
                  "mcp::server::add_resource_template: the template's variables are taken as a "
                  "struct described with MCP_FIELDS whose fields are strings");
    return {spec.mime_type};
  }

  template <class In>
  static result<In> decode(const resource_request& r, const prepared& /*p*/) {
    result<In> in = mcp::from_json<In>(string_object(r.variables));
    if (!in) {
      return error{errc::invalid_params,
                   "Invalid params: the variables of " + r.uri + ": " + in.error().message};
    }
    return in;
  }
};

/// A typed read handler adapted to `resource_handler`.
template <class F>
using typed_resource = handler_adapter<resource_traits, F>;

/// A handler already in the raw form.
template <class F>
concept raw_resource_shaped = std::is_null_pointer_v<F> ||
    (std::is_same_v<typename handler_signature<F>::args,
                    boost::mp11::mp_list<request_context&, const resource_request&,
                                         reply<read_resource_result>>>);

}  // namespace detail

}  // namespace mcp
