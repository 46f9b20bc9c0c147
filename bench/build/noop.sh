#!/usr/bin/env bash
# The no-op build: a second `mvn package` of bench/build/generate.sh's tree with nothing changed,
# Maven's start-up taken out (a `mvn validate` timed just before each build, as run.sh does), for
# this checkout's plugin and, interleaved in the same sitting, for a baseline plugin installed in
# another local repository (BASELINE_REPO; without it, this plugin alone).
#   bench/build/noop.sh [sources=200] [rounds=7]
# Make a baseline: cp -a ~/.m2/repository /tmp/m2old; git worktree add /tmp/old <commit>;
#   (cd /tmp/old && ./mvnw -o -Dmaven.repo.local=/tmp/m2old -pl maven-plugin -DskipTests -Dinvoker.skip install)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
count=${1:-200}
rounds=${2:-7}
work=$repo/bench/work/noop
"$repo/mvnw" -B -o -q -f "$repo/pom.xml" -pl maven-plugin -am -DskipTests -Dinvoker.skip install
sides=(current)
[ -n "${BASELINE_REPO:-}" ] && sides+=(baseline)
now() { date +%s.%N; }
for side in "${sides[@]}"; do
  rm -rf "$work/$side"
  bash "$(dirname "$0")/generate.sh" "$work/$side" "$count" > /dev/null
done
mvn_for() {
  local side=$1; shift
  if [ "$side" = baseline ]; then "$repo/mvnw" -B -o -Dmaven.repo.local="$BASELINE_REPO" "$@"; else "$repo/mvnw" -B -o "$@"; fi
}
for side in "${sides[@]}"; do
  (cd "$work/$side" && mvn_for "$side" -q package -Dkernel.cache.enabled=false > /dev/null)
done
declare -A times
for ((r = 0; r < rounds; r++)); do
  for side in "${sides[@]}"; do
    cd "$work/$side"
    t=$(now); mvn_for "$side" -q validate > /dev/null; validate=$(echo "$(now) - $t" | bc)
    t=$(now); mvn_for "$side" package -Dkernel.cache.enabled=false > "$work/$side.log"; all=$(echo "$(now) - $t" | bc)
    times[$side]+="$(echo "$all - $validate" | bc) "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for side in "${sides[@]}"; do
  echo "$side: no-op package after Maven's start-up, median of $rounds: $(echo "${times[$side]}" | median) s (all: ${times[$side]})"
  grep -o 'time .*' "$work/$side.log" | sed "s/^/  $side /"
done
