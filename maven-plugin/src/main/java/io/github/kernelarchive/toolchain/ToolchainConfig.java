package io.github.kernelarchive.toolchain;

import java.util.Map;

/**
 * What the user configured; {@code null} means "find it". Environment entries are passed to every
 * tool (and take part in lookups such as {@code CUDA_HOME}).
 */
public record ToolchainConfig(
    String cc, String cxx, String nvcc, String hipcc, String ar, String launcher, String linker,
    Map<String, String> environment) {
  public ToolchainConfig {
    environment = Map.copyOf(environment);
  }

  public static ToolchainConfig defaults() {
    return new ToolchainConfig(null, null, null, null, null, null, null, Map.of());
  }
}
