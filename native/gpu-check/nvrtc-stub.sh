#!/usr/bin/env bash
# NVRTC through a generated stub, against the real libnvrtc.so.13 (acceptance of the stub work):
#   here (Java, no NVRTC):  native/gpu-check/nvrtc-stub.sh build   -> native/gpu-check/dist-nvrtc/
#   GPU machine:            native/gpu-check/nvrtc-stub.sh run     (with dist-nvrtc next to it)
# The library is NvrtcStubTest's: it compiles a small kernel to PTX and returns the PTX size.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dist=$here/dist-nvrtc
case "${1:-}" in
  build)
    (cd "$here/../../maven-plugin" && NVRTC_STUB_OUT=$dist ../mvnw -B -q -o test -Dtest=NvrtcStubTest \
      -Dsurefire.failIfNoSpecifiedTests=false)
    ls -l "$dist" ;;
  run)
    cc -o "$dist/probe" "$dist/probe.c" -ldl
    wheel=$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13", "lib"))')
    echo "== default search (CUDA's NVRTC is in ld.so.cache)"; "$dist/probe" "$dist/libuse_nvrtc.so"
    echo "== the CUDA wheel's NVRTC first on LD_LIBRARY_PATH"; LD_LIBRARY_PATH=$wheel "$dist/probe" "$dist/libuse_nvrtc.so"
    echo "== no NVRTC reachable (ld.so cache inhibited, wheel folder hidden)"
    env -u LD_LIBRARY_PATH /lib64/ld-linux-x86-64.so.2 --inhibit-cache "$dist/probe" "$dist/libuse_nvrtc.so" ;;
  *) echo "usage: $0 build|run" >&2; exit 2 ;;
esac
