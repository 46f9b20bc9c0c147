package io.github.kernelarchive.compile;

import io.github.kernelarchive.toolchain.ProcessResult;
import io.github.kernelarchive.toolchain.ProcessRunner;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

  /**
   * The environment a farm job runs with: for distcc, its verbose mode, the only way it tells
   * which host ran a compile. Added when the job runs, never to the job's own environment, which
   * is part of its cache key (an object compiled on the farm must share the local one's key).
   */
  static Map<String, String> runEnvironment(String farm, Map<String, String> jobEnvironment) {
    if (!farm.equals("distcc") || jobEnvironment.containsKey("DISTCC_VERBOSE")
        || System.getenv("DISTCC_VERBOSE") != null) {
      return jobEnvironment;
    }
    Map<String, String> environment = new HashMap<>(jobEnvironment);
    environment.put("DISTCC_VERBOSE", "1");
    return environment;
  }

  /** What a farm job printed, and the host it says ran the compile (null when it does not say). */
  record Report(String output, String host) {}

  private static final Pattern DISTCC_LINE = Pattern.compile("^distcc\\[\\d+\\] .*");
  private static final Pattern DISTCC_EXEC =
      Pattern.compile("^distcc\\[\\d+\\] exec on ([^:/\\s]+(?::\\d+)?)[^:]*: .*");
  private static final Pattern DISTCC_NOTICE =
      Pattern.compile("^distcc\\[\\d+\\] (ERROR|Warning|\\(dcc_build_somewhere\\) (ERROR|Warning)).*");

  /**
   * Reads distcc's verbose output (when {@link #runEnvironment} turned it on): the last host it ran
   * the compile on, and the output without distcc's trace lines (its warnings and errors stay).
   */
  static Report read(String farm, String output, boolean verboseAdded) {
    if (!farm.equals("distcc")) {
      return new Report(output, null);
    }
    String host = null;
    List<String> kept = new ArrayList<>();
    for (String line : output.split("\n", -1)) {
      Matcher exec = DISTCC_EXEC.matcher(line);
      if (exec.matches()) {
        host = exec.group(1);
      }
      if (!DISTCC_LINE.matcher(line).matches() || DISTCC_NOTICE.matcher(line).matches()) {
        kept.add(line);
      }
    }
    return new Report(verboseAdded ? String.join("\n", kept).strip() : output, host);
  }

  private static String baseName(String word) {
    Path name = Path.of(word).getFileName();
    return name == null ? word : name.toString();
  }
}
