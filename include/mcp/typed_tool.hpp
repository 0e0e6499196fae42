// File: mcp/typed_tool.hpp
//
// How a plain C++ function becomes a tool: the adapter behind `server::add_tool(spec, f)`.
// From `f`'s signature it takes the input type `In` and the output type `Out`, infers the
// inputSchema (and the outputSchema when `Out` is a struct), decodes the arguments into `In`,
// and encodes the output as `structuredContent` plus a text block holding the same JSON (for
// clients older than structured output). Users do not call this header directly.
//
// Accepted handler shapes (`In` a described struct, see mcp/reflect.hpp):
//   R f(const In&)            R f(tool_context&, const In&)
// with R one of: Out (a described struct or std::string), tool_result<Out>, call_tool_result.
//
// Example:
//
//   struct add_in { double a; double b; };
//   BOOST_DESCRIBE_STRUCT(add_in, (), (a, b))
//   struct add_out { double sum; };
//   BOOST_DESCRIBE_STRUCT(add_out, (), (sum))
//   server.add_tool({.name = "add", .description = "Add two numbers"},
//                   [](const add_in& in) { return add_out{in.a + in.b}; });
#pragma once

#include <mcp/content.hpp>
#include <mcp/reflect.hpp>
#include <mcp/tool.hpp>

#include <string>
#include <type_traits>
#include <utility>

namespace mcp::detail {

/// The output type carried by a handler's return type R.
template <class R>
struct output_of {
  using type = R;
};
template <class T>
struct output_of<std::variant<T, tool_error>> {
  using type = T;
};

template <class F, class = void>
struct handler_signature;

template <class C, class R, class A>
struct handler_signature<R (C::*)(A) const> {
  using ret = R;
  using in = std::remove_cvref_t<A>;
  static constexpr bool takes_context = false;
};
template <class C, class R, class Ctx, class A>
struct handler_signature<R (C::*)(Ctx, A) const> {
  static_assert(std::is_same_v<Ctx, tool_context&>,
                "a typed tool handler takes (mcp::tool_context&, const In&) or (const In&)");
  using ret = R;
  using in = std::remove_cvref_t<A>;
  static constexpr bool takes_context = true;
};
template <class C, class R, class A>
struct handler_signature<R (C::*)(A)> : handler_signature<R (C::*)(A) const> {};
template <class C, class R, class Ctx, class A>
struct handler_signature<R (C::*)(Ctx, A)> : handler_signature<R (C::*)(Ctx, A) const> {};

template <class F>
concept typed_handler = requires {
  &std::decay_t<F>::operator();
}
&&!std::is_convertible_v<F, raw_tool_handler>;

/// Turns a typed handler into a raw one.
template <class F>
struct typed_tool_adapter {
  using sig = handler_signature<decltype(&F::operator())>;
  using in_type = typename sig::in;
  using ret_type = typename sig::ret;
  using out_type = typename output_of<ret_type>::type;
  static constexpr bool structured =
      !std::is_same_v<out_type, call_tool_result> && !std::is_same_v<out_type, std::string>;

  F fn;

  /// Fills the schemas the user left empty.
  static void complete_spec(tool_spec& spec) {
    if (!spec.input_schema) spec.input_schema = mcp::schema_for<in_type>();
    if constexpr (structured) {
      if (!spec.output_schema) spec.output_schema = mcp::schema_for<out_type>();
    }
  }

  call_tool_result operator()(tool_context& ctx, const json::object& args) {
    auto in = mcp::from_json<in_type>(args);
    if (!in) return tool_error_result("Invalid arguments: " + in.error().message);
    if constexpr (sig::takes_context) {
      return convert(fn(ctx, *in));
    } else {
      return convert(fn(*in));
    }
  }

 private:
  static call_tool_result convert(call_tool_result r) { return r; }
  static call_tool_result convert(std::variant<out_type, tool_error> r) requires(
      !std::is_same_v<ret_type, out_type>) {
    if (auto* e = std::get_if<tool_error>(&r)) return tool_error_result(e->message);
    return convert_output(std::move(std::get<out_type>(r)));
  }
  static call_tool_result convert(out_type r) requires(
      std::is_same_v<ret_type, out_type> && !std::is_same_v<out_type, call_tool_result>) {
    return convert_output(std::move(r));
  }
  static call_tool_result convert_output(out_type out) {
    call_tool_result r;
    if constexpr (std::is_same_v<out_type, call_tool_result>) {
      return out;
    } else if constexpr (std::is_same_v<out_type, std::string>) {
      r.content.push_back(text_content(out));
    } else {
      json::value v = mcp::to_json(out);
      r.content.push_back(text_content(to_json_string(v)));
      if (auto* o = v.if_object()) r.structured_content = std::move(*o);
    }
    return r;
  }
};

}  // namespace mcp::detail
