#!/usr/bin/env bash
# Slurm benchmark: the same generated project built locally (kernel.jobs=2) and through srun on a
# Slurm cluster of three one-CPU nodes (kernel.cluster.launcher=srun), in one run. The cluster is
# made here from Debian's packages as SlurmClusterTest makes it: munged and slurmctld on this
# machine, one slurmd per node in its own network namespace (own host name, this file system).
# The nodes share this machine's two cores, so the figures show the cluster's overhead, not its
# speed-up; docs/scale-out.md turns them into a model of a real cluster. Sources are CUDA
# (12 kernels for 80;90a) where nvcc is installed, else C++. Where nvcc is, one multi-arch compile
# is also timed with --threads 2 against one thread. Needs root, iproute2, slurm-wlm and munge;
# otherwise it says so and exits.
#   bench/slurm/run.sh [sources=12] [repeats=1]
set -euo pipefail
. "$(dirname "$0")/../lib/plugin-pom.sh"
. "$(dirname "$0")/../lib/namespaces.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
count=${1:-12}
repeats=${2:-1}
work=$repo/bench/work/slurm-$count
mvn=("$repo/mvnw" -B -o)
for tool in ip srun sinfo slurmctld slurmd munged nsenter; do
  command -v "$tool" > /dev/null || {
    echo "bench/slurm: $tool is not installed (apt-get install slurm-wlm munge iproute2); skipped"; exit 0; }
done
if [ "$(id -u)" -ne 0 ] || ! ip netns add kasbench-probe 2> /dev/null; then
  echo "bench/slurm: network namespaces cannot be made here (needs root); skipped"; exit 0
fi
ip netns delete kasbench-probe

"${mvn[@]}" -q -f "$repo/pom.xml" -pl maven-plugin -am -DskipTests -Dinvoker.skip install

nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2> /dev/null || true)
rm -rf "$work"; mkdir -p "$work/kernels" "$work/src/main/native"
if [ -n "$nvcc" ]; then
  kind=CUDA
  for i in $(seq 0 $((count - 1))); do
    cat > "$work/kernels/k$i.cu" <<CU
// Some device code per source: a templated reduction instantiated for a few block sizes.
template <int B> __global__ void reduce_$i(const float *x, float *out, int n) {
  __shared__ float s[B];
  float v = 0;
  for (int k = blockIdx.x * B + threadIdx.x; k < n; k += gridDim.x * B) v += x[k] * $((i + 1)).0f;
  s[threadIdx.x] = v;
  __syncthreads();
  for (int w = B / 2; w > 0; w /= 2) { if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w]; __syncthreads(); }
  if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
extern "C" void launch_$i(const float *x, float *out, int n, int b) {
  if (b == 128) reduce_$i<128><<<64, 128>>>(x, out, n);
  else if (b == 256) reduce_$i<256><<<64, 256>>>(x, out, n);
  else reduce_$i<512><<<64, 512>>>(x, out, n);
}
CU
  done
  arch="<cuda><archs>80;90a</archs></cuda>"
else
  kind=C++
  cxx_kernels "$work/kernels" "$count"
  arch=""
fi
echo 'int slurm_api(int n) { return n; }' > "$work/src/main/native/api.c"
plugin_pom "$work/pom.xml" slurm-bench 0.1.0-SNAPSHOT "          <library>slurmbench</library>
          <cacheEnabled>false</cacheEnabled>
          <cxxFlags><flag>-O2</flag></cxxFlags>
          $arch
          <exports><export>slurm_api</export></exports>
          <archives><archive><name>kernels</name><sources><directory>kernels</directory></sources></archive></archives>"

# The cluster: 10.79.0.1 here (slurmctld), nodes n1-n3 at 10.79.0.11-13, one CPU each.
prefix=kas$$
state=$(mktemp -d /tmp/kernel-archive-slurm-bench.XXXXXX)
cleanup() {
  [ -f "$state/run/slurmctld.pid" ] && kill -9 "$(cat "$state/run/slurmctld.pid")" 2> /dev/null || true
  ns_cleanup "$prefix" 3
  [ -f "$state/run/munged.pid" ] && kill -9 "$(cat "$state/run/munged.pid")" 2> /dev/null || true
  rm -rf "$state"
}
trap cleanup EXIT
mkdir -p "$state/run" "$state/spool" "$state/save"; chmod 755 "$state/run"
head -c 1024 /dev/urandom > "$state/munge.key"; chmod 400 "$state/munge.key"
munged --force -S "$state/run/munge.socket" --key-file="$state/munge.key" --log-file="$state/munged.log" \
  --pid-file="$state/run/munged.pid" --seed-file="$state/save/munged.seed"
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])'; }
cat > "$state/slurm.conf" <<CONF
ClusterName=kabench
SlurmctldHost=$(hostname)(10.79.0.1)
SlurmctldPort=$(port)
SlurmdPort=$(port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$state/run/munge.socket
StateSaveLocation=$state/save
SlurmdSpoolDir=$state/spool/%n
SlurmctldPidFile=$state/run/slurmctld.pid
SlurmdPidFile=$state/run/slurmd-%n.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
NodeName=n[1-3] NodeAddr=10.79.0.[11-13] CPUs=1 State=UNKNOWN
PartitionName=build Nodes=n[1-3] Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$state/slurm.conf
ns_hosts "$prefix" 10.79.0 3
slurmctld -f "$SLURM_CONF"
for n in 1 2 3; do
  mkdir -p "$state/spool/n$n"
  # nsenter, not ip netns exec: that remounts /sys, and slurmd then stops for want of a cgroup file system.
  nsenter --net="/run/netns/${prefix}n$n" unshare --uts sh -c "hostname n$n && exec slurmd -N n$n -f $SLURM_CONF"
done
for i in $(seq 1 150); do [ "$(sinfo --noheader --responding -o %C)" = "0/3/0/3" ] && break; sleep 0.2; done
sinfo --noheader --responding -o %C | grep -qx "0/3/0/3" || { echo "bench/slurm: the cluster did not come up" >&2; exit 1; }

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
declare -A total
add() { total[$1]=$(echo "${total[$1]:-0} + $2" | bc); }
cd "$work"
for r in $(seq 1 "$repeats"); do
  rm -rf target
  t=$(now); "${mvn[@]}" package -Dkernel.jobs=2 > last-local.log; add local "$(since "$t")"
  cp target/kernel/libkernels.a /tmp/kas-local.a
  rm -rf target
  t=$(now); "${mvn[@]}" package -Dkernel.cluster.launcher=srun > last-slurm.log; add slurm "$(since "$t")"
  grep -q "Compile: $((count + 1)) compiled" last-slurm.log
  cmp -s /tmp/kas-local.a target/kernel/libkernels.a || { echo "bench/slurm: the archives differ" >&2; exit 1; }
done
rm -f /tmp/kas-local.a
avg() { echo "scale=2; ${total[$1]} / $repeats" | bc; }
# The model's inputs: one source's compile time here, and what one srun costs on its own.
if [ "$kind" = CUDA ]; then
  one=( "$nvcc" -c -O2 -Xcompiler -fPIC -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a
    -o /tmp/kas-k1.o kernels/k1.cu )
else
  one=( g++ -O2 -fPIC -c kernels/k1.cpp -o /tmp/kas-k1.o )
fi
ran=(); for n in 1 2 3; do ran+=("$(grep -c 'launch task StepId=' "$state/slurmd-n$n.log" || true)"); done
t=$(now); "${one[@]}"; compile=$(since "$t")
t=$(now); for i in $(seq 1 10); do srun --quiet true; done; srun_each=$(echo "scale=3; $(since "$t") / 10" | bc)
echo "$count $kind sources (+1 host source), $(nproc) cores, mean of $repeats; Slurm nodes n1-n3 (1 CPU each)"
printf '%-52s %8s\n' "local, kernel.jobs=2 (mvn package)" "$(avg local) s"
printf '%-52s %8s\n' "srun on 3 namespace nodes ($(grep -o 'Jobs: [0-9]*' last-slurm.log))" "$(avg slurm) s"
printf '%-52s %8s\n' "ratio slurm / local" "$(echo "scale=2; ${total[slurm]} / ${total[local]}" | bc)"
echo "compiles per node (n1 n2 n3): ${ran[*]}"
echo "per source: compile ${compile} s here; one srun of true: ${srun_each} s; archives byte-identical"
if [ "$kind" = CUDA ]; then
  threads() { local t; t=$(now); "${one[@]:0:1}" --threads "$1" "${one[@]:1}"; since "$t"; }
  t1=0; t2=0
  for i in 1 2 3; do t1=$(echo "$t1 + $(threads 1)" | bc); t2=$(echo "$t2 + $(threads 2)" | bc); done
  echo "one source for 80;90a: nvcc --threads 1 $(echo "scale=2; $t1 / 3" | bc) s, --threads 2 $(echo "scale=2; $t2 / 3" | bc) s (mean of 3)"
fi
rm -f /tmp/kas-k1.o
