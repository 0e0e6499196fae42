#!/usr/bin/env bash
# Package test (ctest label `package`): what a new user does after `apt install` of the two
# Debian packages, on the packages made from this build tree.
#
#   run.sh BUILD_DIR SOURCE_DIR WORK_DIR SOVERSION LIBDIR
#
# 1. cpack makes libmcp-cpp-dev and mcp-cpp from the built tree (the install rules and CPack
#    settings of scripts/package.sh; gzip instead of xz to save time). Their Depends must be
#    Debian packages installed here, which is what apt resolves on a user's machine.
# 2. They are unpacked into a scratch root with `dpkg -x`: a real `apt install` needs root and
#    changes the machine, so the test does not do one (docs/packaging.md records one by hand).
# 3. In a new directory, the README's first C++ example is built with a five-line CMakeLists
#    (find_package(mcp), CMAKE_PREFIX_PATH=root/usr; and again with mcp_precompile_headers),
#    then with `pkg-config --cflags --libs mcp`
#    (the root's .pc files only, prefix moved to the root); the packaged `mcp-cpp tools list`
#    runs each and must see its `forecast` tool, and the packaged demo server's.
# 4. Programs using mcp::observe (metrics counting a call) and mcp::redis (a key written and read
#    and a task store, on a redis-server started on 127.0.0.1 when Debian's is installed; else
#    the client is only made) are built with find_package (shared, then static libraries) and
#    with pkg-config, and run.
# 5. The CMake package finds SQLite, OpenSSL and hiredis only for static components that need
#    them.
# Exits 77 (skipped) where dpkg-deb or cpack is missing (not Debian).
set -euo pipefail
build="$1" src="$2" work="$3" soversion="$4" libdir_rel="$5"
for tool in dpkg-deb dpkg-query cpack pkg-config readelf; do
  command -v "$tool" >/dev/null || { echo "package test: SKIPPED: no $tool here"; exit 77; }
done
fail() { echo "package test: FAILED: $*" >&2; exit 1; }
step() { printf '== %s\n' "$*"; }
rm -rf "$work" && mkdir -p "$work"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

step "cpack (DEB) from $build"
(cd "$build" && cpack -G DEB -B "$work/debs" -D CPACK_DEBIAN_COMPRESSION_TYPE=gzip) \
  >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cpack failed"; }
dev=$(echo "$work"/debs/libmcp-cpp-dev_*.deb) cli=$(echo "$work"/debs/mcp-cpp_*.deb)
[[ -f "$dev" && -f "$cli" ]] || fail "expected libmcp-cpp-dev and mcp-cpp packages in $work/debs"

step "dependencies are installed Debian packages"
for deb in "$dev" "$cli"; do
  depends=$(dpkg-deb -f "$deb" Depends)
  echo "$(basename "$deb"): Depends: $depends"
  [[ -n "$depends" ]] || fail "$deb declares no dependencies"
  for name in $(echo "$depends" | tr ',|' '\n\n' | sed 's/(.*)//; s/:any//'); do
    dpkg-query -W -f='${Status}\n' "$name" 2>/dev/null | grep -q "ok installed" ||
      fail "$(basename "$deb") depends on '$name', which is not an installed Debian package"
  done
done
dpkg-deb -f "$dev" Depends | grep -q "libboost1.81-dev" || fail "libmcp-cpp-dev must depend on libboost1.81-dev"
dpkg-deb -f "$dev" Depends | grep -q "libhiredis" ||
  fail "libmcp-cpp-dev must depend on libhiredis (libmcp_redis.so needs it)"

step "contents"
contents=$(dpkg-deb -c "$dev"; dpkg-deb -c "$cli")
for f in usr/include/mcp/server.hpp usr/include/mcp/version.hpp usr/include/mcp/redis.hpp \
         usr/include/mcp/observe/metrics.hpp usr/bin/mcp-cpp \
         usr/bin/mcp-cpp-demo-server "usr/$libdir_rel/cmake/mcp/mcp-config.cmake" \
         "usr/$libdir_rel/cmake/mcp/mcp-config-version.cmake"; do
  grep -q "\./$f\$" <<<"$contents" || fail "no $f in the packages"
done
for lib in mcp_json mcp mcp_sqlite mcp_http mcp_auth mcp_observe mcp_redis; do
  for f in "lib$lib.a" "lib$lib.so -> lib$lib.so.$soversion" "lib$lib.so.$soversion ->"; do
    grep -qF "./usr/$libdir_rel/$f" <<<"$contents" || fail "no usr/$libdir_rel/$f in libmcp-cpp-dev"
  done
done
for pc in mcp-json mcp mcp-sqlite mcp-http mcp-auth mcp-observe mcp-redis; do
  grep -q "\./usr/$libdir_rel/pkgconfig/$pc.pc\$" <<<"$contents" || fail "no $pc.pc"
done

step "dpkg -x into $work/root"
root="$work/root"
dpkg -x "$dev" "$root" && dpkg -x "$cli" "$root"
libdir="$root/usr/$libdir_rel"
soname=$(readelf -d "$libdir/libmcp.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ "$soname" == "libmcp.so.$soversion" ]] || fail "libmcp.so has SONAME '$soname', expected libmcp.so.$soversion"
grep -qx "prefix=/usr" "$libdir/pkgconfig/mcp.pc" || fail "mcp.pc does not say prefix=/usr"
mcp_cpp="$root/usr/bin/mcp-cpp"

# tools_list NAME COMMAND...: the packaged mcp-cpp lists COMMAND's tools; `forecast` must be one.
tools_list() {
  local name="$1"; shift
  (cd "$work" && "$mcp_cpp" tools list --timeout 20 -- "$@") >"$work/$name.out" 2>&1 ||
    { cat "$work/$name.out"; fail "mcp-cpp tools list -- $* failed"; }
  grep -q "^forecast " "$work/$name.out" || { cat "$work/$name.out"; fail "no forecast tool from $*"; }
  echo "$name: $(grep -c . "$work/$name.out") lines, forecast listed"
}
step "the packaged demo server"
tools_list demo "$root/usr/bin/mcp-cpp-demo-server" --task-store :memory:

step "the README's example with find_package(mcp)"
app="$work/app"
mkdir -p "$app"
awk '/^```cpp$/ { inside = 1; next } /^```$/ && inside { exit } inside' "$src/README.md" >"$app/main.cpp"
grep -q "add_tool" "$app/main.cpp" || fail "no C++ example with add_tool at the top of README.md"
cat >"$app/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(weather LANGUAGES CXX)
find_package(mcp CONFIG REQUIRED)
add_executable(weather main.cpp)
target_link_libraries(weather PRIVATE mcp::mcp)
add_executable(weather_pch main.cpp)
target_link_libraries(weather_pch PRIVATE mcp::mcp)
mcp_precompile_headers(weather_pch)
EOF
cmake -S "$app" -B "$app/build" -DCMAKE_PREFIX_PATH="$root/usr" "${launcher[@]}" >"$work/app-cmake.log" 2>&1 ||
  { cat "$work/app-cmake.log"; fail "configuring the example failed"; }
grep -qx "mcp_DIR:PATH=$libdir/cmake/mcp" "$app/build/CMakeCache.txt" ||
  fail "find_package(mcp) did not take the scratch root's package: $(grep mcp_DIR "$app/build/CMakeCache.txt")"
cmake --build "$app/build" >"$work/app-build.log" 2>&1 || { cat "$work/app-build.log"; fail "building the example failed"; }
readelf -d "$app/build/weather" | grep -q "NEEDED.*\[libmcp.so.$soversion\]" ||
  fail "the example is not linked to libmcp.so.$soversion"
tools_list weather-cmake "$app/build/weather"
ls "$app"/build/CMakeFiles/weather_pch.dir/cmake_pch.hxx.[gp]ch >/dev/null 2>&1 ||
  fail "mcp_precompile_headers(weather_pch) made no precompiled header"
tools_list weather-cmake-pch "$app/build/weather_pch"

step "the README's example with pkg-config"
# PKG_CONFIG_LIBDIR: the root's .pc files and no others; prefix moved from /usr to the root.
pc=(env PKG_CONFIG_LIBDIR="$libdir/pkgconfig" pkg-config --define-variable=prefix="$root/usr")
flags=$("${pc[@]}" --cflags --libs mcp) || fail "pkg-config --cflags --libs mcp failed"
echo "pkg-config --cflags --libs mcp: $flags"
"${pc[@]}" --cflags --libs mcp-auth >/dev/null || fail "pkg-config mcp-auth failed"
"${pc[@]}" --static --libs mcp-auth | grep -q -- "-lssl" || fail "mcp-auth.pc: --static does not add -lssl"
compiler=(c++)
command -v ccache >/dev/null && compiler=(ccache c++)
# shellcheck disable=SC2086  # the flags are words
"${compiler[@]}" -std=c++20 "$app/main.cpp" $flags -o "$work/weather-pc" 2>"$work/app-pc.log" ||
  { cat "$work/app-pc.log"; fail "c++ with pkg-config flags failed"; }
tools_list weather-pkg-config env LD_LIBRARY_PATH="$libdir" "$work/weather-pc"

step "mcp::observe and mcp::redis"
redis_url=()
if command -v redis-server >/dev/null; then
  mkdir -p "$work/redis"
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no --dir "$work/redis" \
    >"$work/redis/log" 2>&1 &
  redis_pid=$!
  trap 'kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null || true' EXIT
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
  redis_url=("redis://127.0.0.1:$port")
  echo "redis-server on 127.0.0.1:$port"
else
  echo "no redis-server here: the redis program only makes its client"
fi
# run_both DIR: runs DIR's observe and redis programs (the root's libraries beside them).
run_both() {
  env LD_LIBRARY_PATH="$libdir" "$1/observe" || fail "$1/observe failed"
  env LD_LIBRARY_PATH="$libdir" "$1/redis" "${redis_url[@]}" || fail "$1/redis failed"
}
uses="$work/observe-redis"
mkdir -p "$uses"
cp "$src/tests/package/observe.cpp" "$src/tests/package/redis.cpp" "$uses/"
printf '%s\n' 'cmake_minimum_required(VERSION 3.25)' 'project(observe_redis LANGUAGES CXX)' \
  'find_package(mcp CONFIG REQUIRED COMPONENTS observe redis)' \
  'add_executable(observe observe.cpp)' 'target_link_libraries(observe PRIVATE mcp::observe)' \
  'add_executable(redis redis.cpp)' 'target_link_libraries(redis PRIVATE mcp::redis)' \
  >"$uses/CMakeLists.txt"
for flavour in shared static; do
  dir="$uses/build-$flavour" static=OFF
  [[ "$flavour" == static ]] && static=ON
  { cmake -S "$uses" -B "$dir" -DCMAKE_PREFIX_PATH="$root/usr" -DMCP_USE_STATIC_LIBS=$static \
      "${launcher[@]}" && cmake --build "$dir"; } >"$dir.log" 2>&1 ||
    { cat "$dir.log"; fail "building observe and redis ($flavour libraries) failed"; }
  for prog in observe redis; do
    if [[ "$flavour" == shared ]]; then
      readelf -d "$dir/$prog" | grep -q "NEEDED.*\[libmcp_$prog.so.$soversion\]" ||
        fail "$prog is not linked to libmcp_$prog.so.$soversion"
    elif readelf -d "$dir/$prog" | grep -q "NEEDED.*libmcp"; then
      fail "$prog (static libraries) still needs a shared libmcp"
    fi
  done
  echo "find_package, $flavour libraries:"
  run_both "$dir"
done
mkdir -p "$uses/pc"
for prog in observe redis; do
  # shellcheck disable=SC2046  # the flags are words
  "${compiler[@]}" -std=c++20 "$uses/$prog.cpp" $("${pc[@]}" --cflags --libs "mcp-$prog") \
    -o "$uses/pc/$prog" 2>"$uses/pc/$prog.log" ||
    { cat "$uses/pc/$prog.log"; fail "c++ $prog.cpp with pkg-config failed"; }
done
echo "pkg-config:"
run_both "$uses/pc"
"${pc[@]}" --static --libs mcp-redis | grep -q -- "-lhiredis" ||
  fail "mcp-redis.pc: --static does not add -lhiredis"
"${pc[@]}" --static --libs mcp-observe | grep -q -- "-lmcp_http" ||
  fail "mcp-observe.pc: --static does not add -lmcp_http"

step "components: SQLite, OpenSSL and hiredis only where a static component needs them"
# configure NAME EXPECT(ok|fail) [-D...]: a project that only calls find_package(mcp ...).
configure() {
  local name="$1" expect="$2"; shift 2
  local dir="$work/components/$name"
  mkdir -p "$dir"
  printf '%s\n' 'cmake_minimum_required(VERSION 3.25)' 'project(c LANGUAGES CXX)' \
    'find_package(mcp ${VERSION} CONFIG REQUIRED ${COMPONENTS})' >"$dir/CMakeLists.txt"
  if cmake -S "$dir" -B "$dir/build" -DCMAKE_PREFIX_PATH="$root/usr" "$@" >"$dir/log" 2>&1; then
    [[ "$expect" == ok ]] || { cat "$dir/log"; fail "$name: expected find_package to fail"; }
  else
    [[ "$expect" == fail ]] || { cat "$dir/log"; fail "$name: find_package failed"; }
  fi
  echo "$name: $expect"
}
no_sqlite=-DCMAKE_DISABLE_FIND_PACKAGE_SQLite3=ON no_ssl=-DCMAKE_DISABLE_FIND_PACKAGE_OpenSSL=ON
configure shared_all ok "$no_sqlite" "$no_ssl"
configure static_json ok -DMCP_USE_STATIC_LIBS=ON -DCOMPONENTS="COMPONENTS;json" "$no_sqlite" "$no_ssl"
# The SQLite task store is a component of its own: the static core does not need SQLite.
configure static_mcp ok -DMCP_USE_STATIC_LIBS=ON -DCOMPONENTS="COMPONENTS;mcp" "$no_sqlite"
configure static_sqlite_needs_sqlite fail -DMCP_USE_STATIC_LIBS=ON -DCOMPONENTS="COMPONENTS;sqlite" "$no_sqlite"
grep -q "libsqlite3-dev" "$work/components/static_sqlite_needs_sqlite/log" || fail "no hint at libsqlite3-dev"
configure static_sqlite ok -DMCP_USE_STATIC_LIBS=ON -DCOMPONENTS="COMPONENTS;sqlite"
# libcrypto seals the 2026-07-28 input rounds: the static core needs OpenSSL too.
configure static_mcp_needs_openssl fail -DMCP_USE_STATIC_LIBS=ON -DCOMPONENTS="COMPONENTS;mcp" "$no_ssl"
grep -q "libssl-dev" "$work/components/static_mcp_needs_openssl/log" || fail "no hint at libssl-dev"
configure static_http_needs_openssl fail -DMCP_USE_STATIC_LIBS=ON -DCOMPONENTS="COMPONENTS;http" "$no_ssl"
grep -q "libssl-dev" "$work/components/static_http_needs_openssl/log" || fail "no hint at libssl-dev"
no_hiredis=-DCMAKE_DISABLE_FIND_PACKAGE_Hiredis=ON
configure shared_redis ok -DCOMPONENTS="COMPONENTS;redis" "$no_hiredis"
configure static_redis_needs_hiredis fail -DMCP_USE_STATIC_LIBS=ON -DCOMPONENTS="COMPONENTS;redis" "$no_hiredis"
grep -q "libhiredis-dev" "$work/components/static_redis_needs_hiredis/log" || fail "no hint at libhiredis-dev"
configure unknown_component fail -DCOMPONENTS="COMPONENTS;nope"
grep -q "no component 'nope'" "$work/components/unknown_component/log" || fail "unknown component not named"
step "versions: compatible within one SOVERSION ($soversion)"
configure same_soversion ok -DVERSION="$soversion"
configure newer_major fail -DVERSION=99.0
grep -q "with requested version \"99.0\"" "$work/components/newer_major/log" ||
  fail "version 99.0 refused for another reason"
step "package test passed"
