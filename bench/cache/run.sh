#!/usr/bin/env bash
# Shared-cache benchmark: two CI runners (separate checkouts, separate empty local caches) and one
# nginx WebDAV server on 127.0.0.1. For native/ and for a generated project of N C++ sources:
#   A full    runner A's first build (compiles everything, pushes every entry)
#   A no-op   runner A builds again (nothing changed): the floor
#   B clean   runner B's first build from a fresh checkout, its local cache empty (all from the remote)
# Prints a table; docs/benchmarks.md records it.
#   bench/cache/run.sh [sources=500]
# Needs: nginx (Debian's nginx-light), g++, nvcc for native/'s CUDA kernels (skipped without),
# and network-free Maven (it installs the plugin into ~/.m2 first).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
count=${1:-500}
work=$repo/bench/work/cache
# Not offline: `-o` is also the plugin's switch for "never contact the remote". -nsu: no snapshot checks.
mvn=("$repo/mvnw" -B -nsu -DskipTests)
nginx=$(command -v nginx || ls /usr/sbin/nginx)

"${mvn[@]}" -o -q -f "$repo/pom.xml" -pl maven-plugin -am -Dinvoker.skip install
rm -rf "$work"
mkdir -p "$work/server/data" "$work/server/tmp"

# The cache server, as docs/cache.md configures it (without auth: loopback only).
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
s=$work/server
cat > "$s/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
error_log $s/error.log;
pid $s/nginx.pid;
events { worker_connections 256; }
http {
  access_log $s/access.log;
  client_body_temp_path $s/tmp/body;
  proxy_temp_path $s/tmp/proxy;
  fastcgi_temp_path $s/tmp/fastcgi;
  uwsgi_temp_path $s/tmp/uwsgi;
  scgi_temp_path $s/tmp/scgi;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:$port;
    root $s/data;
    location /cache/ { dav_methods PUT; create_full_put_path on; }
  }
}
CONF
timeout 3600 "$nginx" -e "$s/error.log" -p "$s" -c "$s/nginx.conf" &
server_pid=$!
trap 'kill $server_pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
url=http://127.0.0.1:$port/cache

now() { date +%s.%N; }
# run <label> <runner> <checkout>: one mvn package, its wall time in seconds on stdout.
run() {
  local t log=$work/$1-$2.log
  t=$(now)
  (cd "$3" && "${mvn[@]}" package -Dkernel.cache.dir="$work/$1-$2-cache" -Dkernel.cache.remote.url="$url/$1" \
    >> "$log") || { echo "mvn package failed for $1 on runner $2: see $log" >&2; exit 1; }
  echo "$(now) - $t" | bc
}

# measure <label> <project folder>
measure() {
  local label=$1 project=$2
  cp -r "$project" "$work/$label-a"
  cp -r "$project" "$work/$label-b"
  rm -rf "$work/$label-a/target" "$work/$label-b/target"
  local full noop clean
  full=$(run "$label" a "$work/$label-a")
  noop=$(run "$label" a "$work/$label-a")
  clean=$(run "$label" b "$work/$label-b")
  if grep -q "Compile: [1-9][0-9]* compiled" "$work/$label-b.log"; then
    echo "runner B compiled something for $label: see $work/$label-b.log" >&2
  fi
  printf '%-26s %8.2f %8.2f %8.2f %10.2f %10.1f\n' "$label" "$full" "$noop" "$clean" \
    "$(echo "$clean - $noop" | bc)" "$(echo "scale=3; $full / $clean" | bc)"
  grep -E "^\[INFO\]   (objects|archives|cache) " "$work/$label-b.log" | sed 's/^\[INFO\]  /    B:/'
}

bash "$repo/bench/build/generate.sh" "$work/generated-src" "$count" > /dev/null
echo "$(nproc) cores; one nginx on 127.0.0.1; times are whole 'mvn package' runs (Maven start-up included)"
printf '%-26s %8s %8s %8s %10s %10s\n' project "A full" "A no-op" "B clean" "B - no-op" "full/B"
measure native "$repo/native"
measure "generated-$count" "$work/generated-src"
echo "server: $(grep -c '"PUT ' "$s/access.log") PUT, $(grep -c '"GET ' "$s/access.log") GET"
