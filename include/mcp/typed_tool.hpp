// File: mcp/typed_tool.hpp
//
// How a plain C++ function becomes a tool: the adapter behind `server::add_tool(spec, f)`. From
// `f`'s signature it takes the input type and the output type, infers the inputSchema (and the
// outputSchema when the output is a struct), decodes the arguments (which the session has
// already validated against the inputSchema) and turns what `f` returns into the result. Users
// do not call this header directly.
//
// THE ERROR RULE. Everything a tool handler returns or throws as a failure becomes a result with
// `isError: true` carrying its message, so the model reads why and can correct itself: an
// `mcp::error` in a returned `result<R>` (whatever its code: -32602 from a decoder, a timeout or
// a declined elicitation, an answer that does not match the form), a `tool_error`, any thrown
// exception. A JSON-RPC error answer is only ever sent through one explicit, named call:
// `throw mcp::protocol_error(e)` from any handler (or `reply.fail_request(e)`,
// `responder::fail(e)` where the handler completes through one). The -32042 URL-elicitation
// answer of 2025-11-25 is such a case: `throw mcp::protocol_error(mcp::url_elicitation_required(
// ...))`.
//
// Handlers: free functions, function pointers, lambdas and other function objects with one
// call signature (noexcept or not, mutable or not, move-only or not), and member functions
// bound to an object (`server.add_tool(spec, &engine::run, &eng)`). Parameters, each at most
// once, in any order:
//   const In& (or In, In&&)  the arguments, decoded: a struct described with MCP_FIELDS (or
//                            BOOST_DESCRIBE_STRUCT), a std::map<std::string, T> or
//                            json::object. Without it the tool takes no arguments
//                            (inputSchema {"type":"object","additionalProperties":false}).
//   tool_context&            the call's context: cancellation, progress, logging, elicitation
//                            and sampling (mcp/tool.hpp). It is not part of the schema.
//   reply<Out>               completes the call later, from any thread (the handler then
//                            returns void): `reply(out)`, `reply(result<Out>)`, or
//                            `reply.fail_request(e)` for a JSON-RPC error. Out is inferred
//                            from it exactly as from a return type.
// Return types:
//   Out                  a described struct or a string map: structuredContent plus the same
//                        JSON as text, and an inferred outputSchema; any other JSON-mapped
//                        value (a number, a vector, json::value) is returned as JSON text
//   std::string          one text block (also std::string_view and const char*)
//   json::object         one content block (text_content, image_content, ... of content.hpp)
//   std::vector<json::object>  content blocks
//   call_tool_result     the result as it is
//   void                 an empty result
//   result<R>            R, or an isError result with the error's message (the error rule)
//   boost::asio::awaitable<R>  a coroutine (include <mcp/asio.hpp>): R as above, once it
//                        completes; it runs on the server's Asio executor
// A handler shape outside these lists is a compile error saying what to fix.
//
// Example:
//
//   struct add_in { double a; double b; };
//   MCP_FIELDS(add_in, (a, "First addend"), (b, "Second addend"))
//   struct add_out { double sum; };
//   MCP_FIELDS(add_out, (sum))
//   add_out add(const add_in& in) noexcept { return {in.a + in.b}; }
//   server.add_tool({.name = "add", .description = "Add two numbers"}, add);
//
//   server.add_tool({.name = "lookup", .description = "Look a key up"},
//                   [&db](const lookup_in& in, mcp::reply<lookup_out> reply) {
//                     db.async_get(in.key, [reply = std::move(reply)](auto value) mutable {
//                       if (!value) return reply(mcp::tool_error{"no such key"});
//                       reply(lookup_out{*value});
//                     });
//                   });
#pragma once

#include <mcp/content.hpp>
#include <mcp/detail/handler_traits.hpp>
#include <mcp/error.hpp>
#include <mcp/json.hpp>
#include <mcp/reflect.hpp>
#include <mcp/tool.hpp>

#include <boost/mp11/algorithm.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace mcp::detail {

/// A raw handler's shape: it goes to `add_tool(tool_spec, raw_tool_handler)`.
template <class F>
concept raw_shaped = std::is_null_pointer_v<F> ||
    (deducible_signature<F>&&
         std::is_same_v<typename handler_signature<F>::args,
                        boost::mp11::mp_list<tool_context&, const json::object&>>&&
             std::is_convertible_v<typename handler_signature<F>::ret, call_tool_result>);

/// What the typed `server::add_tool` takes: anything but a raw handler (a handler of no
/// supported shape then fails a static_assert that says what to fix).
template <class F>
concept typed_handler = !raw_shaped<F>;

template <class T>
constexpr bool is_text_v = false;
template <class T>
requires(!std::is_void_v<T>) constexpr bool is_text_v<T> =
    std::is_convertible_v<const T&, std::string_view>;
template <class T>
constexpr bool is_content_v =
    std::is_same_v<T, json::object> || std::is_same_v<T, std::vector<json::object>> ||
    std::is_same_v<T, call_tool_result> || std::is_void_v<T> || std::is_same_v<T, none>;

/// `responder::finish` of a result holding only `text_content(text)` (src/tool.cpp).
struct responder_access {
  static void finish_text(const responder& done, std::string&& text);
};

/// The result for a handler's output value.
template <class O>
call_tool_result to_call_result(O&& out) {
  using T = std::remove_cvref_t<O>;
  if constexpr (std::is_same_v<T, call_tool_result>) {
    return std::forward<O>(out);
  } else if constexpr (std::is_same_v<T, none>) {
    return call_tool_result{};
  } else {
    call_tool_result r;
    if constexpr (is_text_v<T>) {
      r.content.push_back(text_content(std::string_view(out)));
    } else if constexpr (std::is_same_v<T, json::object>) {
      r.content.emplace_back(std::forward<O>(out));
    } else if constexpr (std::is_same_v<T, std::vector<json::object>>) {
      r.content.reserve(out.size());
      for (auto& block : out) r.content.emplace_back(std::move(block));
    } else {
      json::value v = mcp::to_json(out);
      r.content.push_back(text_content(to_json_string(v)));
      if (auto* o = v.if_object()) r.structured_content = std::move(*o);
    }
    return r;
  }
}

/// How tools plug into handler_adapter (mcp/detail/handler_traits.hpp).
struct tool_traits {
  using context = tool_context;
  using request = json::object;  ///< the arguments as they came (a handler may take them raw)
  using done = responder;
  struct prepared {
    std::string name;
  };
  static constexpr const char* what = "add_tool";

  /// The error rule: a failure is an isError result; a JSON-RPC error only when asked for.
  /// A `std::string` output completes the call as one text block without building the result
  /// first (`responder_access::finish_text`): the same answer, less code on the call path.
  template <class Out>
  class sink_type final : public outcome_sink<Out> {
   public:
    sink_type(responder done, const prepared& /*p*/, const json::object& /*args*/)
        : done_(std::move(done)) {}
    void value(Out&& out) override {
      if constexpr (std::is_same_v<Out, std::string>) {
        responder_access::finish_text(done_, std::move(out));
      } else {
        done_.finish(to_call_result(std::move(out)));
      }
    }
    void failure(error&& e) override { done_.finish(tool_error_result(e.message)); }
    void protocol(error&& e) override { done_.fail(std::move(e)); }

   private:
    responder done_;
  };

  template <class In, class Out, bool TakesRequest>
  static prepared prepare(tool_spec& spec) {
    static_assert(std::is_void_v<In> || described_struct<In> || is_string_map<In>::value ||
                      traits_from_json<In>,
                  "mcp::server::add_tool: a tool's arguments are a JSON object; take them as a "
                  "struct described with MCP_FIELDS (or BOOST_DESCRIBE_STRUCT), a "
                  "std::map<std::string, T> or const mcp::json::object&");
    if (!spec.input_schema) {
      if constexpr (!std::is_void_v<In>) {
        spec.input_schema = mcp::schema_for<In>();
      } else if constexpr (TakesRequest) {
        spec.input_schema = json::object{{"type", "object"}};
      } else {
        spec.input_schema = json::object{{"type", "object"}, {"additionalProperties", false}};
      }
    }
    if constexpr (!is_text_v<Out> && !is_content_v<Out>) {
      if (!spec.output_schema) {
        json::object s = mcp::schema_for<Out>();
        if (const auto* t = s.if_contains("type"); t != nullptr && *t == "object") {
          spec.output_schema = std::move(s);
        }
      }
    }
    return {spec.name};
  }

  /// "Invalid arguments for tool "NAME": <why>" (src/typed_tool.cpp).
  static error invalid_arguments(const prepared& p, const error& why);

  template <class In>
  static result<In> decode(const json::object& args, const prepared& p) {
    result<In> in = mcp::from_json<In>(args);
    if (!in) return invalid_arguments(p, in.error());
    return in;
  }
};

// The sinks of the common outputs are compiled once, in src/typed_tool.cpp.
extern template class tool_traits::sink_type<std::string>;
extern template class tool_traits::sink_type<none>;
extern template class tool_traits::sink_type<call_tool_result>;
extern template class tool_traits::sink_type<json::object>;

/// Turns a typed handler into an asynchronous raw one (see the banner for the shapes).
template <class F>
using typed_tool = handler_adapter<tool_traits, F>;

}  // namespace mcp::detail
