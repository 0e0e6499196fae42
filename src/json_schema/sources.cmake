# The JSON Schema validator (include/mcp/json_schema.hpp). No MCP knowledge.
list(APPEND MCP_SOURCES
  json_schema/compile.cpp
  json_schema/keywords.cpp
  json_schema/evaluate.cpp
  json_schema/values.cpp
  json_schema/regex.cpp
  json_schema/formats.cpp
  json_schema/metaschemas.cpp
  json_schema/optimize.cpp
  json_schema/idna.cpp
)
