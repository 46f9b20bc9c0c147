package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.kernelarchive.scan.Language;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.toolchain.ToolchainConfig;

/** Skips a test whose tool is not installed, printing the reason so it shows in the build log. */
public final class Installed {
  private Installed() {}

  public static void assumeCompiler(Language language) throws Exception {
    boolean present = new Toolchain(ToolchainConfig.defaults(), System.getenv()).compiler(language).isPresent();
    if (!present) {
      System.out.println("SKIPPED: no " + language.label() + " compiler installed; tests that need it are skipped");
    }
    assumeTrue(present, "no " + language.label() + " compiler installed");
  }

  /** Skips unless {@code executable} is on the PATH; {@code untested} says what then goes untested. */
  public static void assumeOnPath(String executable, String untested) {
    boolean present = System.getenv("PATH").lines().flatMap(p -> List.of(p.split(":")).stream())
        .anyMatch(p -> Files.isExecutable(Path.of(p, executable)));
    if (!present) {
      System.out.println("SKIPPED: " + executable + " is not installed; " + untested + " is not tested");
    }
    assumeTrue(present, executable + " is not installed");
  }
}
