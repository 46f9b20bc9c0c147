package io.github.kernelarchive.util;

import io.github.kernelarchive.common.BuildFailureException;

/**
 * A NEEDED entry a package can ship. A library linked by its path that has no SONAME is recorded
 * by that path ({@code /abs/path/libnoso.so}); a wheel or jar that carried it would make every
 * user's loader open that path of their own machine, or fail.
 */
public final class NeededPaths {
  private NeededPaths() {}

  /** @param what the package's kind ({@code wheel}, {@code jar}) */
  public static void requireName(String library, String needed, String what) throws BuildFailureException {
    if (needed.contains("/")) {
      throw new BuildFailureException(library + " NEEDs " + needed + " by its path: that library has no SONAME, so"
          + " the link recorded where it lies on this machine, and a " + what + " cannot ship a path of this machine."
          + " Give it a SONAME (link it with -Wl,-soname,<name>), vendor it (copy it beside " + library + " and link"
          + " it by name), or declare it as a <dependency>.");
    }
  }
}
