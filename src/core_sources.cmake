list(APPEND MCP_SOURCES
  client.cpp
  content.cpp
  detail/timer.cpp
  jsonrpc.cpp
  pipeline.cpp
  prompt_registry.cpp
  resource_registry.cpp
  server.cpp
  server_catalogs.cpp
  server_session.cpp
  thread_pool.cpp
  tool.cpp
  tool_registry.cpp
  transport_memory.cpp
  transport_stdio.cpp
  uri_template.cpp
)
