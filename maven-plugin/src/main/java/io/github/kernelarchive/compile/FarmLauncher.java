package io.github.kernelarchive.compile;

import io.github.kernelarchive.toolchain.ProcessResult;
import io.github.kernelarchive.toolchain.ProcessRunner;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * C/C++ compile farms in a launcher ({@code distcc}, its {@code pump} mode, icecream's
 * {@code icecc} and {@code icerun}), possibly behind {@code ccache}: which words they are, what
 * runs locally without them, and how many jobs the farm can take.
 */
public final class FarmLauncher {
  private static final Set<String> FARMS = Set.of("distcc", "pump", "icecc", "icerun");
  /**
   * distcc's own failures (its exit codes 100 to 127: no hosts, connection refused or reset,
   * protocol errors, timeouts); a compiler reports the user's errors with small codes.
   */
  private static final int FIRST_FARM_FAILURE = 100;
  private static final int LAST_FARM_FAILURE = 127;

  private FarmLauncher() {}

  /** The farm named in the launcher, e.g. {@code distcc}; empty for a local launcher. */
  public static Optional<String> farmIn(List<String> launcher) {
    return launcher.stream().map(FarmLauncher::baseName).filter(FARMS::contains).findFirst();
  }

  /** The launcher without the farm and what it was given to run after it ({@code ccache distcc} → {@code ccache}). */
  public static List<String> local(List<String> launcher) {
    List<String> kept = new ArrayList<>();
    for (String word : launcher) {
      if (FARMS.contains(baseName(word))) {
        break;
      }
      kept.add(word);
    }
    return kept;
  }

  /** Whether a compile through the farm failed for the farm's reasons rather than the source's. */
  static boolean farmFailed(ProcessResult result) {
    return result.exitCode() >= FIRST_FARM_FAILURE && result.exitCode() <= LAST_FARM_FAILURE;
  }

  /**
   * The jobs to run when {@code kernel.jobs} is not set: with distcc, the slots of its host list
   * ({@code distcc -j}, distcc's own answer to "how many jobs", local slots included); otherwise,
   * and when distcc cannot tell, the local cores.
   */
  public static int defaultJobs(List<String> launcher, ProcessRunner runner, Map<String, String> environment,
      int cores) {
    Optional<String> farm = farmIn(launcher);
    if (farm.isEmpty() || !farm.get().equals("distcc")) {
      return cores;
    }
    String distcc = launcher.stream().filter(w -> baseName(w).equals("distcc")).findFirst().orElseThrow();
    try {
      ProcessResult result = runner.run(List.of(distcc, "-j"), Path.of("."), environment);
      int slots = Integer.parseInt(result.output().strip());
      return result.succeeded() && slots > 0 ? slots : cores;
    } catch (IOException | NumberFormatException e) {
      return cores;
    }
  }

  private static String baseName(String word) {
    Path name = Path.of(word).getFileName();
    return name == null ? word : name.toString();
  }
}
