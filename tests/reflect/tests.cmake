# Tests of mcp/reflect.hpp (describe-driven JSON encode/decode and schema inference).
mcp_add_test(mcp_reflect_tests
  reflect/reflect_test.cpp
  reflect/reflect_schema_test.cpp
)

# Property tests against the JSON Schema validator (mcp/json_schema.hpp).
mcp_add_test(mcp_reflect_property_tests reflect/reflect_property_test.cpp
                                        reflect/reflect_fields_test.cpp)

# Compile-fail tests: each case compiles tests/reflect/compile_fail.cpp (reflect.hpp) or
# typed_tool_compile_fail.cpp (add_tool, elicit<T>) with one MCP_CASE_* macro and passes when
# the compiler prints the expected diagnostic. The NONE cases check that the files compile
# cleanly otherwise (with the warnings users are likely to enable).
get_target_property(_mcp_reflect_boost_inc Boost::headers INTERFACE_INCLUDE_DIRECTORIES)
set(_mcp_reflect_cxx_flags -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Werror
    -I${PROJECT_SOURCE_DIR}/include)
foreach(_dir IN LISTS _mcp_reflect_boost_inc)
  if(_dir AND NOT _dir IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
    list(APPEND _mcp_reflect_cxx_flags -isystem ${_dir})
  endif()
endforeach()
function(_mcp_compile_fail prefix source case regex)
  add_test(NAME ${prefix}.${case}
    COMMAND ${CMAKE_CXX_COMPILER} ${_mcp_reflect_cxx_flags} -DMCP_CASE_${case}
            ${CMAKE_CURRENT_SOURCE_DIR}/reflect/${source})
  set_tests_properties(${prefix}.${case} PROPERTIES
    PASS_REGULAR_EXPRESSION "${regex}" TIMEOUT 120)
endfunction()
function(_mcp_reflect_compile_fail case regex)
  _mcp_compile_fail(reflect_compile_fail compile_fail.cpp ${case} "${regex}")
endfunction()
function(_mcp_typed_tool_compile_fail case regex)
  _mcp_compile_fail(typed_tool_compile_fail typed_tool_compile_fail.cpp ${case} "${regex}")
endfunction()
_mcp_reflect_compile_fail(UNDESCRIBED_STRUCT
  "describe T with MCP_FIELDS \\(or BOOST_DESCRIBE_STRUCT\\) or specialize mcp::json_traits")
_mcp_reflect_compile_fail(UNDESCRIBED_STRUCT_DECODE
  "describe T with MCP_FIELDS \\(or BOOST_DESCRIBE_STRUCT\\) or specialize mcp::json_traits")
_mcp_reflect_compile_fail(UNDESCRIBED_STRUCT_SCHEMA
  "describe T with MCP_FIELDS \\(or BOOST_DESCRIBE_STRUCT\\) or specialize mcp::json_traits")
_mcp_reflect_compile_fail(UNDESCRIBED_ENUM "describe the enum T with BOOST_DESCRIBE_ENUM")
_mcp_reflect_compile_fail(MISSPELT_DOC "citty")
_mcp_reflect_compile_fail(UNDESCRIBED_DOC
  "MCP_FIELD_DOCS names a member that BOOST_DESCRIBE_STRUCT does not list")
_mcp_reflect_compile_fail(STRING_VIEW_DECODE "std::string_view can be encoded but not decoded")
_mcp_reflect_compile_fail(CHAR "character types have no JSON mapping")
_mcp_reflect_compile_fail(FIELDS_MISSPELT "nn")
_mcp_reflect_compile_fail(FIELD_STRING_KEYWORD_ON_INT
  "min_length, .max_length, .pattern and .format apply to string members")
_mcp_reflect_compile_fail(FIELD_NUMBER_KEYWORD_ON_STRING
  "multiple_of apply to number members")
_mcp_reflect_compile_fail(FIELD_ITEMS_KEYWORD_ON_STRING "unique_items apply to std::vector members")
_mcp_reflect_compile_fail(FIELD_ENUM_VALUES_ON_ENUM "enum_values applies to string members")
_mcp_reflect_compile_fail(FIELD_NULLABLE_NOT_OPTIONAL "nullable applies to std::optional members")
_mcp_reflect_compile_fail(FIELD_DEFAULT_OF_WRONG_KIND "default_value does not fit the member's type")
_mcp_reflect_compile_fail(FIELD_SAME_JSON_NAME "two members have the same JSON name")
_mcp_reflect_compile_fail(FIELD_NEGATIVE_LENGTH "lengths and item counts cannot be negative")
_mcp_reflect_compile_fail(FIELD_TOO_MANY_EXAMPLES "too_many_enum_values_or_examples")
# GCC and clang word the out-of-order designator differently.
_mcp_reflect_compile_fail(FIELD_ORDER
  "designator order for field|field designators to be specified in declaration order")
add_test(NAME reflect_compile_fail.NONE
  COMMAND ${CMAKE_CXX_COMPILER} ${_mcp_reflect_cxx_flags} -DMCP_CASE_NONE
          ${CMAKE_CURRENT_SOURCE_DIR}/reflect/compile_fail.cpp)

_mcp_typed_tool_compile_fail(GENERIC_LAMBDA "cannot see the handler's parameter types")
_mcp_typed_tool_compile_fail(BIND_FRONT "cannot see the handler's parameter types")
_mcp_typed_tool_compile_fail(TWO_INPUTS "at most one arguments parameter")
_mcp_typed_tool_compile_fail(TWO_CONTEXTS "takes its context \\(mcp::tool_context& or mcp::request_context&\\) at most once")
_mcp_typed_tool_compile_fail(SCALAR_INPUT "a tool's arguments are a JSON object")
_mcp_typed_tool_compile_fail(UNDESCRIBED_INPUT "a tool's arguments are a JSON object")
_mcp_typed_tool_compile_fail(MUTABLE_REF_INPUT "take the arguments as const In&, In or In&&")
_mcp_typed_tool_compile_fail(UNSUPPORTED_RETURN "no JSON mapping for T")
_mcp_typed_tool_compile_fail(ELICIT_NESTED "a form asks for flat values only")
_mcp_typed_tool_compile_fail(ELICIT_PATTERN "the elicitation schema has no nullable")
add_test(NAME typed_tool_compile_fail.NONE
  COMMAND ${CMAKE_CXX_COMPILER} ${_mcp_reflect_cxx_flags} -DMCP_CASE_NONE
          ${CMAKE_CURRENT_SOURCE_DIR}/reflect/typed_tool_compile_fail.cpp)
set_tests_properties(typed_tool_compile_fail.NONE PROPERTIES TIMEOUT 120)

# The detail parts of the typed tool API each compile on their own too (tests/headers checks
# the public headers).
foreach(_header reflect_pp reflect_meta reflect_encode reflect_decode reflect_schema elicitation
                unique_function handler_traits)
  add_test(NAME detail_header_alone.${_header}
    COMMAND ${CMAKE_CXX_COMPILER} ${_mcp_reflect_cxx_flags} -x c++
            -include ${PROJECT_SOURCE_DIR}/include/mcp/detail/${_header}.hpp /dev/null)
  set_tests_properties(detail_header_alone.${_header} PROPERTIES TIMEOUT 120)
endforeach()
