#!/usr/bin/env bash
# Builds the C API test against the library the plugin produced and runs it.
# Usage: run-c-tests.sh <kernel output dir (target/kernel)>
set -euo pipefail
out=$1
here=$(cd "$(dirname "$0")" && pwd)
lib="$out/libmha.so"
[ -f "$lib" ] || { echo "missing $lib: the kernel build did not run" >&2; exit 1; }

# Only the declared API (mha_*) may be exported.
leaks=$(nm -D --defined-only "$lib" | awk '{print $NF}' | grep -v '^mha_' || true)
if [ -n "$leaks" ]; then
  echo "libmha.so exports symbols outside mha_*:" >&2
  echo "$leaks" >&2
  exit 1
fi

mkdir -p "$out/test"
cc -O1 -Wall -Werror -I"$here/../main/include" -o "$out/test/test_mha" "$here/c/test_mha.c" \
  -L"$out" -lmha -Wl,-rpath,"$out" -lm
"$out/test/test_mha"
