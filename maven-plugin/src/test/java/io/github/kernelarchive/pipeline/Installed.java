package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Skips a test whose tool is not installed, printing the reason and the Debian package that
 * brings the tool (what {@code .ci/run} installs), so the console says what went untested and how
 * to test it. {@code InstalledTest} checks the package names against dpkg.
 */
public final class Installed {
  /** The Debian package each tool the tests drive comes from. */
  static final Map<String, String> PACKAGES = Map.ofEntries(
      Map.entry("ld.bfd", "binutils"), Map.entry("ld.gold", "binutils"), Map.entry("ld.lld", "lld"),
      Map.entry("ld.mold", "mold"), Map.entry("llvm-ar", "llvm"), Map.entry("nginx", "nginx"),
      Map.entry("distcc", "distcc"), Map.entry("distccd", "distcc"), Map.entry("icecc", "icecc"),
      Map.entry("iceccd", "icecc"), Map.entry("icecc-scheduler", "icecc"), Map.entry("ccache", "ccache"),
      Map.entry("aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu"), Map.entry("hipcc", "hipcc"),
      Map.entry("aarch64-linux-gnu-g++", "g++-aarch64-linux-gnu"), Map.entry("qemu-aarch64-static", "qemu-user-static"),
      Map.entry("ar", "binutils"), Map.entry("c++filt", "binutils"), Map.entry("ip", "iproute2"),
      Map.entry("srun", "slurm-client"), Map.entry("slurmctld", "slurmctld"), Map.entry("slurmd", "slurmd"),
      Map.entry("munged", "munge"), Map.entry("patchelf", "patchelf"), Map.entry("castxml", "castxml"),
      Map.entry("unshare", "util-linux"), Map.entry("mount", "mount"));
  /**
   * Debian's Python packages the wheel ITs' selectors name: modules and headers for /usr/bin/python3
   * rather than executables on the PATH (where a pyenv shim may stand first).
   */
  static final java.util.Set<String> PYTHON_PACKAGES = java.util.Set.of("python3-venv", "python3-wheel", "python3-dev");
  /** nvcc has no package in Debian's main archive. */
  static final String CUDA_TOOLKIT = "the CUDA toolkit: NVIDIA's installer, or Debian's nvidia-cuda-toolkit"
      + " from non-free";

  private Installed() {}

  /** How to install {@code executable}: {@code apt-get install <package>}. */
  public static String howToInstall(String executable) {
    return Optional.ofNullable(PACKAGES.get(executable)).map(p -> "apt-get install " + p)
        .orElseThrow(() -> new IllegalArgumentException("no package known for " + executable + ": add it to PACKAGES"));
  }

  public static void assumeCompiler(Language language) throws Exception {
    boolean present = new Toolchain(ToolchainConfig.defaults(), System.getenv()).compiler(language).isPresent();
    if (!present) {
      String how = switch (language) {
        case CUDA -> CUDA_TOOLKIT;
        case HIP -> howToInstall("hipcc");
        default -> "apt-get install build-essential";
      };
      System.out.println("SKIPPED: no " + language.label() + " compiler installed (" + how + "); tests that need it"
          + " are skipped");
    }
    assumeTrue(present, "no " + language.label() + " compiler installed");
  }

  /** Skips unless {@code executable} is on the PATH; {@code untested} says what then goes untested. */
  public static void assumeOnPath(String executable, String untested) {
    boolean present = onPath(executable);
    if (!present) {
      System.out.println("SKIPPED: " + executable + " is not installed (" + howToInstall(executable) + "); "
          + untested + " is not tested");
    }
    assumeTrue(present, executable + " is not installed");
  }

  public static boolean onPath(String executable) {
    return System.getenv("PATH").lines().flatMap(p -> List.of(p.split(":")).stream())
        .anyMatch(p -> Files.isExecutable(Path.of(p, executable)));
  }
}
