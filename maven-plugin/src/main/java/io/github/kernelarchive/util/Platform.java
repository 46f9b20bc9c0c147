package io.github.kernelarchive.util;

import java.util.Locale;

/** The build machine's platform as a classifier: {@code <os>-<arch>}, e.g. {@code linux-x86_64}. */
public final class Platform {
  private Platform() {}

  public static String classifier() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT).replaceAll("\\s+", "");
    String arch = switch (System.getProperty("os.arch")) {
      case "amd64", "x86_64" -> "x86_64";
      case "aarch64", "arm64" -> "aarch64";
      default -> System.getProperty("os.arch");
    };
    return os + "-" + arch;
  }
}
