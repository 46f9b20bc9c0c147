#!/usr/bin/env bash
# Compile-farm benchmark: the same generated C++ project built locally (kernel.jobs=2) and through
# distcc on three farm hosts (kernel.jobs=12), in one run. The hosts are distccd daemons in network
# namespaces on this machine, joined by a bridge (as the tests make them), so they share this
# machine's cores: the figures show the farm's overhead, not its speed-up; docs/scale-out.md
# turns them into a model of a real farm. Needs root, iproute2 and distcc; otherwise it says so
# and exits.
#   bench/farm/run.sh [sources=200] [repeats=1]
set -euo pipefail
. "$(dirname "$0")/../lib/plugin-pom.sh"
. "$(dirname "$0")/../lib/namespaces.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
count=${1:-200}
repeats=${2:-1}
work=$repo/bench/work/farm-$count
mvn=("$repo/mvnw" -B -o)
for tool in ip distcc distccd; do
  command -v "$tool" > /dev/null || { echo "bench/farm: $tool is not installed (apt-get install distcc iproute2); skipped"; exit 0; }
done
if [ "$(id -u)" -ne 0 ] || ! ip netns add kabench-probe 2> /dev/null; then
  echo "bench/farm: network namespaces cannot be made here (needs root); skipped"; exit 0
fi
ip netns delete kabench-probe

"${mvn[@]}" -q -f "$repo/pom.xml" -pl maven-plugin -am -DskipTests -Dinvoker.skip install

# The project: <count> C++ sources of some weight (standard containers, -O2) in one archive.
rm -rf "$work"; mkdir -p "$work/kernels" "$work/src/main/native"
cxx_kernels "$work/kernels" "$count"
echo 'extern "C" int kernel_0(int); extern "C" int farm_api(int n) { return kernel_0(n); }' > "$work/src/main/native/api.cpp"
plugin_pom "$work/pom.xml" farm 0.1.0-SNAPSHOT "          <library>farm</library>
          <cacheEnabled>false</cacheEnabled>
          <cxxFlags><flag>-O2</flag></cxxFlags>
          <exports><export>farm_api</export></exports>
          <archives><archive><name>kernels</name><sources><directory>kernels</directory></sources></archive></archives>"

# Three hosts on a bridge, 10.77.0.11-13, each with distccd (4 slots).
prefix=kab$$
logs=$(mktemp -d /tmp/kernel-archive-farm-bench.XXXXXX); chmod 777 "$logs"
cleanup() { ns_cleanup "$prefix" 3; rm -rf "$logs"; }
trap cleanup EXIT
ns_hosts "$prefix" 10.77.0 3
hosts=()
for n in 1 2 3; do
  ip netns exec "${prefix}n$n" distccd --daemon --allow 10.77.0.0/24 --listen "10.77.0.1$n" --jobs 4 --log-level info \
    --log-file "$logs/host$n.log"
  hosts+=("10.77.0.1$n/4")
done
mkdir -p "$logs/state"
sleep 1

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
declare -A total
add() { total[$1]=$(echo "${total[$1]:-0} + $2" | bc); }
cd "$work"
for r in $(seq 1 "$repeats"); do
  rm -rf target
  t=$(now); "${mvn[@]}" package -Dkernel.jobs=2 > last-local.log; add local "$(since "$t")"
  rm -rf target
  t=$(now)
  DISTCC_HOSTS="${hosts[*]}" DISTCC_DIR="$logs/state" "${mvn[@]}" package -Dkernel.launcher=distcc -Dkernel.jobs=12 \
    > last-farm.log
  add farm "$(since "$t")"
  grep -q "Compile: $((count + 1)) compiled" last-farm.log
done
avg() { echo "scale=2; ${total[$1]} / $repeats" | bc; }
# The model's inputs: compile CPU per source, and what distcc sends per source (its preprocessed text).
cpu=$( { /usr/bin/time -f "%U %S" g++ -O2 -fPIC -c kernels/k1.cpp -o /tmp/kab-k1.o; } 2>&1 | awk '{print $1 + $2}')
pre=$(g++ -O2 -E kernels/k1.cpp | wc -c)
obj=$(stat -c %s /tmp/kab-k1.o); rm -f /tmp/kab-k1.o
echo "$count C++ sources (+1 host source), $(nproc) cores, mean of $repeats; distcc hosts: ${hosts[*]}"
printf '%-48s %8s\n' "local, kernel.jobs=2 (mvn package)" "$(avg local) s"
printf '%-48s %8s\n' "distcc on 3 namespace hosts, kernel.jobs=12" "$(avg farm) s"
printf '%-48s %8s\n' "ratio farm / local" "$(echo "scale=2; ${total[farm]} / ${total[local]}" | bc)"
for n in 1 2 3; do echo "host $n compiled $(grep -c COMPILE_OK "$logs/host$n.log" || true) sources"; done
echo "per source: compile CPU ${cpu} s, preprocessed text ${pre} bytes sent, object ${obj} bytes back"
