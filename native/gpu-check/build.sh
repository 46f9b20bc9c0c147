#!/usr/bin/env bash
# Builds, on a machine with Java and nvcc (no GPU needed), the two libraries the GPU check loads:
#   dist/release/libmha.so   the release kernels (MHA_KERNEL_VARIANT=1)
#   dist/variant2/libmha.so  a deliberately different build (MHA_KERNEL_VARIANT=2: forward output / 2)
# Same file name and SONAME in both: the situation of a second copy bundled by another package.
# Usage (from anywhere): native/gpu-check/build.sh [dist folder name] [extra Maven arguments...]
#   e.g. native/gpu-check/build.sh dist-stub -Dkernel.cuda.runtime=stub
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dist="$here/${1:-dist}"
shift || true
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || { echo "nvcc is required to build the CUDA kernels" >&2; exit 1; }
rm -rf "$dist"
mkdir -p "$dist"
for variant in 1 2; do
  name=$([ "$variant" = 1 ] && echo release || echo "variant$variant")
  # The plugin first (native/ takes it as a build extension, from the local repository).
  (cd "$root" && ./mvnw -B -q -Dinvoker.skip -DskipTests install && ./mvnw -B -q -DskipTests package -f native/pom.xml \
    -Dmha.kernelVariant="$variant" -Dmha.outputDirectory="$root/native/target/gpu-check-$name" "$@")
  mkdir -p "$dist/$name"
  cp "$root/native/target/gpu-check-$name/libmha.so" "$dist/$name/libmha.so"
done
cp "$root/native/src/main/include/mha.h" "$dist/"
ls -l "$dist"/*/libmha.so
