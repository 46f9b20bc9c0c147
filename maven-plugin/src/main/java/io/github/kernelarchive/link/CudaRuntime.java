package io.github.kernelarchive.link;

/** How CUDA objects reach the CUDA runtime, as CMake's {@code CUDA_RUNTIME_LIBRARY} says it, plus a stub. */
public enum CudaRuntime {
  /** {@code -lcudart_static}: no {@code NEEDED} on any {@code libcudart.so.N}. */
  STATIC,
  /** {@code NEEDED libcudart.so.N}. */
  SHARED,
  /** No {@code NEEDED}: a generated stub loads {@code libcudart.so.N}, else {@code N-1}, on first use. */
  STUB
}
