#!/usr/bin/env bash
# Generates the archive benchmark's inputs with gcc: <count> objects, each defining one function,
# optionally with a 64 KiB constant payload (a kernel's embedded code and tables).
# Usage: generate-objects.sh <dir> <count> small|payload
set -euo pipefail
dir=$1 count=$2 kind=$3
if [ -f "$dir/.complete" ]; then exit 0; fi
rm -rf "$dir"; mkdir -p "$dir/src"
for i in $(seq 0 $((count - 1))); do
  f="$dir/src/k$(printf %05d "$i").c"
  if [ "$kind" = payload ]; then
    printf 'const unsigned char payload_%d[65536] = { [0] = 1, [65535] = %d };\nint kernel_%d(void) { return payload_%d[%d %% 65536]; }\n' "$i" $((i % 251)) "$i" "$i" "$i" > "$f"
  else
    printf 'int kernel_%d(void) { return %d; }\n' "$i" "$i" > "$f"
  fi
done
mkdir -p "$dir/obj"
(cd "$dir/src" && ls | xargs -P "$(nproc)" -n 50 sh -c 'for f; do cc -c -O1 -fPIC -o ../obj/"${f%.c}".o "$f"; done' sh)
touch "$dir/.complete"
