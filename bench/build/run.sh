#!/usr/bin/env bash
# Benchmark of the compile stage against CMake+Ninja on the same 500 generated C++ sources, with
# the same flags and job count, in one run. Prints a table; docs/benchmarks.md records it.
#   bench/build/run.sh [sources=500] [jobs=2] [repeats=2]
# Needs: cmake, ninja, g++ and network-free Maven (it installs the plugin into ~/.m2 first).
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
plugin() { "${mvn[@]}" package -Dkernel.jobs="$jobs" > "$work/last-mvn.log"; }
plan_time() { grep -o 'plan [0-9.]* s' "$work/last-mvn.log" | awk '{print $2}'; }
ninja_build() { ninja -C "$work/cmake-build" -j "$jobs" > /dev/null; }
configure() { cmake -S "$work" -B "$work/cmake-build" -G Ninja > /dev/null; }
touch_header() { echo "// edit $(now)" >> "$work/src/main/include/group3.h"; }

declare -A total
add() { total[$1]=$(echo "${total[$1]:-0} + $2" | bc); }

for r in $(seq 1 "$repeats"); do
  # Full build from a clean tree; ninja's configure step is timed apart and not counted.
  rm -rf "$work/cmake-build"; configure
  t=$(now); ninja_build; add ninja_full "$(elapsed "$t")"
  rm -rf "$work/target"
  t=$(now); plugin; add mvn_full "$(elapsed "$t")"

  t=$(now); ninja_build; add ninja_noop "$(elapsed "$t")"
  t=$(now); plugin; add mvn_noop "$(elapsed "$t")"; add mvn_noop_plan "$(plan_time)"
  grep -q "Compile: 0 compiled, $count up to date" "$work/last-mvn.log"

  touch_header
  t=$(now); ninja_build; add ninja_header "$(elapsed "$t")"
  t=$(now); plugin; add mvn_header "$(elapsed "$t")"; add mvn_header_plan "$(plan_time)"
  grep -q "Compile: $((count / 10)) compiled" "$work/last-mvn.log"
done

avg() { echo "scale=3; ${total[$1]} / $repeats" | bc; }
ratio() { echo "scale=2; ${total[$1]} / ${total[$2]}" | bc; }
echo "sources=$count jobs=$jobs repeats=$repeats ($(nproc) cores, $(g++ --version | head -1))"
printf '%-34s %10s %10s %8s\n' scenario "ninja (s)" "plugin (s)" ratio
printf '%-34s %10s %10s %8s\n' "full build" "$(avg ninja_full)" "$(avg mvn_full)" "$(ratio mvn_full ninja_full)"
printf '%-34s %10s %10s %8s\n' "one header (1/10 of sources)" "$(avg ninja_header)" "$(avg mvn_header)" "$(ratio mvn_header ninja_header)"
printf '%-34s %10s %10s %8s\n' "no-op" "$(avg ninja_noop)" "$(avg mvn_noop)" "$(ratio mvn_noop ninja_noop)"
echo "plugin plan stage (hash sources and headers, decide): no-op $(avg mvn_noop_plan) s, one header $(avg mvn_header_plan) s"
echo "(plugin wall times include Maven's own start-up, about 1-2 s per invocation)"
