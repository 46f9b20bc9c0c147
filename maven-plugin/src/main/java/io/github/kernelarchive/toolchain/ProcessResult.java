package io.github.kernelarchive.toolchain;

/** Exit status and the combined stdout/stderr of a finished process. */
public record ProcessResult(int exitCode, String output) {
  public boolean succeeded() {
    return exitCode == 0;
  }
}
