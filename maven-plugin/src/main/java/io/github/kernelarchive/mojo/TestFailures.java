package io.github.kernelarchive.mojo;

import java.util.List;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugin.logging.Log;

/** What the test goals do with failed tests, as Surefire does: fail the build, or warn with {@code maven.test.failure.ignore}. */
final class TestFailures {
  private TestFailures() {}

  /**
   * @param kind {@code native}, {@code Python}
   * @param where where to read more: the report and the tests' output
   */
  static void report(List<String> problems, String kind, String where, boolean ignore, Log log)
      throws MojoFailureException {
    if (problems.isEmpty()) {
      return;
    }
    String message = "There are " + kind + " test failures: " + String.join(", ", problems) + ". See " + where + ".";
    if (ignore) {
      log.warn(message + " (maven.test.failure.ignore=true: the build goes on)");
      return;
    }
    throw new MojoFailureException(message);
  }
}
