# The SDK's libraries. Each is compiled once, position-independent, into an object library; its
# objects are archived as the static library (the target everything in this tree links, e.g.
# mcp_http, alias mcp::http) and, with MCP_BUILD_SHARED, linked as a shared library from the
# same objects (mcp_http_shared, file libmcp_http.so.<SOVERSION>). The shared flavour costs one
# link per library, not a second compilation (docs/packaging.md, "Libraries").
#
# SOVERSION: 0.MINOR while the major version is 0 (every 0.x minor may break the ABI), then
# MAJOR. It changes exactly when the CMake package version file calls two versions
# incompatible (cmake/mcp_install.cmake).
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(MCP_SOVERSION 0.${PROJECT_VERSION_MINOR})
else()
  set(MCP_SOVERSION ${PROJECT_VERSION_MAJOR})
endif()

# The shared flavour of a dependency: mcp::<x> (our static library) becomes its _shared twin;
# anything else is kept.
function(_mcp_shared_deps out)
  set(deps "")
  foreach(dep IN LISTS ARGN)
    if(dep MATCHES "^mcp::" AND TARGET ${dep})
      get_target_property(real ${dep} ALIASED_TARGET)
      list(APPEND deps ${real}_shared)
    else()
      list(APPEND deps ${dep})
    endif()
  endforeach()
  set(${out} ${deps} PARENT_SCOPE)
endfunction()

# mcp_add_library(<name> EXPORT_NAME <x> SOURCES <file>... [PUBLIC <dep>...] [PRIVATE <dep>...])
# Defines <name>_objects, <name> (static, alias mcp::<x>) and, with MCP_BUILD_SHARED,
# <name>_shared. Dependencies on our own libraries are named mcp::<x>. Private sources include
# src/ as their directory.
function(mcp_add_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "EXPORT_NAME" "SOURCES;PUBLIC;PRIVATE")
  add_library(${name}_objects OBJECT ${arg_SOURCES})
  set_target_properties(${name}_objects PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_compile_features(${name}_objects PUBLIC cxx_std_20)
  target_include_directories(${name}_objects PUBLIC ${PROJECT_SOURCE_DIR}/include
                                             PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name}_objects PUBLIC ${arg_PUBLIC} PRIVATE ${arg_PRIVATE})
  mcp_target_defaults(${name}_objects)

  set(flavours static)
  if(MCP_BUILD_SHARED)
    list(APPEND flavours shared)
  endif()
  foreach(flavour IN LISTS flavours)
    if(flavour STREQUAL "static")
      set(lib ${name})
      add_library(${lib} STATIC $<TARGET_OBJECTS:${name}_objects>)
      add_library(mcp::${arg_EXPORT_NAME} ALIAS ${lib})
      target_link_libraries(${lib} PUBLIC ${arg_PUBLIC} PRIVATE ${arg_PRIVATE})
    else()
      set(lib ${name}_shared)
      add_library(${lib} SHARED $<TARGET_OBJECTS:${name}_objects>)
      _mcp_shared_deps(public ${arg_PUBLIC})
      _mcp_shared_deps(private ${arg_PRIVATE})
      target_link_libraries(${lib} PUBLIC ${public} PRIVATE ${private})
      # RUNPATH $ORIGIN: installed under any prefix, libmcp_auth.so finds libmcp_http.so beside
      # it (a program's own RUNPATH covers only the libraries it names itself).
      set_target_properties(${lib} PROPERTIES OUTPUT_NAME ${name} VERSION ${PROJECT_VERSION}
                                              SOVERSION ${MCP_SOVERSION} INSTALL_RPATH "$ORIGIN")
      # Every symbol the library uses comes from a library it names (a missing private
      # dependency fails here, not in a consumer's link).
      if(NOT MCP_SANITIZE AND NOT MCP_FUZZ)
        target_link_options(${lib} PRIVATE LINKER:--no-undefined)
      endif()
    endif()
    set_target_properties(${lib} PROPERTIES EXPORT_NAME ${arg_EXPORT_NAME} LINKER_LANGUAGE CXX)
    target_compile_features(${lib} PUBLIC cxx_std_20)
    target_include_directories(${lib} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                             $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    mcp_target_defaults(${lib})
  endforeach()
endfunction()
