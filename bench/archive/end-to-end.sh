#!/usr/bin/env bash
# End to end: N prebuilt objects -> archive -> private link into one library, through
# `mvn package` (cache off, clean target/), against one `llvm-ar qcD` call plus one mold link of
# the same objects, in one run. Maven's own start-up is taken out: a `mvn validate` of the same
# project is timed in the same run and subtracted.
#   bench/archive/end-to-end.sh [count=5000] [small|payload=payload] [repeats=3]
set -euo pipefail
. "$(dirname "$0")/../lib/plugin-pom.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
count=${1:-5000}
kind=${2:-payload}
repeats=${3:-3}
work=$repo/bench/work/e2e-$kind-$count
mvn=("$repo/mvnw" -B -o)
command -v mold > /dev/null || { echo "mold is not installed (apt-get install mold)" >&2; exit 1; }

"${mvn[@]}" -q -f "$repo/pom.xml" -pl maven-plugin -am -DskipTests -Dinvoker.skip install
bash "$(dirname "$0")/generate-objects.sh" "$repo/bench/work/archive/$kind-$count" "$count" "$kind"
objects=$repo/bench/work/archive/$kind-$count/obj
mkdir -p "$work"
plugin_pom "$work/pom.xml" e2e 0.1.0-SNAPSHOT "          <library>e2e</library>
          <archives><archive><name>kernels</name><objects><directory>$objects</directory></objects></archive></archives>
          <cacheEnabled>false</cacheEnabled>"

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
declare -A total
add() { total[$1]=$(echo "${total[$1]:-0} + $2" | bc); }
find "$objects" -maxdepth 1 -name "*.o" | sort > "$work/objects.txt"

for r in $(seq 1 "$repeats"); do
  rm -rf "$work/target" "$work/pair"
  mkdir -p "$work/pair"
  t=$(now); "${mvn[@]}" -q -f "$work/pom.xml" validate; add validate "$(since "$t")"
  t=$(now); "${mvn[@]}" -f "$work/pom.xml" package > "$work/last-mvn.log"; add package "$(since "$t")"
  t=$(now)
  llvm-ar qcD "$work/pair/libkernels.a" @"$work/objects.txt"
  c++ -shared -fuse-ld=mold -o "$work/pair/libe2e.so" -Wl,--whole-archive "$work/pair/libkernels.a" \
    -Wl,--no-whole-archive -Wl,--exclude-libs,ALL
  add pair "$(since "$t")"
  grep -E "^\[INFO\]   (time|library)" "$work/last-mvn.log" | sed 's/^\[INFO\]  /  run '"$r"':/'
done
avg() { echo "scale=3; ${total[$1]} / $repeats" | bc; }
plugin=$(echo "scale=3; (${total[package]} - ${total[validate]}) / $repeats" | bc)
echo "$count $kind objects ($(du -sh "$objects" | cut -f1)), $(nproc) cores, mean of $repeats"
printf '%-46s %8s\n' "mvn package - mvn validate (plugin)" "$plugin s"
printf '%-46s %8s\n' "llvm-ar qcD + mold link (baseline pair)" "$(avg pair) s"
printf '%-46s %8s\n' "ratio plugin / pair" "$(echo "scale=2; $plugin / $(avg pair)" | bc)"
