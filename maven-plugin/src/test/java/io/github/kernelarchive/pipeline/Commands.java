package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/** Runs a real tool in a test, failing the test with its output when it exits nonzero. */
public final class Commands {
  private Commands() {}

  public static String run(List<String> argv, Path directory) throws Exception {
    Process process = new ProcessBuilder(argv).directory(directory.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, process.waitFor(), String.join(" ", argv) + " failed:\n" + output);
    return output;
  }
}
