list(APPEND MCP_SOURCES
  client.cpp
  content.cpp
  detail/timer.cpp
  jsonrpc.cpp
  pipeline.cpp
  server.cpp
  server_session.cpp
  thread_pool.cpp
  tool.cpp
  tool_registry.cpp
  transport_memory.cpp
  transport_stdio.cpp
)
