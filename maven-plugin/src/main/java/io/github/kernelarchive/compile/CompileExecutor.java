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
import java.util.concurrent.Callable;

/**
 * Runs compile jobs on a bounded pool. Every finished job prints one {@code [n/N]} line as it
 * finishes; a failure prints the compiler's own output and the remaining jobs still run, so one
 * build reports every broken source.
 */
public final class CompileExecutor {

  /**
   * The result of one job. {@code result} is null when the compiler could not be started or did
   * not need to run ({@code restored}: the object came from the cache); {@code problem} says what
   * went wrong outside the compiler's own output.
   */
  public record Outcome(Planned planned, ProcessResult result, String problem, boolean restored) {
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
  private final Path workingDirectory;
  private final BuildLog log;

  public CompileExecutor(ProcessRunner runner, int parallelism, Path workingDirectory, BuildLog log) {
    this.runner = runner;
    this.parallelism = Math.max(1, parallelism);
    this.workingDirectory = workingDirectory;
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
      ProcessResult result;
      try {
        result = runner.run(job.commandLine(), workingDirectory, job.environment());
      } catch (IOException e) {
        return new Outcome(planned, null, "could not start " + job.commandLine().get(0) + ": " + e.getMessage(),
            false);
      }
      if (result.succeeded()) {
        store.compiled(planned);
      }
      return new Outcome(planned, result, null, false);
    } catch (IOException e) {
      return new Outcome(planned, null, "its object could not be stored or recorded: " + e.getMessage(), false);
    }
  }

  private void report(int done, int total, Outcome outcome) {
    CompileJob job = outcome.planned().job();
    String line = "[" + done + "/" + total + "] " + job.source().language().label() + " " + job.source().displayName();
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
