package io.github.kernelarchive.glibc;

import io.github.kernelarchive.elf.VersionFloor;
import java.util.regex.Pattern;

/**
 * The oldest glibc a library must load on ({@code kernel.glibc}, e.g. {@code 2.17}): every symbol
 * version it needs of glibc is at most this one.
 */
public record GlibcTarget(String version) {
  private static final Pattern FORM = Pattern.compile("2\\.(\\d{1,2})");
  /** x86_64's first glibc symbol versions: nothing older exists to bind to. */
  private static final String OLDEST = "2.17";

  /**
   * @param value the user's text
   * @param parameter how the error names where it came from ({@code kernel.glibc})
   * @throws IllegalArgumentException with the fix, for anything but {@code 2.N}, N at least 17
   */
  public static GlibcTarget parse(String value, String parameter) {
    String text = value.strip();
    if (!FORM.matcher(text).matches() || VersionFloor.VERSION_ORDER.compare(text, OLDEST) < 0) {
      throw new IllegalArgumentException(parameter + " is '" + value + "': give a glibc release as 2.N, at least "
          + OLDEST + " (manylinux2014, RHEL/CentOS 7), e.g. 2.17 or 2.28 (RHEL 8, manylinux_2_28).");
    }
    return new GlibcTarget(text);
  }

  /** Whether a glibc symbol version ({@code GLIBC_2.14}, or {@code 2.14}) exists at this release. */
  public boolean admits(String symbolVersion) {
    String number = symbolVersion.startsWith("GLIBC_") ? symbolVersion.substring("GLIBC_".length()) : symbolVersion;
    return VersionFloor.VERSION_ORDER.compare(number, version) <= 0;
  }

  @Override
  public String toString() {
    return "glibc " + version;
  }
}
