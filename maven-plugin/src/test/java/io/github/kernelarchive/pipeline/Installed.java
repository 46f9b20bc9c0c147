package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.kernelarchive.scan.Language;
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
}
