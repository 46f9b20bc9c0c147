#!/usr/bin/env bash
# Checks the library the plugin produced and runs the C API tests against it.
# Usage: run-c-tests.sh <kernel output dir (target/kernel)>
set -euo pipefail
out=$1
here=$(cd "$(dirname "$0")" && pwd)
main="$here/../main"
lib="$out/libmha.so"
[ -f "$lib" ] || { echo "missing $lib: the kernel build did not run" >&2; exit 1; }

# The checked-in kernel instances are exactly what the generator writes.
"$main/kernels/generate-instances.sh" --check

# Only the declared API (mha_*) may be exported: each carries the library's version node
# (mha_fwd@@MHA_...); the absolute symbol naming that node (type A, from ld.bfd) is no export.
leaks=$(nm -D --defined-only "$lib" | awk '$(NF-1) != "A" {print $NF}' | grep -v '^mha_[A-Za-z0-9_]*@@MHA_' || true)
if [ -n "$leaks" ]; then
  echo "libmha.so exports symbols outside mha_*:" >&2
  echo "$leaks" >&2
  exit 1
fi

# With nvcc, every CUDA source is in the kernel archives (compiled here or served from the archive
# cache, so count archive members, not object files) and was compiled for both targets.
cuda_objects=$(for a in "$out"/libmha_fwd.a "$out"/libmha_bwd.a; do ar t "$a"; done | grep -c '\.cu\.o$' || true)
if [ "$cuda_objects" -gt 0 ]; then
  expected=$(find "$main/kernels" -name '*.cu' | wc -l)
  [ "$cuda_objects" -eq "$expected" ] || { echo "$cuda_objects CUDA objects, expected $expected" >&2; exit 1; }
  for target in "arch=compute_80,code=sm_80" "arch=compute_90a,code=sm_90a"; do
    grep -q -- "$target" "$out/compile_commands.json" || { echo "CUDA sources not compiled for $target" >&2; exit 1; }
  done
  echo "CUDA: $cuda_objects kernel translation units in the archives, compiled for sm_80 and sm_90a"
  export MHA_EXPECT_CUDA=1
else
  echo "CUDA: no kernel objects in the archives (nvcc absent or switched off): testing that the API says so"
  export MHA_EXPECT_CUDA=0
fi

mkdir -p "$out/test"
cc -O1 -Wall -Werror -I"$main/include" -o "$out/test/test_mha" "$here/c/test_mha.c" \
  -L"$out" -lmha -Wl,-rpath,"$out" -lm
"$out/test/test_mha"
