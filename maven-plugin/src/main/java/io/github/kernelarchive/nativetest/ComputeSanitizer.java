package io.github.kernelarchive.nativetest;

import io.github.kernelarchive.toolchain.ExecutableFinder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * NVIDIA's compute-sanitizer, which CUDA test programs run under when asked for
 * ({@code kernel.test.computeSanitizer=memcheck}): found beside nvcc or on the PATH, and used only
 * where a GPU is visible ({@code nvidia-smi -L} lists one); otherwise the note says which is missing.
 */
record ComputeSanitizer(Path executable, String tool) {
  /** The tool, or empty with why not. */
  record Found(Optional<ComputeSanitizer> tool, String note) {}

  /** The command prefix: the tool, and a failing exit status when it reports an error. */
  List<String> argv() {
    return List.of(executable.toString(), "--tool", tool, "--error-exitcode", "1");
  }

  /** @param cudaRoot the CUDA installation nvcc belongs to; {@code null} when there is none */
  static Found find(String tool, Path cudaRoot, Map<String, String> environment) {
    Optional<Path> executable = Optional.ofNullable(cudaRoot).map(r -> r.resolve("bin/compute-sanitizer"))
        .filter(Files::isExecutable).or(() -> finder(environment).find("compute-sanitizer"));
    if (executable.isEmpty()) {
      return new Found(Optional.empty(), "skipped: compute-sanitizer is not installed (it comes with the CUDA toolkit)");
    }
    Optional<String> gpu = visibleGpu(environment);
    if (gpu.isEmpty()) {
      return new Found(Optional.empty(), "skipped: no GPU visible (nvidia-smi -L lists none)");
    }
    return new Found(Optional.of(new ComputeSanitizer(executable.get(), tool)), tool + " on " + gpu.get());
  }

  /** The first GPU {@code nvidia-smi -L} lists, if it runs and lists one. */
  private static Optional<String> visibleGpu(Map<String, String> environment) {
    Optional<Path> smi = finder(environment).find("nvidia-smi");
    if (smi.isEmpty()) {
      return Optional.empty();
    }
    try {
      Process process = new ProcessBuilder(smi.get().toString(), "-L").redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
        process.destroyForcibly();
        return Optional.empty();
      }
      return output.lines().filter(l -> l.startsWith("GPU ")).findFirst();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private static ExecutableFinder finder(Map<String, String> environment) {
    return new ExecutableFinder(environment.getOrDefault("PATH", ""));
  }
}
