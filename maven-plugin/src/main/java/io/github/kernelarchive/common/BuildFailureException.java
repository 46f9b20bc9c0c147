package io.github.kernelarchive.common;

/**
 * Something the user must fix: a compile error, a bad parameter, a missing source directory. The
 * message names the file or parameter and says what to change. Mojos map it to a build failure.
 */
public class BuildFailureException extends Exception {
  public BuildFailureException(String message) {
    super(message);
  }
}
