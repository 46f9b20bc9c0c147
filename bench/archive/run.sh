#!/usr/bin/env bash
# Archive-stage benchmark: 5,000 gcc objects (small, and with a 64 KiB payload each), the
# plugin's archive stage at batch sizes 50/400/5000 (llvm-ar and GNU ar) against one llvm-ar call,
# one GNU ar call, batched GNU appends + ranlib, and cat, in one run. Prints Markdown tables.
#   bench/archive/run.sh [count=5000] [repeats=3]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
count=${1:-5000}
repeats=${2:-3}
work=$repo/bench/work/archive
# Not offline: on a fresh machine the dependency plugin may still have to be downloaded.
mkdir -p "$repo/bench/work"
"$repo/mvnw" -B -q -f "$repo/pom.xml" -pl maven-plugin -DskipTests -Dinvoker.skip compile \
  dependency:build-classpath -Dmdep.outputFile="$repo/bench/work/plugin.classpath" -Dmdep.includeScope=runtime
classpath="$repo/maven-plugin/target/classes:$(cat "$repo/bench/work/plugin.classpath")"
bash "$(dirname "$0")/generate-objects.sh" "$work/small-$count" "$count" small
bash "$(dirname "$0")/generate-objects.sh" "$work/payload-$count" "$count" payload
echo "$(nproc) cores; $(llvm-ar --version | grep -i version | head -1); $(ar --version | head -1)"
for kind in small payload; do
  java -Drepeats="$repeats" -cp "$classpath" "$(dirname "$0")/ArchiveBench.java" \
    "$work/$kind-$count/obj" "$work/run-$kind" "$kind objects"
done
