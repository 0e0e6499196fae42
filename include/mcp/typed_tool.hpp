// File: mcp/typed_tool.hpp
//
// How a plain C++ function becomes a tool: the adapter behind `server::add_tool(spec, f)`. From
// `f`'s signature it takes the input type and the output type, infers the inputSchema (and the
// outputSchema when the output is a struct), decodes the arguments (which the session has
// already validated against the inputSchema) and turns what `f` returns into the result. Users
// do not call this header directly.
//
// Handlers: free functions, function pointers, lambdas and other function objects with one
// call signature (noexcept or not, mutable or not), and member functions bound to an object
// (`server.add_tool(spec, &engine::run, &eng)`). Parameters, each at most once, in any order:
//   const In& (or In, In&&)  the arguments, decoded: a struct described with MCP_FIELDS (or
//                            BOOST_DESCRIBE_STRUCT), a std::map<std::string, T> or
//                            json::object. Without it the tool takes no arguments
//                            (inputSchema {"type":"object","additionalProperties":false}).
//   tool_context&            the call's context: cancellation, progress, logging, elicitation
//                            and sampling (mcp/tool.hpp). It is not part of the schema.
// Return types:
//   Out                  a described struct or a string map: structuredContent plus the same
//                        JSON as text, and an inferred outputSchema; any other JSON-mapped
//                        value (a number, a vector, json::value) is returned as JSON text
//   std::string          one text block (also std::string_view and const char*)
//   json::object         one content block (text_content, image_content, ... of content.hpp)
//   std::vector<json::object>  content blocks
//   call_tool_result     the result as it is
//   void                 an empty result
//   tool_result<R>       R, or an isError result with the tool_error's message
//   result<R>            R, or the error: one with a JSON-RPC code (negative, e.g. -32042 from
//                        url_elicitation_required) is the JSON-RPC error answer; an SDK-local one
//                        (a failed ctx.elicit: timeout, not supported, ...) an isError result
// A thrown exception becomes an isError result with its what() (a thrown -32042 error_exception
// a JSON-RPC error). A handler shape outside these lists is a compile error saying what to fix.
//
// Example:
//
//   struct add_in { double a; double b; };
//   MCP_FIELDS(add_in, (a, "First addend"), (b, "Second addend"))
//   struct add_out { double sum; };
//   MCP_FIELDS(add_out, (sum))
//   add_out add(const add_in& in) noexcept { return {in.a + in.b}; }
//   server.add_tool({.name = "add", .description = "Add two numbers"}, add);
#pragma once

#include <mcp/content.hpp>
#include <mcp/error.hpp>
#include <mcp/json.hpp>
#include <mcp/reflect.hpp>
#include <mcp/tool.hpp>

#include <boost/mp11/algorithm.hpp>

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace mcp::detail {

// ---------------------------------------------------------------------------------- signature

/// True when `F`'s call signature can be seen: a function (pointer) or a class with one
/// non-template operator() (what std::function's deduction guides accept).
template <class F>
concept deducible_signature = requires {
  std::function{std::declval<std::decay_t<F>>()};
};

template <class F>
struct signature_of;
template <class R, class... A>
struct signature_of<std::function<R(A...)>> {
  using ret = R;
  using args = boost::mp11::mp_list<A...>;
};
/// The return type `ret` and the parameter types `args` (an mp_list) of `F`.
template <class F>
using signature_t = signature_of<decltype(std::function{std::declval<std::decay_t<F>>()})>;

template <class M>
struct member_signature;
template <class R, class C, class... A>
struct member_signature<R (C::*)(A...)> {
  using type = std::function<R(A...)>;
};
template <class R, class C, class... A>
struct member_signature<R (C::*)(A...) noexcept> : member_signature<R (C::*)(A...)> {};
template <class R, class C, class... A>
struct member_signature<R (C::*)(A...) const> : member_signature<R (C::*)(A...)> {};
template <class R, class C, class... A>
struct member_signature<R (C::*)(A...) const noexcept> : member_signature<R (C::*)(A...)> {};

/// A member function bound to an object, callable with the member function's parameters (so
/// that its signature can be seen, which std::bind_front's result does not allow).
template <class M, class Obj, class Sig = typename member_signature<M>::type>
class bound_member;
template <class M, class Obj, class R, class... A>
class bound_member<M, Obj, std::function<R(A...)>> {
 public:
  bound_member(M method, Obj* object) : method_(method), object_(object) {
    if (method_ == nullptr || object_ == nullptr) {
      throw std::invalid_argument("add_tool: the member function or its object is null");
    }
  }
  R operator()(A... a) const { return (object_->*method_)(std::forward<A>(a)...); }

 private:
  M method_;
  Obj* object_;
};

template <class P>
constexpr bool is_context_v = std::is_same_v<std::remove_cvref_t<P>, tool_context>;
template <class P>
struct is_context : std::bool_constant<is_context_v<P>> {};

/// `signature_t<F>`, or no parameters and void when `F`'s signature cannot be seen (a
/// static_assert then says so, without a cascade of other errors).
template <class F, bool = deducible_signature<F>>
struct handler_signature {
  using ret = void;
  using args = boost::mp11::mp_list<>;
};
template <class F>
struct handler_signature<F, true> : signature_t<F> {};

/// A raw handler's shape: it goes to `add_tool(tool_spec, raw_tool_handler)`.
template <class F>
concept raw_shaped = deducible_signature<F> &&
    std::is_same_v<typename signature_t<F>::args,
                   boost::mp11::mp_list<tool_context&, const json::object&>> &&
    std::is_convertible_v<typename signature_t<F>::ret, call_tool_result>;

/// What the typed `server::add_tool` takes: anything but a raw handler (a handler of no
/// supported shape then fails a static_assert that says what to fix).
template <class F>
concept typed_handler = !raw_shaped<F>;

// ------------------------------------------------------------------------------------ results

template <class R>
struct is_tool_result : std::false_type {};
template <class T>
struct is_tool_result<std::variant<T, tool_error>> : std::true_type {};
template <class R>
struct is_result : std::false_type {};
template <class T>
struct is_result<result<T>> : std::true_type {};

/// The output value a return type `R` carries (through tool_result and result).
template <class R>
struct output_of {
  using type = R;
};
template <class T>
struct output_of<std::variant<T, tool_error>> : output_of<T> {};
template <class T>
struct output_of<result<T>> : output_of<T> {};

template <class T>
constexpr bool is_text_v = false;
template <class T>
requires(!std::is_void_v<T>) constexpr bool is_text_v<T> =
    std::is_convertible_v<const T&, std::string_view>;
template <class T>
constexpr bool is_content_v =
    std::is_same_v<T, json::object> || std::is_same_v<T, std::vector<json::object>> ||
    std::is_same_v<T, call_tool_result> || std::is_void_v<T>;

/// The result for a handler's output value.
template <class O>
call_tool_result to_call_result(O&& out) {
  using T = std::remove_cvref_t<O>;
  if constexpr (std::is_same_v<T, call_tool_result>) {
    return std::forward<O>(out);
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

/// Completes the call with what the handler returned.
template <class R>
void complete(const responder& done, R&& r) {
  using T = std::remove_cvref_t<R>;
  if constexpr (is_result<T>::value) {
    if (r.has_error()) {
      const error& e = r.error();
      // SDK-local codes (positive) are not JSON-RPC codes: the tool failed, the model reads why.
      if (e.code > 0) return done.finish(tool_error_result(e.message));
      return done.fail(e);
    }
    if constexpr (std::is_void_v<typename T::value_type>) {
      done.finish(call_tool_result{});
    } else {
      complete(done, std::move(*r));
    }
  } else if constexpr (is_tool_result<T>::value) {
    if (auto* e = std::get_if<tool_error>(&r)) return done.finish(tool_error_result(e->message));
    complete(done, std::get<0>(std::forward<R>(r)));
  } else {
    done.finish(to_call_result(std::forward<R>(r)));
  }
}

// ------------------------------------------------------------------------------------ adapter

template <class F>
struct is_std_function : std::false_type {};
template <class S>
struct is_std_function<std::function<S>> : std::true_type {};

/// Turns a typed handler into an asynchronous raw one (see the banner for the shapes).
template <class F>
class typed_tool {
  static_assert(deducible_signature<F>,
                "mcp::server::add_tool: cannot see the handler's parameter types (a generic lambda "
                "or an overloaded function object?); write them out, e.g. "
                "[](const forecast_in& in) { ... }");
  using sig = handler_signature<F>;
  using params = typename sig::args;
  using inputs = boost::mp11::mp_remove_if<params, is_context>;
  static_assert(boost::mp11::mp_count_if<params, is_context>::value <= 1,
                "mcp::server::add_tool: the handler takes mcp::tool_context& at most once");
  static_assert(boost::mp11::mp_size<inputs>::value <= 1,
                "mcp::server::add_tool: the handler takes at most one arguments parameter (a "
                "struct holding every argument) besides mcp::tool_context&");

 public:
  using ret_type = typename sig::ret;
  using out_type = typename output_of<ret_type>::type;
  using in_param = boost::mp11::mp_eval_if_c<boost::mp11::mp_empty<inputs>::value, void,
                                             boost::mp11::mp_front, inputs>;
  using in_type = std::remove_cvref_t<in_param>;

  static_assert(std::is_void_v<in_type> || described_struct<in_type> ||
                    is_string_map<in_type>::value || std::is_same_v<in_type, json::object> ||
                    traits_from_json<in_type>,
                "mcp::server::add_tool: a tool's arguments are a JSON object; take them as a "
                "struct described with MCP_FIELDS (or BOOST_DESCRIBE_STRUCT), a "
                "std::map<std::string, T> or mcp::json::object");
  static_assert(!std::is_lvalue_reference_v<in_param> ||
                    std::is_const_v<std::remove_reference_t<in_param>>,
                "mcp::server::add_tool: take the arguments as const In&, In or In&&");

  typed_tool(tool_spec& spec, F fn) : fn_(std::move(fn)), name_(spec.name) {
    if constexpr (std::is_pointer_v<F> || is_std_function<F>::value) {
      if (!fn_) throw std::invalid_argument("tool \"" + spec.name + "\": handler is empty");
    }
    if (!spec.input_schema) {
      if constexpr (std::is_void_v<in_type>) {
        spec.input_schema = json::object{{"type", "object"}, {"additionalProperties", false}};
      } else {
        spec.input_schema = mcp::schema_for<in_type>();
      }
    }
    if constexpr (!is_text_v<out_type> && !is_content_v<out_type>) {
      if (!spec.output_schema) {
        json::object s = mcp::schema_for<out_type>();
        if (const auto* t = s.if_contains("type"); t != nullptr && *t == "object") {
          spec.output_schema = std::move(s);
        }
      }
    }
  }

  void operator()(tool_context& ctx, const json::object& args, const responder& done) {
    if constexpr (std::is_void_v<in_type>) {
      int none = 0;
      run(ctx, none, done);
    } else if constexpr (std::is_same_v<in_param, const json::object&>) {
      run(ctx, args, done);  // the arguments as they are: no decoding, no copy
    } else {
      result<in_type> in = mcp::from_json<in_type>(args);
      if (!in) {
        return done.finish(tool_error_result("Invalid arguments for tool \"" + name_ +
                                             "\": " + in.error().message));
      }
      run(ctx, *in, done);
    }
  }

 private:
  /// The argument for a parameter of type P: the context, or the decoded input.
  template <class P, class In>
  static decltype(auto) pick(tool_context& ctx, In& in) {
    if constexpr (is_context_v<P>) {
      return (ctx);
    } else if constexpr (std::is_lvalue_reference_v<P>) {
      return static_cast<const In&>(in);
    } else {
      return std::move(in);
    }
  }

  template <class In, class... P>
  decltype(auto) call(tool_context& ctx, In& in, boost::mp11::mp_list<P...>) {
    return fn_(pick<P>(ctx, in)...);
  }

  template <class In>
  void run(tool_context& ctx, In& in, const responder& done) {
    if constexpr (std::is_void_v<ret_type>) {
      call(ctx, in, params{});
      done.finish(call_tool_result{});
    } else {
      complete(done, call(ctx, in, params{}));
    }
  }

  F fn_;
  std::string name_;
};

}  // namespace mcp::detail
