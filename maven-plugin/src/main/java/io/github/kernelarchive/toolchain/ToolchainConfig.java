package io.github.kernelarchive.toolchain;

import java.util.Map;

/**
 * What the user configured; {@code null} means "find it". Environment entries are passed to every
 * tool (and take part in lookups such as {@code CUDA_HOME}).
 *
 * @param platform what the tools build for; for another platform than the build machine's, the C
 *     and C++ compilers are {@code cc} and {@code cxx} where set (that platform's own), else found by
 *     its triple ({@code aarch64-linux-gnu-g++})
 */
public record ToolchainConfig(
    String cc, String cxx, String nvcc, String hipcc, String ar, String launcher, String linker,
    Map<String, String> environment, TargetPlatform platform) {
  public ToolchainConfig {
    environment = Map.copyOf(environment);
  }

  /** For the build machine. */
  public ToolchainConfig(String cc, String cxx, String nvcc, String hipcc, String ar, String launcher, String linker,
      Map<String, String> environment) {
    this(cc, cxx, nvcc, hipcc, ar, launcher, linker, environment, TargetPlatform.host());
  }

  public static ToolchainConfig defaults() {
    return new ToolchainConfig(null, null, null, null, null, null, null, Map.of());
  }

  /** The same, with nvcc {@code nvcc} ({@link Toolchain#DISABLED} switches CUDA off). */
  public ToolchainConfig withNvcc(String nvcc) {
    return new ToolchainConfig(cc, cxx, nvcc, hipcc, ar, launcher, linker, environment, platform);
  }

  /**
   * The same tools for {@code target}: all of them for the build machine; for another platform all
   * but the C and C++ compilers, which build for the build machine only.
   */
  public ToolchainConfig forPlatform(TargetPlatform target) {
    return target.cross() ? new ToolchainConfig(null, null, nvcc, hipcc, ar, launcher, linker, environment, target)
        : new ToolchainConfig(cc, cxx, nvcc, hipcc, ar, launcher, linker, environment, target);
  }
}
