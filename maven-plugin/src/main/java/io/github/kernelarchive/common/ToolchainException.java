package io.github.kernelarchive.common;

/**
 * Broken infrastructure rather than broken sources: a compiler that cannot be found or started,
 * a tool that crashed. The message names the parameter that selects the tool.
 */
public class ToolchainException extends Exception {
  public ToolchainException(String message) {
    super(message);
  }

  public ToolchainException(String message, Throwable cause) {
    super(message, cause);
  }
}
