package io.github.kernelarchive.toolchain;

import io.github.kernelarchive.common.ToolchainException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Chooses the linker for {@code kernel.linker}: {@code auto} (the default) takes the fastest one
 * installed whose version is known to handle every flag of the private link (whole archives,
 * {@code --exclude-libs}, a version script with exact local names beside {@code global: *}):
 * mold, then lld, then gold, else the driver's default (GNU ld). A name ({@code bfd}, {@code gold},
 * {@code lld}, {@code mold}) must be installed; a path must name the linker by its {@code ld.<name>}
 * file, the way the driver looks linkers up ({@code -B<folder> -fuse-ld=<name>}).
 *
 * <p>Measured here on a 334 MB whole-archive link: bfd 2.2–3.3 s, gold 0.7 s, lld 0.4–0.7 s,
 * mold 0.2–0.7 s. Minimum versions: the oldest releases checked with the private link (mold 1.10,
 * lld 14) rounded down to the releases that added the flags it uses.
 */
final class LinkerSelection {
  private record Candidate(String name, String executable, int[] minimum) {}

  private static final List<Candidate> AUTO_ORDER = List.of(
      new Candidate("mold", "ld.mold", new int[] {1, 1}),
      new Candidate("lld", "ld.lld", new int[] {10, 0}),
      new Candidate("gold", "ld.gold", new int[] {1, 11}));
  private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)");

  private final ExecutableFinder finder;
  private final ProcessRunner runner;

  private final ToolVersions versions;
  private final TargetPlatform platform;

  LinkerSelection(ExecutableFinder finder, ProcessRunner runner, ToolVersions versions, TargetPlatform platform) {
    this.versions = versions;
    this.platform = platform;
    this.finder = finder;
    this.runner = runner;
  }

  Linker select(String configured) throws ToolchainException {
    String wanted = configured == null || configured.isBlank() ? "auto" : configured.trim();
    if (wanted.equals("auto")) {
      for (Candidate candidate : AUTO_ORDER) {
        Optional<Path> path = finder.find(candidate.executable());
        if (path.isPresent()) {
          String version = versionOf(path.get());
          if (version != null && atLeast(version, candidate.minimum())) {
            return new Linker(candidate.name(), driverFlags(candidate.name(), path.get()), path.get() + "\n" + version);
          }
        }
      }
      return new Linker("default", List.of(), "the C++ driver's default linker");
    }
    if (wanted.contains("/")) {
      return byPath(Path.of(wanted));
    }
    if (!List.of("bfd", "gold", "lld", "mold").contains(wanted)) {
      throw new ToolchainException("kernel.linker '" + wanted + "' is not a linker this plugin knows: use auto,"
          + " bfd, gold, lld, mold, or the path of an ld.<name> executable.");
    }
    String executable = wanted.equals("bfd") ? "ld.bfd" : "ld." + wanted;
    Path path = finder.find(executable).orElseThrow(() -> new ToolchainException("Linker '" + wanted
        + "' (kernel.linker) is not installed: " + executable + " is not on PATH. Install it (Debian: "
        + (wanted.equals("bfd") || wanted.equals("gold") ? "binutils" : wanted) + ") or use kernel.linker=auto."));
    return new Linker(wanted, driverFlags(wanted, path), path + "\n" + versionOf(path));
  }

  /**
   * {@code -fuse-ld=<name>}. A cross driver ({@code aarch64-linux-gnu-g++}) looks for
   * {@code ld.<name>} only among its own programs, where Debian's mold and lld are not; it is shown
   * the linker's folder with {@code -B}. Not a folder that also holds the build machine's {@code as}
   * or {@code ld} ({@code /usr/bin}), which the driver would take too: mold installs a folder for
   * this ({@code libexec/mold}, whose {@code ld} is mold), lld lives in LLVM's own {@code bin}.
   */
  private List<String> driverFlags(String name, Path executable) throws ToolchainException {
    if (!platform.cross() || name.equals("bfd") || name.equals("gold")) {
      return List.of("-fuse-ld=" + name); // binutils-<triple> has its own ld.bfd and ld.gold
    }
    Path folder;
    try {
      folder = executable.toRealPath().getParent();
    } catch (IOException e) {
      throw new ToolchainException(executable + " cannot be resolved (" + e.getMessage() + ")");
    }
    if (!Files.exists(folder.resolve("as")) && !Files.exists(folder.resolve("ld"))
        && Files.isExecutable(folder.resolve("ld." + name))) {
      return List.of("-B" + folder + "/", "-fuse-ld=" + name);
    }
    Path libexec = folder.resolveSibling("libexec").resolve("mold");
    if (name.equals("mold") && Files.isExecutable(libexec.resolve("ld"))) {
      return List.of("-B" + libexec + "/");
    }
    throw new ToolchainException("The " + platform + " compiler driver cannot be shown " + executable + " without the"
        + " build machine's assembler beside it (" + folder + "): set kernel.linker=bfd (binutils-" + platform.triple()
        + " has it) or install " + name + " in a folder of its own.");
  }

  private Linker byPath(Path path) throws ToolchainException {
    String file = path.getFileName().toString();
    if (!file.startsWith("ld.") || !path.isAbsolute()) {
      throw new ToolchainException("kernel.linker '" + path + "' must be the absolute path of an ld.<name>"
          + " executable (e.g. /opt/mold/libexec/mold/ld.mold): the C++ driver finds linkers by that name.");
    }
    Path executable = finder.find(path.toString()).orElseThrow(() -> new ToolchainException(
        "kernel.linker '" + path + "' does not exist or is not executable."));
    String name = file.substring(3);
    return new Linker(name, List.of("-B" + executable.getParent() + "/", "-fuse-ld=" + name),
        executable + "\n" + versionOf(executable));
  }

  /** The first line of {@code --version}, or null when it cannot be run. */
  private String versionOf(Path linker) {
    try {
      ProcessResult result = versions.version(linker, runner);
      return result.succeeded() ? result.output().lines().findFirst().orElse("").strip() : null;
    } catch (IOException e) {
      return null;
    }
  }

  static boolean atLeast(String versionLine, int[] minimum) {
    // "GNU gold (GNU Binutils for Debian 2.40) 1.16": the linker's own version is the last one.
    Matcher m = VERSION.matcher(versionLine);
    List<int[]> found = new ArrayList<>();
    while (m.find()) {
      found.add(new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))});
    }
    if (found.isEmpty()) {
      return false;
    }
    int[] version = versionLine.startsWith("GNU gold") ? found.get(found.size() - 1) : found.get(0);
    return version[0] != minimum[0] ? version[0] > minimum[0] : version[1] >= minimum[1];
  }
}
