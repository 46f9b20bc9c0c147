package io.github.kernelarchive.compile;

import io.github.kernelarchive.common.BuildLog;
import io.github.kernelarchive.compile.IncrementalPlanner.Planned;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.toolchain.ProcessResult;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.util.BoundedPool;
import io.github.kernelarchive.util.Trace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;

/**
 * Runs compile jobs on a bounded pool. Every finished job prints one {@code [n/N]} line as it
 * finishes; a failure prints the compiler's own output and the remaining jobs still run, so one
 * build reports every broken source.
 *
 * <p>With a compile farm the pool may be larger than this machine ({@code kernel.jobs} counts the
 * farm's slots), so jobs that run here (nvcc and hipcc, which the farm never gets, and every job
 * without a farm) also take one of {@code localSlots} permits: the machine is not oversubscribed.
 * A job the farm failed for its own reasons (a host that died, refused or timed out) is compiled
 * once more locally, and its {@code [n/N]} line says so.
 */
public final class CompileExecutor {

  /**
   * The result of one job. {@code result} is null when the compiler could not be started or did
   * not need to run ({@code restored}: the object came from the cache); {@code problem} says what
   * went wrong outside the compiler's own output; {@code fallback}, when not null, why the farm's
   * attempt was replaced by a local compile.
   */
  public record Outcome(Planned planned, ProcessResult result, String problem, boolean restored, String fallback,
      String host) {
    Outcome(Planned planned, ProcessResult result, String problem, boolean restored) {
      this(planned, result, problem, restored, null, null);
    }

    public boolean succeeded() {
      return restored || result != null && result.succeeded() && problem == null;
    }
  }

  /** Where objects come from instead of the compiler, and what keeps the ones compiled. */
  public interface ObjectStore {
    /** Puts the planned object in place from a cache; false when it must be compiled. */
    boolean restore(Planned planned) throws IOException, InterruptedException;

    /** Called on the worker thread right after a compile succeeded (records state while others run). */
    void compiled(Planned planned) throws IOException;
  }

  private final ProcessRunner runner;
  private final int parallelism;
  private final Semaphore localSlots;
  private final Path workingDirectory;
  private final SlurmLauncher cluster;
  private final BuildLog log;

  /**
   * @param localSlots jobs that may run on this machine at once, whatever the pool's size
   * @param cluster where the jobs it takes run ({@code null}: none)
   */
  public CompileExecutor(ProcessRunner runner, int parallelism, int localSlots, Path workingDirectory,
      SlurmLauncher cluster, BuildLog log) {
    this.runner = runner;
    this.parallelism = Math.max(1, parallelism);
    this.localSlots = new Semaphore(Math.max(1, Math.min(localSlots, this.parallelism)));
    this.workingDirectory = workingDirectory;
    this.cluster = cluster;
    this.log = log;
  }

  public List<Outcome> run(List<Planned> planned, ObjectStore listener) throws InterruptedException {
    List<Outcome> outcomes = new ArrayList<>();
    List<Callable<Outcome>> tasks = new ArrayList<>();
    for (Planned job : longestFirst(planned)) {
      tasks.add(() -> compile(job, listener));
    }
    BoundedPool.run("kernel-compile", parallelism, tasks, (done, total, outcome) -> {
      outcomes.add(outcome);
      report(done, total, outcome);
    });
    return outcomes;
  }

  private Outcome compile(Planned planned, ObjectStore store) throws InterruptedException {
    try (Trace.Span span = Trace.current().span(planned.job().source().displayName(), "compile")) {
      Outcome outcome = compileOrRestore(planned, store);
      span.detail(outcome.restored() ? "from cache" : outcome.succeeded() ? "compiled" : "failed");
      return outcome;
    }
  }

  private Outcome compileOrRestore(Planned planned, ObjectStore store) throws InterruptedException {
    CompileJob job = planned.job();
    try {
      Files.createDirectories(job.object().getParent());
      if (store.restore(planned)) {
        return new Outcome(planned, null, null, true);
      }
      Run run;
      try {
        run = run(job);
      } catch (CouldNotStart e) {
        return new Outcome(planned, null, e.getMessage(), false, e.fallback, null);
      }
      if (run.result().succeeded()) {
        if (job.source().language() == Language.CUDA) {
          NvccObjects.normalize(job.object());
        }
        store.compiled(planned);
      }
      return new Outcome(planned, run.result(), null, false, run.fallback(), run.host());
    } catch (IOException e) {
      return new Outcome(planned, null, "its object could not be stored or recorded: " + e.getMessage(), false);
    }
  }

  /** What running a job gave: the result, why the farm's attempt was replaced (or null), the host that ran it. */
  private record Run(ProcessResult result, String fallback, String host) {}

  /** A compiler (or the launcher before it) that could not be started at all. */
  private static final class CouldNotStart extends Exception {
    private final String fallback;

    CouldNotStart(List<String> commandLine, IOException cause, String fallback) {
      super("could not start " + commandLine.get(0) + ": " + cause.getMessage(), cause);
      this.fallback = fallback;
    }
  }

  /**
   * Runs the job here, or through the farm its launcher names; a farm that fails for its own
   * reasons (distcc's exit codes 100-127, or a launcher that cannot start) gets the job compiled
   * once more here, without the farm.
   */
  private Run run(CompileJob job) throws CouldNotStart, InterruptedException {
    if (cluster != null && cluster.takes(job)) {
      return runOnCluster(job);
    }
    Optional<String> farm = FarmLauncher.farmIn(job.launcher());
    if (farm.isEmpty()) {
      return new Run(runLocally(job.commandLine(), job, null), null, null);
    }
    String fallback;
    try {
      Map<String, String> environment = FarmLauncher.runEnvironment(farm.get(), job.environment());
      ProcessResult result = runner.run(job.commandLine(), workingDirectory, environment);
      FarmLauncher.Report report = FarmLauncher.read(farm.get(), result.output(), environment != job.environment());
      result = new ProcessResult(result.exitCode(), report.output());
      if (!FarmLauncher.farmFailed(result)) {
        return new Run(result, null, report.host());
      }
      fallback = farm.get() + " failed (exit " + result.exitCode() + ": "
          + result.output().strip().lines().reduce((first, last) -> last).orElse("no output") + ")";
    } catch (IOException e) {
      fallback = farm.get() + " could not be started (" + e.getMessage() + ")";
    }
    // The farm's failure, not the source's: once more here (a half-written object is overwritten).
    List<String> local = new ArrayList<>(FarmLauncher.local(job.launcher()));
    local.addAll(job.argv());
    return new Run(runLocally(local, job, fallback), fallback, null);
  }

  /**
   * Runs the job on the Slurm cluster; when the cluster failed it (not the compiler), compiles it
   * once more here, and its {@code [n/N]} line says why.
   */
  private Run runOnCluster(CompileJob job) throws CouldNotStart, InterruptedException {
    String fallback;
    try {
      SlurmLauncher.Result result = cluster.run(job, workingDirectory);
      if (result.clusterFailure() == null) {
        return new Run(result.result(), null, result.node());
      }
      fallback = "the cluster failed it: " + result.clusterFailure();
    } catch (IOException e) {
      fallback = "srun could not be started (" + e.getMessage() + ")";
    }
    List<String> local = new ArrayList<>(FarmLauncher.local(job.launcher()));
    local.addAll(job.argv());
    return new Run(runLocally(local, job, fallback), fallback, null);
  }

  /** Runs a command that uses this machine's cores, within the local slots. */
  private ProcessResult runLocally(List<String> commandLine, CompileJob job, String fallback)
      throws CouldNotStart, InterruptedException {
    localSlots.acquire();
    try {
      return runner.run(commandLine, workingDirectory, job.environment());
    } catch (IOException e) {
      throw new CouldNotStart(commandLine, e, fallback);
    } finally {
      localSlots.release();
    }
  }

  private void report(int done, int total, Outcome outcome) {
    CompileJob job = outcome.planned().job();
    String line = "[" + done + "/" + total + "] " + job.source().language().label() + " " + job.source().displayName()
        + (outcome.fallback() == null ? "" : " (" + outcome.fallback() + "; compiled locally)")
        + (outcome.host() == null ? "" : " on " + outcome.host());
    if (outcome.restored()) {
      log.info(line + " (from cache)");
      return;
    }
    if (outcome.succeeded()) {
      log.info(line);
      if (!outcome.result().output().isBlank()) {
        log.warn(outcome.result().output().stripTrailing());
      }
      return;
    }
    log.error(line + " FAILED");
    if (outcome.problem() != null) {
      log.error(outcome.problem());
    } else if (outcome.result().output().isBlank()) {
      log.error("exit code " + outcome.result().exitCode() + " and no output from: " + String.join(" ", job.commandLine()));
    } else {
      log.error(outcome.result().output().stripTrailing());
    }
  }

  /**
   * GPU sources take many times longer than C++ ones; starting the longest jobs first keeps the
   * pool from ending on one slow straggler.
   */
  private static List<Planned> longestFirst(List<Planned> planned) {
    Comparator<Planned> byLanguage = Comparator.comparing(p -> isGpu(p.job().source().language()) ? 0 : 1);
    Comparator<Planned> bySize = Comparator.comparingLong(p -> -sizeOf(p.job().source().path()));
    List<Planned> ordered = new ArrayList<>(planned);
    ordered.sort(byLanguage.thenComparing(bySize));
    return ordered;
  }

  private static boolean isGpu(Language language) {
    return language == Language.CUDA || language == Language.HIP;
  }

  private static long sizeOf(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return 0;
    }
  }
}
