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
for i in $(seq 0 $((count - 1))); do
  cat > "$work/kernels/k$i.cpp" <<CPP
#include <algorithm>
#include <map>
#include <string>
#include <vector>
extern "C" int kernel_$i(int n) {
  std::map<std::string, std::vector<int>> table;
  for (int k = 0; k < n; k++) table[std::to_string(k % 7)].push_back(k * $i);
  int s = 0;
  for (auto &entry : table) { std::sort(entry.second.begin(), entry.second.end()); s += entry.second.back(); }
  return s;
}
CPP
done
echo 'extern "C" int kernel_0(int); extern "C" int farm_api(int n) { return kernel_0(n); }' > "$work/src/main/native/api.cpp"
plugin_pom "$work/pom.xml" farm 0.1.0-SNAPSHOT "          <library>farm</library>
          <cacheEnabled>false</cacheEnabled>
          <cxxFlags><flag>-O2</flag></cxxFlags>
          <exports><export>farm_api</export></exports>
          <archives><archive><name>kernels</name><sources><directory>kernels</directory></sources></archive></archives>"

# Three hosts on a bridge, 10.77.0.11-13, each with distccd (4 slots).
prefix=kab$$
logs=$(mktemp -d /tmp/kernel-archive-farm-bench.XXXXXX); chmod 777 "$logs"
cleanup() {
  for n in 1 2 3; do
    ip netns pids "${prefix}n$n" 2> /dev/null | xargs -r kill -9
    ip link delete "${prefix}h$n" 2> /dev/null || true
    ip netns delete "${prefix}n$n" 2> /dev/null || true
  done
  ip link delete "${prefix}br" 2> /dev/null || true
  rm -rf "$logs"
}
trap cleanup EXIT
ip link add "${prefix}br" type bridge; ip addr add 10.77.0.1/24 dev "${prefix}br"; ip link set "${prefix}br" up
hosts=()
for n in 1 2 3; do
  ns=${prefix}n$n
  ip netns add "$ns"
  ip link add "${prefix}h$n" type veth peer name "${prefix}p$n"
  ip link set "${prefix}h$n" master "${prefix}br"; ip link set "${prefix}h$n" up
  ip link set "${prefix}p$n" netns "$ns"
  ip netns exec "$ns" ip addr add "10.77.0.1$n/24" dev "${prefix}p$n"
  ip netns exec "$ns" ip link set "${prefix}p$n" up; ip netns exec "$ns" ip link set lo up
  ip netns exec "$ns" distccd --daemon --allow 10.77.0.0/24 --listen "10.77.0.1$n" --jobs 4 --log-level info \
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
