package io.github.kernelarchive.runtime;

import java.util.Locale;

/** This JVM's platform, spelled as the plugin's classifiers are: {@code linux-x86_64}. */
final class Platform {
  private Platform() {}

  static String current() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT).replaceAll("\\s+", "");
    String arch = switch (System.getProperty("os.arch")) {
      case "amd64", "x86_64" -> "x86_64";
      case "aarch64", "arm64" -> "aarch64";
      default -> System.getProperty("os.arch");
    };
    return os + "-" + arch;
  }
}
