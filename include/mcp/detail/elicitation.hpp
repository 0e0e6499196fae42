// File: mcp/detail/elicitation.hpp
//
// Compile-time checks behind `tool_context::elicit<T>` (mcp/tool.hpp): a form elicitation's
// requestedSchema is the spec's restricted subset, a flat object of primitive properties
// (string, number, integer, boolean, a single-select enum, a multi-select enum array) with
// titles, descriptions, defaults and a few constraints. Internal: nothing here is part of the
// public API and names may change at any time.
#pragma once

#include <mcp/reflect.hpp>

#include <string_view>
#include <type_traits>
#include <vector>

namespace mcp::detail {

/// A member type a form can ask for.
template <class M>
constexpr bool form_value_v = std::is_same_v<M, bool> || integer<M> || floating<M> ||
                              std::is_same_v<M, std::string> || described_enum<M>;
template <class V>
constexpr bool enum_vector_v = false;
template <class E, class A>
constexpr bool enum_vector_v<std::vector<E, A>> = described_enum<E>;
template <class M>
constexpr bool form_member_v =
    form_value_v<typename value_of<M>::type> || enum_vector_v<typename value_of<M>::type>;

template <class T, class D>
consteval bool check_form_member() {
  using M = member_t<T, D>;
  constexpr const field& f = field_v<T, D>;
  static_assert(form_member_v<M>,
                "mcp::tool_context::elicit<T>: a form asks for flat values only: each member of "
                "T must be bool, an integer, a floating-point number, std::string, a described "
                "enum, a std::vector of a described enum, or a std::optional of one of these");
  static_assert(!(f.nullable || f.exclusive_minimum || f.exclusive_maximum || f.multiple_of ||
                  !f.pattern.empty() || f.unique_items || !f.examples.empty() || f.deprecated),
                "mcp::tool_context::elicit<T>: the elicitation schema has no nullable, "
                "exclusive_minimum, exclusive_maximum, multiple_of, pattern, unique_items, "
                "examples or deprecated; use title, description, defaults, minimum/maximum, "
                "min_length/max_length, format, enum_values and min_items/max_items");
  constexpr std::string_view format = f.format;
  static_assert(format.empty() || format == "date" || format == "date-time" || format == "email" ||
                    format == "uri",
                "mcp::tool_context::elicit<T>: an elicitation string's format is one of date, "
                "date-time, email and uri");
  return true;
}

template <class T, class... D>
consteval bool check_form_members(boost::mp11::mp_list<D...>) {
  return (check_form_member<T, D>() && ... && true);
}

/// Compile-time checks that `T` describes a form.
template <class T>
consteval bool check_form() {
  static_assert(described_struct<T>,
                "mcp::tool_context::elicit<T>: T must be a struct described with MCP_FIELDS (or "
                "BOOST_DESCRIBE_STRUCT)");
  if constexpr (described_struct<T>) {
    return check_form_members<T>(boost::mp11::mp_rename<members_t<T>, boost::mp11::mp_list>{});
  }
  return false;
}

}  // namespace mcp::detail
