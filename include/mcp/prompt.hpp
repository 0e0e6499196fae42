// File: mcp/prompt.hpp
//
// Prompts (MCP server/prompts): templated messages a client offers to its user. Defines
// `prompt_spec` (what `server::add_prompt` registers, with its arguments and an optional
// completion callback), `prompt_request` (what the handler sees) and `get_prompt_result` (the
// messages it returns; any content block of mcp/content.hpp may be used).
//
// A prompt handler has the shapes of a tool handler (mcp/typed_tool.hpp) with other types.
// Parameters, each at most once, in any order: `const prompt_request&`, `request_context&`
// (mcp/context.hpp), `reply<Out>` (completes later; the handler returns void), and a struct
// described with MCP_FIELDS whose fields are the arguments (strings; std::optional ones are not
// required): when `prompt_spec::arguments` is empty they are taken from it, with their
// descriptions. Out, returned as it is, in a `result<Out>`, or from a coroutine:
// `get_prompt_result`, `std::string` (one user text message), `prompt_message`, or
// `std::vector<prompt_message>`. Errors (returned or thrown) are JSON-RPC errors.
//
// Example:
//
//   struct review_args { std::string diff; std::optional<std::string> focus; };
//   MCP_FIELDS(review_args, (diff, "The diff"), (focus, "What to look at"))
//   server.add_prompt({.name = "review", .description = "Review a diff"},
//                     [](const review_args& a) {
//                       return "Please review:\n" + a.diff + "\nFocus: " + a.focus.value_or("all");
//                     });
#pragma once

#include <mcp/content.hpp>
#include <mcp/context.hpp>
#include <mcp/detail/handler_traits.hpp>
#include <mcp/detail/unique_function.hpp>
#include <mcp/error.hpp>
#include <mcp/json.hpp>
#include <mcp/resource.hpp>
#include <mcp/tool.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mcp {

/// One argument of a prompt (`PromptArgument`).
struct prompt_argument {
  std::string name;                          ///< its name in `prompt_request::arguments`
  std::optional<std::string> title{};        ///< display name
  std::optional<std::string> description{};  ///< what to give, for the user
  bool required = false;                     ///< a prompts/get without it is answered with -32602
};

/// A prompt the server lists (`Prompt`).
struct prompt_spec {
  std::string name;                          ///< unique in the server
  std::optional<std::string> title{};        ///< display name
  std::optional<std::string> description{};  ///< what the prompt is for
  std::vector<prompt_argument> arguments{};  ///< the arguments it takes, in order
  std::vector<icon> icons{};                 ///< for a client's UI
  json::object meta{};                       ///< `_meta`
  /// Completes argument values (`ref/prompt`); unset: no suggestions.
  completion_handler complete{};
};

/// One message of a prompt (`PromptMessage`): a role and one content block.
struct prompt_message {
  std::string role;      ///< "user" or "assistant"
  json::object content;  ///< a content block (`text_content`, `image_content`, ...)

  /// A message of role "user".
  [[nodiscard]] static prompt_message user(json::object content) {
    return {"user", std::move(content)};
  }
  /// A message of role "assistant".
  [[nodiscard]] static prompt_message assistant(json::object content) {
    return {"assistant", std::move(content)};
  }
};

/// The result of `prompts/get`.
struct get_prompt_result {
  std::optional<std::string> description{};  ///< unset: not said
  std::vector<prompt_message> messages{};    ///< the prompt, filled in
  json::object meta{};                       ///< `_meta`
};

/// What a prompt handler sees. Required arguments are checked before the handler runs
/// (a missing one is answered with -32602).
struct prompt_request {
  std::string name;                   ///< the prompt asked for
  uri_variables arguments{};          ///< the arguments given, by name (strings)
  const principal* caller = nullptr;  ///< valid during the call
};

/// A prompt handler in its raw form: completes `done` once, now or later, from any thread. Runs
/// on the server's executor (the handler pool), like a tool; must be thread-safe; may be
/// move-only. Required arguments are checked before it runs. A thrown exception becomes -32603;
/// a thrown `protocol_error` its error. The typed forms (banner) are adapted to this one.
using prompt_handler =
    unique_function<void(request_context&, const prompt_request&, reply<get_prompt_result>)>;

namespace detail {

/// How prompt handlers plug into handler_adapter (mcp/detail/handler_traits.hpp).
struct prompt_traits {
  using context = request_context;
  using request = prompt_request;
  using done = reply<get_prompt_result>;
  struct prepared {};
  static constexpr const char* what = "add_prompt";

  template <class Out>
  class sink_type final : public outcome_sink<Out> {
   public:
    sink_type(done d, const prepared& /*p*/, const prompt_request& /*r*/) : done_(std::move(d)) {}
    void value(Out&& out) override {
      using T = std::remove_cvref_t<Out>;
      if constexpr (std::is_same_v<T, get_prompt_result>) {
        done_(std::move(out));
      } else if constexpr (std::is_same_v<T, prompt_message>) {
        done_(get_prompt_result{.messages = {std::move(out)}});
      } else if constexpr (std::is_same_v<T, std::vector<prompt_message>>) {
        done_(get_prompt_result{.messages = std::move(out)});
      } else {
        done_(get_prompt_result{
            .messages = {prompt_message::user(text_content(std::string_view(out)))}});
      }
    }
    void failure(error&& e) override { done_(std::move(e)); }
    void protocol(error&& e) override { done_.fail_request(std::move(e)); }

   private:
    done done_;
  };

  template <class In, class Out, bool TakesRequest>
  static prepared prepare(prompt_spec& spec) {
    using T = std::remove_cvref_t<Out>;
    static_assert(std::is_same_v<T, get_prompt_result> || std::is_same_v<T, prompt_message> ||
                      std::is_same_v<T, std::vector<prompt_message>> ||
                      std::is_convertible_v<const T&, std::string_view>,
                  "mcp::server::add_prompt: a prompt handler returns get_prompt_result, "
                  "std::string (one user message), prompt_message or std::vector<prompt_message> "
                  "(in a result<...> or a coroutine, or through reply<...>)");
    static_assert(std::is_void_v<In> || described_struct<In>,
                  "mcp::server::add_prompt: take the arguments as a struct described with "
                  "MCP_FIELDS whose fields are strings");
    if constexpr (!std::is_void_v<In>) {
      if (spec.arguments.empty()) spec.arguments = arguments_of(schema_for<In>());
    }
    return {};
  }

  template <class In>
  static result<In> decode(const prompt_request& r, const prepared& /*p*/) {
    result<In> in = mcp::from_json<In>(string_object(r.arguments));
    if (!in) {
      return error{errc::invalid_params,
                   "Invalid arguments for prompt \"" + r.name + "\": " + in.error().message};
    }
    return in;
  }

  /// The arguments a struct's schema describes (its properties, required as the schema says).
  static std::vector<prompt_argument> arguments_of(const json::object& schema);
};

/// A typed prompt handler adapted to `prompt_handler`.
template <class F>
using typed_prompt = handler_adapter<prompt_traits, F>;

/// A handler already in the raw form.
template <class F>
concept raw_prompt_shaped = std::is_null_pointer_v<F> ||
    (std::is_same_v<
        typename handler_signature<F>::args,
        boost::mp11::mp_list<request_context&, const prompt_request&, reply<get_prompt_result>>>);

}  // namespace detail

}  // namespace mcp
