# Sourced by the bench scripts that need hosts on this machine: network namespaces joined by veth
# pairs to a bridge, as the tests make them (FarmHosts). The bridge is <net>.1, host n is <net>.1n.
#   ns_hosts <prefix> <net, e.g. 10.77.0> <count>     makes them (names <prefix>br, <prefix>n1, ...)
#   ns_cleanup <prefix> <count>                      kills every process in them and removes them
ns_hosts() {
  local prefix=$1 net=$2 count=$3 n ns
  ip link add "${prefix}br" type bridge; ip addr add "$net.1/24" dev "${prefix}br"; ip link set "${prefix}br" up
  for n in $(seq 1 "$count"); do
    ns=${prefix}n$n
    ip netns add "$ns"
    ip link add "${prefix}h$n" type veth peer name "${prefix}p$n"
    ip link set "${prefix}h$n" master "${prefix}br"; ip link set "${prefix}h$n" up
    ip link set "${prefix}p$n" netns "$ns"
    ip netns exec "$ns" ip addr add "$net.1$n/24" dev "${prefix}p$n"
    ip netns exec "$ns" ip link set "${prefix}p$n" up; ip netns exec "$ns" ip link set lo up
  done
}

ns_cleanup() {
  local prefix=$1 count=$2 n
  for n in $(seq 1 "$count"); do
    ip netns pids "${prefix}n$n" 2> /dev/null | xargs -r kill -9
    ip link delete "${prefix}h$n" 2> /dev/null || true
    ip netns delete "${prefix}n$n" 2> /dev/null || true
  done
  ip link delete "${prefix}br" 2> /dev/null || true
}

# C++ sources of some weight (standard containers, -O2): <folder>/k<i>.cpp for i in 0..count-1.
#   cxx_kernels <folder> <count>
cxx_kernels() {
  local i
  for i in $(seq 0 $(($2 - 1))); do
    cat > "$1/k$i.cpp" <<CPP
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
}
