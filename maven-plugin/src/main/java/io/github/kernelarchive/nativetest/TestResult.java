package io.github.kernelarchive.nativetest;

/**
 * How one test program ended.
 *
 * @param message why it failed, was skipped or could not run ({@code exit status 3}, {@code signal
 *     SIGSEGV}, {@code timed out after 300 s}, the program's skip reason); {@code null} when it passed
 * @param detail the end of its output, for a failure
 * @param seconds how long it ran
 * @param stdout what it wrote to standard output
 * @param stderr what it wrote to standard error
 */
public record TestResult(String name, Outcome outcome, String message, String detail, double seconds, String stdout,
    String stderr) {
  public enum Outcome {
    PASSED,
    /** Exit status other than 0 and 77, a signal, or a timeout. */
    FAILED,
    /** Exit status 77: the program decided it cannot run here. */
    SKIPPED,
    /** The program could not be started, or was not built (its compiler is missing: then skipped). */
    ERROR
  }
}
