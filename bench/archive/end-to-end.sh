#!/usr/bin/env bash
# End to end: N prebuilt objects -> archive -> private link into one library, through
# `mvn package` (cache off, clean target/), against one `llvm-ar qcD` call plus one mold link of
# the same objects, in one run. Maven's own start-up is taken out: a `mvn validate` of the same
# project is timed in the same run and subtracted. Runs interleave the three; the mean and the
# median over the runs are reported, of the wall time and of the CPU time the machine spent meanwhile
# (/proc/stat: every process, mold's forked linker and the kernel's work included; on a machine with
# few cores the CPU is the limit, and it wanders less than the wall time).
#   bench/archive/end-to-end.sh [count=5000] [small|payload=payload] [repeats=3] [-Dkernel.x=y ...]
# (anything after the third argument goes to both mvn calls, e.g. -Dkernel.batchSize=5000;
# SKIP_INSTALL=1 times the plugin already in ~/.m2 instead of installing this checkout's, and
# PLUGIN_VERSION=x times that installed version instead of 0.1.0-SNAPSHOT; BASELINE_REPO=dir also
# times, in every run, the plugin installed in that local repository, for two builds of the plugin
# compared in one sitting (its -Dmaven.repo.local comes last, over one among the arguments): see
# docs/benchmarks.md for making one. Two sittings one after the other drift apart by as much as a
# change being measured. WARM=n also runs, in every run, one `mvn package` whose build runs the goal
# n + 1 times, each into a folder of its own: the first in a JVM fresh as always, the others in a JVM
# that has loaded and compiled the plugin's code already, as a Maven daemon's would have; each of
# these is timed by the goal's own "total" line.)
set -euo pipefail
. "$(dirname "$0")/../lib/plugin-pom.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
count=${1:-5000}
kind=${2:-payload}
repeats=${3:-3}
shift $(( $# < 3 ? $# : 3 ))
work=$repo/bench/work/e2e-$kind-$count
mvn=("$repo/mvnw" -B -o)
command -v mold > /dev/null || { echo "mold is not installed (apt-get install mold)" >&2; exit 1; }

[ -n "${SKIP_INSTALL:-}" ] || "${mvn[@]}" -q -f "$repo/pom.xml" -pl maven-plugin -am -DskipTests -Dinvoker.skip install
bash "$(dirname "$0")/generate-objects.sh" "$repo/bench/work/archive/$kind-$count" "$count" "$kind"
objects=$repo/bench/work/archive/$kind-$count/obj
mkdir -p "$work"
plugin_pom "$work/pom.xml" e2e "${PLUGIN_VERSION:-0.1.0-SNAPSHOT}" "          <library>e2e</library>
          <archives><archive><name>kernels</name><objects><directory>$objects</directory></objects></archive></archives>
          <cacheEnabled>false</cacheEnabled>"

warm=${WARM:-0}
if [ "$warm" -gt 0 ]; then
  executions=""
  for k in $(seq 0 "$warm"); do
    executions+="<execution><id>run$k</id><goals><goal>build</goal></goals><configuration>"
    executions+="<outputDirectory>\${project.build.directory}/kernel-$k</outputDirectory></configuration></execution>"
  done
  mkdir -p "$work/warm"
  plugin_pom "$work/warm/pom.xml" e2e "${PLUGIN_VERSION:-0.1.0-SNAPSHOT}" "          <library>e2e</library>
          <archives><archive><name>kernels</name><objects><directory>$objects</directory></objects></archive></archives>
          <cacheEnabled>false</cacheEnabled>" "$executions"
fi

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
# CPU seconds the machine has spent since boot (user, nice, system, irq, softirq of all cores).
cpu_now() { awk '/^cpu / { printf "%.2f", ($2 + $3 + $4 + $7 + $8) / 100 }' /proc/stat; }
find "$objects" -maxdepth 1 -name "*.o" | sort > "$work/objects.txt"
: > "$work/runs.txt"  # per run: plugin seconds (package - validate), pair seconds
: > "$work/warm.txt"  # per run, with WARM: the goal's own total in a fresh JVM, then in the warm one

# Each timed step starts after the memory freed before it has settled. On a VM that hands free
# memory back to its host (Firecracker's free page reporting, as here), memory freed in the last
# two seconds is still backed and cheap to touch again, and memory freed earlier costs a host fault
# per page: the pair measured 0.52-0.58 s right after 660 MB of outputs were deleted and 0.90-1.02 s
# four seconds later. Settled, every step pays what a fresh CI machine pays.
settle() { sleep "${SETTLE_SECONDS:-4}"; }
# One clean build of the project: prints the plugin's wall and CPU seconds (package - validate).
# Arguments go to both mvn calls (the run's own, then the script's).
time_plugin() {
  rm -rf "$work/target"
  settle
  local t c validate validate_cpu package package_cpu
  t=$(now); c=$(cpu_now); "${mvn[@]}" -q -f "$work/pom.xml" "$@" validate >&2
  validate=$(since "$t"); validate_cpu=$(echo "$(cpu_now) - $c" | bc)
  settle
  t=$(now); c=$(cpu_now); "${mvn[@]}" -f "$work/pom.xml" "$@" package > "$work/last-mvn.log"
  package=$(since "$t"); package_cpu=$(echo "$(cpu_now) - $c" | bc)
  rm -rf "$work/target"
  echo "$(echo "$package - $validate" | bc) $(echo "$package_cpu - $validate_cpu" | bc)"
}
for r in $(seq 1 "$repeats"); do
  rm -rf "$work/pair"
  mkdir -p "$work/pair"
  time_plugin "$@" > "$work/last-times"
  read -r plugin plugin_cpu < "$work/last-times"
  grep -E "^\[INFO\]   (time|library)" "$work/last-mvn.log" | sed 's/^\[INFO\]  /  run '"$r"':/'
  settle
  t=$(now); c=$(cpu_now)
  llvm-ar qcD "$work/pair/libkernels.a" @"$work/objects.txt"
  c++ -shared -fuse-ld=mold -o "$work/pair/libe2e.so" -Wl,--whole-archive "$work/pair/libkernels.a" \
    -Wl,--no-whole-archive -Wl,--exclude-libs,ALL
  pair=$(since "$t"); pair_cpu=$(echo "$(cpu_now) - $c" | bc)
  baseline=""
  if [ -n "${BASELINE_REPO:-}" ]; then
    time_plugin "$@" -Dmaven.repo.local="$BASELINE_REPO" > "$work/last-times"
    read -r baseline_plugin baseline_cpu < "$work/last-times"
    grep -E "^\[INFO\]   time" "$work/last-mvn.log" | sed 's/^\[INFO\]  /  run '"$r"' (baseline plugin):/'
    baseline=" $baseline_plugin $baseline_cpu"
  fi
  if [ "$warm" -gt 0 ]; then
    rm -rf "$work/warm/target"
    settle
    "${mvn[@]}" -f "$work/warm/pom.xml" "$@" package > "$work/last-warm.log"
    rm -rf "$work/warm/target"
    totals=$(sed -n "s/.* total \([0-9.]*\) s after Maven's start-up/\1/p" "$work/last-warm.log" | tr '\n' ' ')
    [ "$(echo "$totals" | wc -w)" -eq $((warm + 1)) ] || { echo "expected $((warm + 1)) goal totals in $work/last-warm.log" >&2; exit 1; }
    echo "  run $r: goal in a fresh JVM, then in the same JVM again: $totals"
    echo "$totals" >> "$work/warm.txt"
  fi
  # Per run: the plugin's wall time, the pair's, the two CPU times; then the baseline plugin's wall
  # and CPU time, with BASELINE_REPO.
  echo "$plugin $pair $plugin_cpu $pair_cpu$baseline" >> "$work/runs.txt"
done
# The mean, and the median, which a machine whose speed wanders (shared 2-core VMs) moves less.
of_lines() {  # of_lines <mean|median>: of the numbers on standard input, one a line
  sort -n | awk -v how="$1" '{ v[NR] = $1; s += $1 }
    END { if (how == "mean") printf "%.3f", s / NR; else printf "%.3f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
summary() {  # summary <column> <mean|median>
  cut -d' ' -f"$1" "$work/runs.txt" | of_lines "$2"
}
echo "$count $kind objects ($(du -sh "$objects" | cut -f1)), $(nproc) cores, $repeats runs${*:+, mvn $*}"
printf '%-46s %10s %10s\n' "" mean median
printf '%-46s %8s s %8s s\n' "mvn package - mvn validate (plugin)" "$(summary 1 mean)" "$(summary 1 median)"
printf '%-46s %8s s %8s s\n' "llvm-ar qcD + mold link (baseline pair)" "$(summary 2 mean)" "$(summary 2 median)"
printf '%-46s %10s %10s\n' "ratio plugin / pair" "$(echo "scale=2; $(summary 1 mean) / $(summary 2 mean)" | bc)" \
  "$(echo "scale=2; $(summary 1 median) / $(summary 2 median)" | bc)"
printf '%-46s %8s s %8s s\n' "CPU: mvn package - mvn validate (plugin)" "$(summary 3 mean)" "$(summary 3 median)"
printf '%-46s %8s s %8s s\n' "CPU: llvm-ar qcD + mold link (baseline pair)" "$(summary 4 mean)" "$(summary 4 median)"
printf '%-46s %10s %10s\n' "CPU ratio plugin / pair" "$(echo "scale=2; $(summary 3 mean) / $(summary 4 mean)" | bc)" \
  "$(echo "scale=2; $(summary 3 median) / $(summary 4 median)" | bc)"
if [ "$warm" -gt 0 ]; then
  # Medians of the goal's own totals: the first execution of each run, and every later one.
  fresh=$(cut -d' ' -f1 "$work/warm.txt" | of_lines median)
  again=$(cut -d' ' -f2- "$work/warm.txt" | tr ' ' '\n' | grep . | of_lines median)
  printf '%-46s %10s %10s\n' "" "" median
  printf '%-46s %10s %8s s\n' "goal total, fresh JVM (first execution)" "" "$fresh"
  printf '%-46s %10s %8s s\n' "goal total, same JVM again (executions 2..$((warm + 1)))" "" "$again"
  printf '%-46s %10s %10s\n' "ratio goal / pair, fresh JVM" "" "$(echo "scale=2; $fresh / $(summary 2 median)" | bc)"
  printf '%-46s %10s %10s\n' "ratio goal / pair, same JVM again" "" "$(echo "scale=2; $again / $(summary 2 median)" | bc)"
fi
if [ -n "${BASELINE_REPO:-}" ]; then
  printf '%-46s %8s s %8s s\n' "baseline plugin (from BASELINE_REPO)" "$(summary 5 mean)" "$(summary 5 median)"
  printf '%-46s %10s %10s\n' "ratio baseline plugin / pair" "$(echo "scale=2; $(summary 5 mean) / $(summary 2 mean)" | bc)" \
    "$(echo "scale=2; $(summary 5 median) / $(summary 2 median)" | bc)"
  printf '%-46s %8s s %8s s\n' "CPU: baseline plugin" "$(summary 6 mean)" "$(summary 6 median)"
fi
