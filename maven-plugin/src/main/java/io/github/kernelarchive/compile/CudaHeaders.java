package io.github.kernelarchive.compile;

import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.toolchain.CudaLibraries;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.TargetPlatform;
import io.github.kernelarchive.toolchain.Tool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * CUDA's headers for a cross compile. nvcc adds {@code <cuda>/targets/<target>/include} for the
 * target its host compiler names, so with {@code -ccbin aarch64-linux-gnu-g++} it looks in
 * {@code targets/sbsa-linux}, which an x86_64 install does not have. The headers are the same for
 * every host (device code does not depend on it), so another target's serve: the platform's own
 * where installed, else the first there is.
 */
final class CudaHeaders {
  private CudaHeaders() {}

  /** {@code -I<include> -isystem <include>/cccl}: what nvcc would add for its own host. */
  static List<String> flags(Tool nvcc, TargetPlatform platform, ProcessRunner runner) throws ToolchainException {
    Path root = CudaLibraries.root(nvcc, runner);
    if (root == null) {
      throw new ToolchainException(nvcc.command() + " --dryrun names no TOP folder: its headers cannot be found to"
          + " compile for " + platform + ". Check the CUDA installation or set kernel.cuda.nvcc.");
    }
    Path include = include(root, platform);
    List<String> flags = new ArrayList<>(List.of("-I" + include));
    if (Files.isDirectory(include.resolve("cccl"))) {
      flags.addAll(List.of("-isystem", include.resolve("cccl").toString()));
    }
    return flags;
  }

  private static Path include(Path root, TargetPlatform platform) throws ToolchainException {
    Path targets = root.resolve("targets");
    for (Path candidate : CudaLibraries.targetFolders(root, platform)) {
      if (Files.isRegularFile(candidate.resolve("include/cuda_runtime.h"))) {
        return candidate.resolve("include");
      }
    }
    try (Stream<Path> installed = Files.list(targets)) {
      return installed.map(t -> t.resolve("include")).filter(i -> Files.isRegularFile(i.resolve("cuda_runtime.h")))
          .sorted().findFirst().orElseThrow(() -> new ToolchainException("No CUDA headers under " + targets
              + " for nvcc to compile for " + platform + " with: install the CUDA toolkit's headers."));
    } catch (IOException e) {
      throw new ToolchainException("No CUDA headers under " + targets + " (" + e.getMessage() + ") for " + platform);
    }
  }
}
