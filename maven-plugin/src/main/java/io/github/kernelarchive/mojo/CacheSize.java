package io.github.kernelarchive.mojo;

import java.util.Locale;
import org.apache.maven.plugin.MojoFailureException;

/** Parses {@code kernel.cache.maxSize}: bytes, or a number with K, M, G or T (powers of 1024). */
final class CacheSize {
  private CacheSize() {}

  static long parse(String text) throws MojoFailureException {
    String value = text.trim().toUpperCase(Locale.ROOT).replaceAll("I?B$", "");
    long unit = 1;
    if (!value.isEmpty() && "KMGT".indexOf(value.charAt(value.length() - 1)) >= 0) {
      unit = 1L << (10 * ("KMGT".indexOf(value.charAt(value.length() - 1)) + 1));
      value = value.substring(0, value.length() - 1);
    }
    try {
      long number = Long.parseLong(value.trim());
      if (number < 0) {
        throw new NumberFormatException();
      }
      return Math.multiplyExact(number, unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new MojoFailureException("kernel.cache.maxSize '" + text + "' is not a size. Use bytes or a"
          + " number with K, M, G or T, e.g. -Dkernel.cache.maxSize=20G.");
    }
  }
}
