package io.github.kernelarchive.toolchain;

import io.github.kernelarchive.common.ToolchainException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where nvcc's own libraries ({@code libcudart_static.a}) live. nvcc is often reached through a
 * wrapper script or a symlink farm, so its path says little; its dry run prints the
 * {@code -L} directories it would link with.
 */
public final class CudaLibraries {
  private static final Pattern LIBRARY_DIR = Pattern.compile("\"?-L([^\"\\s]+)\"?");

  private static final Pattern TOP = Pattern.compile("(?m)^#\\$ TOP=(.+)$");
  private static final Pattern RELEASE = Pattern.compile("release (\\d+)\\.");

  private CudaLibraries() {}

  /** The CUDA installation nvcc belongs to ({@code TOP} of its dry run), or null when it cannot tell. */
  public static Path root(Tool nvcc, ProcessRunner runner) {
    try {
      Matcher m = TOP.matcher(runner.run(List.of(nvcc.command(), "--dryrun", "-o", "a.out", "a.o"), null).output());
      return m.find() ? Path.of(m.group(1).trim()).normalize() : null;
    } catch (IOException e) {
      return null;
    }
  }

  /** The CUDA major version from nvcc's {@code --version} text ({@code release 13.0} gives 13), or null. */
  public static String major(Tool nvcc) {
    Matcher m = RELEASE.matcher(nvcc.identity());
    return m.find() ? m.group(1) : null;
  }

  /**
   * A CUDA install's folders for {@code platform} under {@code targets/}: {@code sbsa-linux} (and
   * {@code aarch64-linux}, Jetson's) for linux-aarch64, {@code x86_64-linux} for linux-x86_64.
   */
  public static List<Path> targetFolders(Path root, TargetPlatform platform) {
    Path targets = root.resolve("targets");
    return platform.triple().startsWith("aarch64") ? List.of(targets.resolve("sbsa-linux"), targets.resolve("aarch64-linux"))
        : List.of(targets.resolve(platform.triple().replace("-gnu", "")));
  }

  /**
   * The folder of the CUDA runtime built for {@code platform}, for a cross build's static or shared
   * runtime: the install's {@code targets/<target>/lib}; empty where it has none (an x86_64 install
   * without NVIDIA's cross packages).
   */
  public static Optional<Path> crossDirectory(Tool nvcc, ProcessRunner runner, TargetPlatform platform) {
    Path root = root(nvcc, runner);
    if (root == null) {
      return Optional.empty();
    }
    return targetFolders(root, platform).stream().map(t -> t.resolve("lib"))
        .filter(l -> Files.isRegularFile(l.resolve("libcudart_static.a"))).findFirst();
  }

  public static Path directory(Tool nvcc, ProcessRunner runner) throws ToolchainException {
    try {
      ProcessResult dryRun = runner.run(List.of(nvcc.command(), "--dryrun", "-o", "a.out", "a.o"), null);
      for (String line : dryRun.output().lines().toList()) {
        if (!line.startsWith("#$ LIBRARIES=")) {
          continue;
        }
        Matcher m = LIBRARY_DIR.matcher(line);
        while (m.find()) {
          Path dir = Path.of(m.group(1)).normalize();
          if (!dir.endsWith("stubs") && Files.isRegularFile(dir.resolve("libcudart_static.a"))) {
            return dir;
          }
        }
      }
    } catch (IOException e) {
      throw new ToolchainException("Could not ask " + nvcc.command() + " for its library directory: "
          + e.getMessage() + ". Check the CUDA installation or set kernel.cuda.nvcc.", e);
    }
    throw new ToolchainException("No libcudart_static.a found among the library directories of "
        + nvcc.command() + " (nvcc --dryrun). Check the CUDA installation or set kernel.cuda.nvcc.");
  }
}
