// File: mcp/detail/handler_traits.hpp
//
// The machinery behind the typed handler forms of tools, resources and prompts (see
// mcp/typed_tool.hpp for the shapes): reading a handler's signature, sorting its parameters
// (the context, the feature's request, a `reply<Out>`, the decoded input), and delivering what
// it returns (a value, a `result<R>`, a coroutine's value, a reply's) to the feature's answer.
// Not used directly.
//
// Example (how a feature uses it):
//
//   template <class F>
//   using typed_resource = mcp::detail::handler_adapter<resource_traits, F>;
#pragma once

#include <mcp/context.hpp>
#include <mcp/detail/unique_function.hpp>
#include <mcp/error.hpp>

#include <boost/mp11/algorithm.hpp>

#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace boost::asio {
// Forward declared (no default argument here: <boost/asio/awaitable.hpp> gives it), so that a
// handler returning an awaitable is recognised without including Asio.
template <typename T, typename Executor>
class awaitable;
}  // namespace boost::asio

namespace mcp::detail {

// ---------------------------------------------------------------------------------- signature

template <class S>
struct fn_sig;
template <class R, class... A>
struct fn_sig<R(A...)> {
  using ret = R;
  using args = boost::mp11::mp_list<A...>;
};
template <class R, class... A>
struct fn_sig<R(A...) noexcept> : fn_sig<R(A...)> {};
template <class R, class C, class... A>
struct fn_sig<R (C::*)(A...)> : fn_sig<R(A...)> {};
template <class R, class C, class... A>
struct fn_sig<R (C::*)(A...) noexcept> : fn_sig<R(A...)> {};
template <class R, class C, class... A>
struct fn_sig<R (C::*)(A...) const> : fn_sig<R(A...)> {};
template <class R, class C, class... A>
struct fn_sig<R (C::*)(A...) const noexcept> : fn_sig<R(A...)> {};
template <class R, class C, class... A>
struct fn_sig<R (C::*)(A...)&> : fn_sig<R(A...)> {};
template <class R, class C, class... A>
struct fn_sig<R (C::*)(A...) const&> : fn_sig<R(A...)> {};

/// True when `F`'s call signature can be seen: a function (pointer) or a class with one
/// non-template operator().
template <class F>
concept deducible_signature =
    std::is_function_v<std::remove_pointer_t<std::decay_t<F>>> || requires {
  &std::decay_t<F>::operator();
};

template <class F, bool = deducible_signature<F>>
struct handler_signature {
  using ret = void;
  using args = boost::mp11::mp_list<>;
};
/// The return type `ret` and parameter types `args` (an mp_list) of `F`; none and void when
/// they cannot be seen (a static_assert of the adapter then says so).
template <class F, bool = std::is_function_v<std::remove_pointer_t<std::decay_t<F>>>>
struct call_operator {
  using type = std::remove_pointer_t<std::decay_t<F>>;
};
template <class F>
struct call_operator<F, false> {
  using type = decltype(&std::decay_t<F>::operator());
};
template <class F>
struct handler_signature<F, true> : fn_sig<typename call_operator<F>::type> {};

/// A member function bound to an object, callable with the member function's parameters (so
/// that its signature can be seen, which std::bind_front's result does not allow).
template <class M, class Obj, class Args = typename fn_sig<M>::args>
class bound_member;
template <class M, class Obj, class... A>
class bound_member<M, Obj, boost::mp11::mp_list<A...>> {
 public:
  bound_member(M method, Obj* object) : method_(method), object_(object) {
    if (method_ == nullptr || object_ == nullptr) {
      throw std::invalid_argument("the member function or its object is null");
    }
  }
  typename fn_sig<M>::ret operator()(A... a) const {
    return (object_->*method_)(std::forward<A>(a)...);
  }

 private:
  M method_;
  Obj* object_;
};

// ------------------------------------------------------------------------------------ returns

template <class R>
struct is_result : std::false_type {};
template <class T>
struct is_result<result<T>> : std::true_type {};
template <class R>
struct is_reply : std::false_type {};
template <class T>
struct is_reply<reply<T>> : std::true_type {};
template <class R>
struct is_awaitable : std::false_type {};
template <class T, class E>
struct is_awaitable<boost::asio::awaitable<T, E>> : std::true_type {};

/// The output value a return type `R` carries (through result<> and awaitable<>).
template <class R>
struct output_of {
  using type = R;
};
template <class T>
struct output_of<result<T>> : output_of<T> {};
template <class T, class E>
struct output_of<boost::asio::awaitable<T, E>> : output_of<T> {};
template <class T>
struct output_of<reply<T>> : output_of<T> {};

/// Starts a coroutine handler: specialised by <mcp/asio.hpp> (which a coroutine handler's
/// translation unit includes to use Asio at all).
template <class Awaitable>
struct awaitable_runner {
  static constexpr bool available = false;
};

/// The value of a handler that returns nothing.
struct none {};
/// What a sink receives for output `Out`: `none` for void.
template <class Out>
using sink_value_t = std::conditional_t<std::is_void_v<Out>, none, Out>;

/// Where a typed handler's outcome goes (made per request by the feature's adapter). `V` is
/// `sink_value_t<Out>`.
template <class V>
class outcome_sink {
 public:
  virtual ~outcome_sink() = default;
  /// The handler's value.
  virtual void value(V&& out) = 0;
  /// A failure the handler returned or threw (tools: an isError result; resources and prompts:
  /// a JSON-RPC error).
  virtual void failure(error&& e) = 0;
  /// The explicit JSON-RPC error (`throw protocol_error`, `reply.fail_request`).
  virtual void protocol(error&& e) = 0;
};

/// A map of strings (prompt arguments, URI template variables) as a JSON object, for decoding a
/// typed input from it.
template <class Map>
json::object string_object(const Map& m) {
  json::object o;
  o.reserve(m.size());
  for (const auto& [k, v] : m) o.emplace(k, v);
  return o;
}

/// Delivers what a handler returned, `r` (an output, or a result<...> of one), to `sink`.
template <class V, class R>
void deliver(outcome_sink<V>& sink, R&& r) {
  using T = std::remove_cvref_t<R>;
  if constexpr (is_result<T>::value) {
    if (r.has_error()) return sink.failure(std::move(r).error());
    if constexpr (std::is_void_v<typename T::value_type>) {
      sink.value(V{});
    } else {
      deliver(sink, std::move(*r));
    }
  } else {
    sink.value(V(std::forward<R>(r)));
  }
}

/// The error a handler's exception `e` stands for: a `protocol_error`'s (and `protocol` set),
/// else internal_error with the exception's message (src/typed_tool.cpp).
error exception_error(std::exception_ptr e, bool& protocol);

/// Delivers the exception `e` to `sink`.
template <class V>
void deliver_exception(outcome_sink<V>& sink, std::exception_ptr e) {
  bool protocol = false;
  error err = exception_error(std::move(e), protocol);
  if (protocol) {
    sink.protocol(std::move(err));
  } else {
    sink.failure(std::move(err));
  }
}

/// A `reply<Out>` whose completion goes to an outcome sink.
template <class Out>
class sink_reply final : public reply_target<Out> {
 public:
  explicit sink_reply(std::shared_ptr<outcome_sink<sink_value_t<Out>>> sink)
      : sink_(std::move(sink)) {}
  void complete(result<Out>&& r) override { deliver(*sink_, std::move(r)); }
  void fail_request(error&& e) override { sink_->protocol(std::move(e)); }

 private:
  std::shared_ptr<outcome_sink<sink_value_t<Out>>> sink_;
};

// ------------------------------------------------------------------------------------ adapter

/// Turns a typed handler `F` into the feature's raw asynchronous form
/// `void(Traits::context&, const Traits::request&, Traits::done)`. `Traits` says:
///   context      the context type handlers may take (also taken as a request_context&)
///   request      the feature's request type handlers may take (a tag type for none)
///   done         what the raw form completes (a responder, a reply<...>)
///   template <class V> sink_type: an outcome_sink<V> (V: the output, `none` for void) made
///                of (done, const prepared&, const request&)
///   template <class In> static result<In> decode(const request&, const prepared&)
///   prepared     what the adapter keeps from `prepare` (a name, a MIME type)
///   template <class In, class Out, bool TakesRequest> static prepared prepare(spec&):
///                checks the spec and infers what it leaves out (schemas, arguments)
///   static constexpr const char* what: "add_tool", "add_resource", "add_prompt"
template <class Traits, class F>
class handler_adapter {
  using sig = handler_signature<F>;
  using params = typename sig::args;
  using context_t = typename Traits::context;
  using request_t = typename Traits::request;

  template <class P>
  using is_ctx = std::bool_constant<std::is_same_v<std::remove_cvref_t<P>, context_t> ||
                                    std::is_same_v<std::remove_cvref_t<P>, request_context>>;
  template <class P>
  using is_req = std::is_same<std::remove_cvref_t<P>, request_t>;
  template <class P>
  using is_rep = is_reply<std::remove_cvref_t<P>>;
  template <class P>
  using is_special = std::bool_constant<is_ctx<P>::value || is_req<P>::value || is_rep<P>::value>;
  using inputs = boost::mp11::mp_remove_if<params, is_special>;
  using replies = boost::mp11::mp_copy_if<params, is_rep>;

 public:
  static constexpr bool has_reply = !boost::mp11::mp_empty<replies>::value;
  static constexpr bool takes_request = boost::mp11::mp_count_if<params, is_req>::value > 0;
  using ret_type = typename sig::ret;
  using out_type =
      typename output_of<std::conditional_t<has_reply,
                                            std::remove_cvref_t<boost::mp11::mp_eval_if_c<
                                                !has_reply, void, boost::mp11::mp_front, replies>>,
                                            ret_type>>::type;
  using in_param = boost::mp11::mp_eval_if_c<boost::mp11::mp_empty<inputs>::value, void,
                                             boost::mp11::mp_front, inputs>;
  using in_type = std::remove_cvref_t<in_param>;

  static_assert(deducible_signature<F>,
                "mcp: cannot see the handler's parameter types (a generic lambda or an "
                "overloaded function object?); write them out, e.g. "
                "[](const forecast_in& in) { ... }");
  static_assert(boost::mp11::mp_count_if<params, is_ctx>::value <= 1,
                "mcp: the handler takes its context (mcp::tool_context& or "
                "mcp::request_context&) at most once");
  static_assert(boost::mp11::mp_size<replies>::value <= 1,
                "mcp: the handler takes at most one mcp::reply<Out>");
  static_assert(!has_reply || std::is_void_v<ret_type>,
                "mcp: a handler that takes mcp::reply<Out> returns void and calls the reply");
  static_assert(boost::mp11::mp_size<inputs>::value <= 1,
                "mcp: the handler takes at most one arguments parameter (a struct holding "
                "every argument) besides its context, request and reply");
  static_assert(!std::is_lvalue_reference_v<in_param> ||
                    std::is_const_v<std::remove_reference_t<in_param>>,
                "mcp: take the arguments as const In&, In or In&&");
  static_assert(!is_awaitable<ret_type>::value || awaitable_runner<ret_type>::available,
                "mcp: a coroutine handler needs #include <mcp/asio.hpp>");

  template <class Spec>
  handler_adapter(Spec& spec, F fn) : fn_(std::move(fn)) {
    if constexpr (std::is_pointer_v<F>) {
      if (fn_ == nullptr) throw std::invalid_argument(std::string(Traits::what) + ": null handler");
    } else if constexpr (is_std_function<F>::value) {
      if (!fn_) throw std::invalid_argument(std::string(Traits::what) + ": empty handler");
    }
    prepared_ = Traits::template prepare<in_type, out_type, takes_request>(spec);
  }

  void operator()(context_t& ctx, const request_t& req, typename Traits::done done) {
    sink_t sink(std::move(done), prepared_, req);
    if constexpr (has_reply || is_awaitable<ret_type>::value) {
      // Completed later: the sink is shared with the reply or the coroutine.
      auto shared = std::make_shared<sink_t>(std::move(sink));
      start(ctx, req, shared, *shared);
    } else {
      start(ctx, req, nullptr, sink);
    }
  }

 private:
  using sink_t = typename Traits::template sink_type<sink_value_t<out_type>>;
  using shared_sink = std::shared_ptr<outcome_sink<sink_value_t<out_type>>>;

  void start(context_t& ctx, const request_t& req, const shared_sink& shared, sink_t& sink) {
    try {
      if constexpr (std::is_void_v<in_type>) {
        int none = 0;
        run(ctx, req, none, shared, sink);
      } else {
        result<in_type> in = Traits::template decode<in_type>(req, prepared_);
        if (!in) return sink.failure(std::move(in).error());
        run(ctx, req, *in, shared, sink);
      }
    } catch (...) {
      deliver_exception(sink, std::current_exception());
    }
  }

  /// The argument for a parameter of type P.
  template <class P, class In>
  static decltype(auto) pick(context_t& ctx, const request_t& req, In& in,
                             const shared_sink& shared) {
    if constexpr (is_ctx<P>::value) {
      return (ctx);
    } else if constexpr (is_req<P>::value) {
      return (req);
    } else if constexpr (is_rep<P>::value) {
      return reply<out_type>(std::make_shared<sink_reply<out_type>>(shared));
    } else if constexpr (std::is_lvalue_reference_v<P>) {
      return static_cast<const In&>(in);
    } else {
      return std::move(in);
    }
  }

  template <class In, class... P>
  decltype(auto) call(context_t& ctx, const request_t& req, In& in, const shared_sink& shared,
                      boost::mp11::mp_list<P...>) {
    return fn_(pick<P>(ctx, req, in, shared)...);
  }

  template <class In>
  void run(context_t& ctx, const request_t& req, In& in, const shared_sink& shared, sink_t& sink) {
    if constexpr (has_reply) {
      call(ctx, req, in, shared, params{});
    } else if constexpr (is_awaitable<ret_type>::value) {
      // The coroutine may outlive this frame: the runner keeps a copy of the context, the
      // request and the input for it (the handler itself is kept by the request's state).
      awaitable_runner<ret_type>::run(
          ctx, req, std::move(in), shared,
          // `this->`: clang 14 does not count an unqualified member call in a generic lambda as
          // a use of the capture (-Wunused-lambda-capture), although the call needs it.
          [this](context_t& c, const request_t& r, auto& i, const shared_sink& s) {
            return this->call(c, r, i, s, params{});
          });
    } else if constexpr (std::is_void_v<ret_type>) {
      call(ctx, req, in, shared, params{});
      sink.value(none{});
    } else {
      deliver(sink, call(ctx, req, in, shared, params{}));
    }
  }

  F fn_;
  typename Traits::prepared prepared_{};
};

}  // namespace mcp::detail
