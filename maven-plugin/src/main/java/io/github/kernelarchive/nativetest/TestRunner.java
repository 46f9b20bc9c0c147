package io.github.kernelarchive.nativetest;

import io.github.kernelarchive.common.BuildLog;
import io.github.kernelarchive.nativetest.TestResult.Outcome;
import io.github.kernelarchive.util.BoundedPool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Runs linked test programs, CPU ones {@code jobs} at a time and GPU ones (CUDA, HIP) {@code gpuJobs}
 * at a time, each in a working folder of its own with a timeout. Exit status 0 passes; 77 skips,
 * with the last line the program wrote to standard error as the reason (the Automake and CTest
 * convention); anything else, a signal or the timeout fails. Each program starts in a session of
 * its own ({@code setsid}), so a timeout kills the program and whatever it started.
 */
public final class TestRunner {
  /** What a program exits with to say it cannot run here. */
  public static final int SKIP_STATUS = 77;
  private static final int OUTPUT_TAIL_LINES = 40;
  private static final Path SETSID = Path.of("/usr/bin/setsid");

  /** A program ready to run: its executable, and what to run it under (compute-sanitizer), if anything. */
  public record Runnable(TestProgram program, Path executable, List<String> wrapper) {}

  private final int jobs;
  private final int gpuJobs;
  private final Duration timeout;
  private final Map<String, String> environment;
  private final Path runDirectory;
  private final BuildLog log;

  public TestRunner(int jobs, int gpuJobs, Duration timeout, Map<String, String> environment, Path runDirectory,
      BuildLog log) {
    this.jobs = Math.max(1, jobs);
    this.gpuJobs = Math.max(1, gpuJobs);
    this.timeout = timeout;
    this.environment = Map.copyOf(environment);
    this.runDirectory = runDirectory;
    this.log = log;
  }

  /** Runs every program; the results in the order given. One {@code [n/N]} line per finished program. */
  public List<TestResult> run(List<Runnable> programs) throws InterruptedException {
    TestResult[] results = new TestResult[programs.size()];
    // GPU programs hold a permit while they run: CPU programs fill the other slots meanwhile.
    Semaphore gpu = new Semaphore(gpuJobs);
    try (BoundedPool<Integer> pool = new BoundedPool<>("kernel-test", jobs)) {
      for (int i = 0; i < programs.size(); i++) {
        int index = i;
        Runnable runnable = programs.get(i);
        pool.submit(() -> {
          if (runnable.program().gpu()) {
            gpu.acquire();
            try {
              results[index] = runOne(runnable);
            } finally {
              gpu.release();
            }
          } else {
            results[index] = runOne(runnable);
          }
          return index;
        });
      }
      pool.awaitAll((done, total, index) -> report(done, total, results[index]));
    }
    return List.of(results);
  }

  private void report(int done, int total, TestResult result) {
    String line = "[" + done + "/" + total + "] " + switch (result.outcome()) {
      case PASSED -> "PASS";
      case FAILED -> "FAIL";
      case SKIPPED -> "SKIP";
      case ERROR -> "ERROR";
    } + " " + result.name() + String.format(Locale.ROOT, " (%.2f s)", result.seconds())
        + (result.message() == null ? "" : ": " + result.message());
    if (result.outcome() == Outcome.FAILED || result.outcome() == Outcome.ERROR) {
      log.error(line);
    } else {
      log.info(line);
    }
  }

  private TestResult runOne(Runnable runnable) {
    String name = runnable.program().name();
    Path folder = runDirectory.resolve(name);
    Path out = folder.resolve("stdout.txt");
    Path err = folder.resolve("stderr.txt");
    long start = System.nanoTime();
    Process process;
    try {
      Files.createDirectories(folder);
      List<String> argv = new ArrayList<>();
      if (Files.isExecutable(SETSID)) {
        argv.add(SETSID.toString());
      }
      argv.addAll(runnable.wrapper());
      argv.add(runnable.executable().toString());
      ProcessBuilder builder = new ProcessBuilder(argv).directory(folder.toFile())
          .redirectOutput(out.toFile()).redirectError(err.toFile());
      builder.environment().putAll(environment);
      process = builder.start();
      process.getOutputStream().close();
    } catch (IOException e) {
      return new TestResult(name, Outcome.ERROR, "could not be started: " + e.getMessage(), null, 0, "", "");
    }
    boolean finished;
    try {
      finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      killGroup(process);
      Thread.currentThread().interrupt();
      return new TestResult(name, Outcome.ERROR, "interrupted", null, secondsSince(start), "", "");
    }
    if (!finished) {
      killGroup(process);
    }
    double seconds = secondsSince(start);
    String stdout = read(out);
    String stderr = read(err);
    if (!finished) {
      return new TestResult(name, Outcome.FAILED, "timed out after " + timeout.toSeconds()
          + " s (kernel.test.timeout); its process group was killed", tail(stdout, stderr), seconds, stdout, stderr);
    }
    int status = process.exitValue();
    if (status == 0) {
      return new TestResult(name, Outcome.PASSED, null, null, seconds, stdout, stderr);
    }
    if (status == SKIP_STATUS) {
      return new TestResult(name, Outcome.SKIPPED, lastLine(stderr).orElse("exit status 77, no reason given"), null,
          seconds, stdout, stderr);
    }
    return new TestResult(name, Outcome.FAILED, failure(status, stdout + stderr), tail(stdout, stderr), seconds,
        stdout, stderr);
  }

  /**
   * Why the program failed: a sanitizer's report when one is in its output, then the signal
   * (a shell's 128 + n, which Java reports for a process killed by signal n) or the exit status.
   */
  static String failure(int status, String output) {
    String how = status > 128 && status < 128 + 32 ? "signal " + Signals.name(status - 128) + " (exit status " + status
        + ")" : "exit status " + status;
    for (String line : output.lines().toList()) {
      int at = line.indexOf("ERROR: ");
      String report = at >= 0 ? line.substring(at + 7) : line.contains("runtime error:") ? line.strip() : null;
      if (report != null && (report.contains("Sanitizer") || line.contains("runtime error:"))) {
        return (line.contains("runtime error:") ? "UndefinedBehaviorSanitizer: " : "") + report.strip() + "; " + how;
      }
      if (line.contains("========= ERROR SUMMARY:") && !line.contains(" 0 errors")) {
        return "compute-sanitizer: " + line.replace("=========", "").strip() + "; " + how;
      }
    }
    return how;
  }

  /** Kills the program's session (its pid is the group's id, from setsid) and anything it left. */
  private static void killGroup(Process process) {
    try {
      new ProcessBuilder("kill", "-KILL", "--", "-" + process.pid()).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      // kill is missing: the descendants below are still reached
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static java.util.Optional<String> lastLine(String text) {
    List<String> lines = text.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    return lines.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(lines.get(lines.size() - 1));
  }

  /** The last lines of the output, standard error after standard output, for the failure's detail. */
  private static String tail(String stdout, String stderr) {
    List<String> lines = new ArrayList<>(stdout.lines().toList());
    lines.addAll(stderr.lines().toList());
    return String.join("\n", lines.subList(Math.max(0, lines.size() - OUTPUT_TAIL_LINES), lines.size()));
  }

  private static String read(Path file) {
    try {
      return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  private static double secondsSince(long start) {
    return (System.nanoTime() - start) / 1e9;
  }
}
