package io.github.kernelarchive.toolchain;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Runs a tool with an argument vector (never through a shell, so names with spaces, quotes or
 * {@code @} reach the tool unchanged) and collects its output. Plexus Utils' {@code Commandline}
 * is not used: it builds a shell command line and quotes for that shell, which is what this
 * avoids; {@link ProcessBuilder} already takes the vector as it is.
 */
public final class ProcessRunner {
  private final Map<String, String> extraEnvironment;

  public ProcessRunner(Map<String, String> extraEnvironment) {
    this.extraEnvironment = Map.copyOf(extraEnvironment);
  }

  /** The variables every process gets on top of this JVM's environment. */
  public Map<String, String> environment() {
    return extraEnvironment;
  }

  public ProcessResult run(List<String> argv, Path workingDirectory) throws IOException {
    return run(argv, workingDirectory, Map.of());
  }

  public ProcessResult run(List<String> argv, Path workingDirectory, Map<String, String> environment)
      throws IOException {
    ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
    if (workingDirectory != null) {
      builder.directory(workingDirectory.toFile());
    }
    builder.environment().putAll(extraEnvironment);
    builder.environment().putAll(environment);
    Process process = builder.start();
    process.getOutputStream().close();
    String output;
    try (InputStream in = process.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    try {
      return new ProcessResult(process.waitFor(), output);
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for " + argv.get(0), e);
    }
  }
}
