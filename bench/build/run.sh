#!/usr/bin/env bash
# Benchmark of the compile stage against CMake+Ninja on the same generated C++ sources, with the
# same flags and job count, in one run. Like with like: the cold rows run the plugin with its cache
# off (Ninja has none); the warm-cache row gives both a cache warmed by an earlier build of the same
# tree (the plugin's own, Ninja through ccache as its launcher) and builds from a clean output
# folder; and Maven's start-up (a `mvn validate` of the same project, timed before each plugin
# build) is taken out of every plugin figure, as bench/archive/end-to-end.sh does.
#   bench/build/run.sh [sources=500] [jobs=2] [repeats=2]
# Needs: cmake, ninja, ccache, g++ and network-free Maven (it installs the plugin into ~/.m2 first).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
count=${1:-500}
jobs=${2:-2}
repeats=${3:-2}
work=$repo/bench/work/build
mvn=("$repo/mvnw" -B -o)

"${mvn[@]}" -q -f "$repo/pom.xml" -pl maven-plugin -am -DskipTests -Dinvoker.skip install
bash "$(dirname "$0")/generate.sh" "$work" "$count"
cd "$work"

now() { date +%s.%N; }
elapsed() { echo "$(now) - $1" | bc; }
# One plugin build, Maven's start-up taken out; prints the seconds. Extra arguments go to Maven.
plugin() {
  local t validate
  t=$(now); "${mvn[@]}" -q validate "$@" > /dev/null; validate=$(elapsed "$t")
  t=$(now); "${mvn[@]}" package -Dkernel.jobs="$jobs" "$@" > "$work/last-mvn.log"
  echo "$(elapsed "$t") - $validate" | bc
}
cold=(-Dkernel.cache.enabled=false)
warm=(-Dkernel.cache.enabled=true -Dkernel.cache.dir="$work/kernel-cache")
plan_time() { grep -o 'plan [0-9.]* s' "$work/last-mvn.log" | awk '{print $2}'; }
ninja_build() { ninja -C "$1" -j "$jobs" > /dev/null; }
configure() { rm -rf "$1"; cmake -S "$work" -B "$1" -G Ninja "${@:2}" > /dev/null; }
touch_header() { echo "// edit $(now)" >> "$work/src/main/include/group3.h"; }
export CCACHE_DIR=$work/ccache

declare -A total
add() { total[$1]=$(echo "${total[$1]:-0} + $2" | bc); }

for r in $(seq 1 "$repeats"); do
  # Cold: a full build from a clean tree, no cache on either side (ninja's configure not counted).
  configure "$work/cmake-build"
  t=$(now); ninja_build "$work/cmake-build"; add ninja_full "$(elapsed "$t")"
  rm -rf "$work/target"
  add mvn_full "$(plugin "${cold[@]}")"

  t=$(now); ninja_build "$work/cmake-build"; add ninja_noop "$(elapsed "$t")"
  add mvn_noop "$(plugin "${cold[@]}")"; add mvn_noop_plan "$(plan_time)"
  grep -q "Compile: 0 compiled, $count up to date" "$work/last-mvn.log"

  touch_header
  t=$(now); ninja_build "$work/cmake-build"; add ninja_header "$(elapsed "$t")"
  add mvn_header "$(plugin "${cold[@]}")"; add mvn_header_plan "$(plan_time)"
  grep -q "Compile: $((count / 10)) compiled" "$work/last-mvn.log"

  # Warm: each side's cache filled by a build of this very tree, then a full build from a clean
  # output folder (a fresh CI checkout on a machine that kept its cache).
  rm -rf "$CCACHE_DIR" "$work/kernel-cache"
  configure "$work/ccache-build" -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
  ninja_build "$work/ccache-build"
  configure "$work/ccache-build" -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
  t=$(now); ninja_build "$work/ccache-build"; add ninja_warm "$(elapsed "$t")"
  rm -rf "$work/target"; plugin "${warm[@]}" > /dev/null
  rm -rf "$work/target"
  add mvn_warm "$(plugin "${warm[@]}")"
  grep -q "Compile: 0 compiled" "$work/last-mvn.log"
done

avg() { echo "scale=3; ${total[$1]} / $repeats" | bc; }
ratio() { echo "scale=2; ${total[$1]} / ${total[$2]}" | bc; }
echo "sources=$count jobs=$jobs repeats=$repeats ($(nproc) cores, $(g++ --version | head -1))"
echo "plugin figures: mvn package minus mvn validate (Maven's start-up out)"
printf '%-52s %10s %10s %8s\n' scenario "ninja (s)" "plugin (s)" ratio
printf '%-52s %10s %10s %8s\n' "full build, no cache on either side" "$(avg ninja_full)" "$(avg mvn_full)" "$(ratio mvn_full ninja_full)"
printf '%-52s %10s %10s %8s\n' "one header (1/10 of sources), no cache" "$(avg ninja_header)" "$(avg mvn_header)" "$(ratio mvn_header ninja_header)"
printf '%-52s %10s %10s %8s\n' "no-op" "$(avg ninja_noop)" "$(avg mvn_noop)" "$(ratio mvn_noop ninja_noop)"
printf '%-52s %10s %10s %8s\n' "clean output, warm cache (ninja: ccache; plugin: own)" "$(avg ninja_warm)" "$(avg mvn_warm)" "$(ratio mvn_warm ninja_warm)"
echo "plugin plan stage (hash sources and headers, decide): no-op $(avg mvn_noop_plan) s, one header $(avg mvn_header_plan) s"
