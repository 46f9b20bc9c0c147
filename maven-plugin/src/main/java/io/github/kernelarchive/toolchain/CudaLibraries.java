package io.github.kernelarchive.toolchain;

import io.github.kernelarchive.build.ToolchainException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where nvcc's own libraries ({@code libcudart_static.a}) live. nvcc is often reached through a
 * wrapper script or a symlink farm, so its path says little; its dry run prints the
 * {@code -L} directories it would link with.
 */
public final class CudaLibraries {
  private static final Pattern LIBRARY_DIR = Pattern.compile("\"?-L([^\"\\s]+)\"?");

  private CudaLibraries() {}

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
