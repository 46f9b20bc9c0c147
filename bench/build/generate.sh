#!/usr/bin/env bash
# Generates the benchmark project: N C++ sources (default 500) in 10 folders, one header per
# folder plus one shared header, a pom that uses the plugin and a CMakeLists.txt that compiles the
# same sources with the same flags into the same kind of library.
# Usage: generate.sh <dir> [count] [plugin version]
set -euo pipefail
. "$(dirname "$0")/../lib/plugin-pom.sh"
dir=$1
count=${2:-500}
version=${3:-0.1.0-SNAPSHOT}
rm -rf "$dir"
mkdir -p "$dir/src/main/include" "$dir/src/main/native"

cat > "$dir/src/main/include/config.h" <<'H'
#pragma once
#define BENCH_SCALE 3
H
for g in $(seq 0 9); do
  mkdir -p "$dir/src/main/native/g$g"
  cat > "$dir/src/main/include/group$g.h" <<H
#pragma once
#include "config.h"
#define GROUP_OFFSET_$g ($g * BENCH_SCALE)
H
done

for i in $(seq 0 $((count - 1))); do
  g=$((i % 10))
  cat > "$dir/src/main/native/g$g/k$i.cpp" <<C
// Generated kernel-like translation unit $i: templates and containers, like real host glue.
#include "group$g.h"
#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace bench$i {
template <typename T, int N>
struct Tile {
  T data[N];
  T sum() const { return std::accumulate(data, data + N, T(0)); }
};

template <typename T>
T reduce(const std::vector<T> &v) {
  std::vector<T> sorted(v);
  std::sort(sorted.begin(), sorted.end());
  std::map<std::string, T> named;
  for (size_t i = 0; i < sorted.size(); ++i) named["k" + std::to_string(i)] = sorted[i];
  T total = 0;
  for (const auto &kv : named) total += kv.second;
  return total;
}
}  // namespace bench$i

extern "C" __attribute__((visibility("default"))) double bench_kernel_$i(int n) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = (i * 7 + $i) % 13;
  bench$i::Tile<float, 16> t{};
  bench$i::Tile<double, 8> d{};
  return bench$i::reduce(v) + bench$i::reduce(std::vector<float>(v.begin(), v.end())) + t.sum() + d.sum() + GROUP_OFFSET_$g;
}
C
done

plugin_pom "$dir/pom.xml" bench-build "$version" "          <library>bench</library>
          <includeDirectories><includeDirectory>src/main/include</includeDirectory></includeDirectories>
          <defines><define>MODE=1</define></defines>
          <cxxFlags><flag>-O2</flag></cxxFlags>"

# The same compile flags the plugin uses: -fPIC -fvisibility=hidden -ffile-prefix-map, -O2, -I, -D.
cat > "$dir/CMakeLists.txt" <<M
cmake_minimum_required(VERSION 3.20)
project(bench CXX)
file(GLOB_RECURSE SOURCES CONFIGURE_DEPENDS \${CMAKE_SOURCE_DIR}/src/main/native/*.cpp)
add_library(bench SHARED \${SOURCES})
target_include_directories(bench PRIVATE \${CMAKE_SOURCE_DIR}/src/main/include)
target_compile_definitions(bench PRIVATE MODE=1)
target_compile_options(bench PRIVATE -fvisibility=hidden -ffile-prefix-map=\${CMAKE_SOURCE_DIR}=. -O2)
set_target_properties(bench PROPERTIES POSITION_INDEPENDENT_CODE ON)
M
echo "generated $count sources in $dir"
