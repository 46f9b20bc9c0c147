#!/usr/bin/env bash
# Source scan benchmark: <count> generated sources (10,000 by default) scanned by the plugin's
# SourceScanner; prints the first (cold) scan and the median of the rest, in three fresh JVMs.
#   bench/scan/run.sh [count=10000] [repeats=11]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
count=${1:-10000}
repeats=${2:-11}
work=$repo/bench/work/scan-$count
# Not offline: on a fresh machine the dependency plugin may still have to be downloaded.
mkdir -p "$repo/bench/work"
"$repo/mvnw" -B -q -f "$repo/pom.xml" -pl maven-plugin -DskipTests -Dinvoker.skip compile \
  dependency:build-classpath -Dmdep.outputFile="$repo/bench/work/plugin.classpath" -Dmdep.includeScope=runtime
mkdir -p "$work"
classpath="$repo/maven-plugin/target/classes:$(cat "$repo/bench/work/plugin.classpath")"
echo "$(nproc) cores; $(java -version 2>&1 | head -1)"
for run in 1 2 3; do
  java -cp "$classpath" "$(dirname "$0")/ScanBench.java" "$work" "$count" "$repeats"
done
