package io.github.kernelarchive.bundle;

/** A kernel bundle that cannot be used: damaged, for another platform, or not what the build needs. The message names it. */
public class BundleException extends Exception {
  public BundleException(String message) {
    super(message);
  }

  public BundleException(String message, Throwable cause) {
    super(message, cause);
  }
}
