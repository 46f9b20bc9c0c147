package io.github.kernelarchive.pythontest;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.BuildLog;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.nativetest.SurefireReport;
import io.github.kernelarchive.nativetest.TestResult;
import io.github.kernelarchive.nativetest.TestResult.Outcome;
import io.github.kernelarchive.toolchain.ProcessResult;
import io.github.kernelarchive.toolchain.ProcessRunner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.codehaus.plexus.util.FileUtils;

/**
 * Runs {@code src/test/python/test_*.py} against the wheel as a user gets it: installed with
 * {@code pip install --no-index} (dependencies from the {@code --find-links} folders only) into a
 * fresh virtualenv under {@code target/}, imported from outside the source tree. Each file is one
 * test, run with pytest when the venv has it, else with plain {@code python} (exit 0 passes, 77
 * skips); results go to Surefire's XML like the native tests'.
 */
public final class PythonTests {
  /**
   * @param python the interpreter that makes the venv ({@code kernel.python})
   * @param workDirectory holds the venv; emptied first
   * @param filter glob of the test files' names to run ({@code kernel.test}), or null for all
   */
  public record Request(Path wheel, Path testSources, Path workDirectory, Path reportsDirectory, String python,
      List<Path> findLinks, String filter, Duration timeout) {
    public Request {
      findLinks = List.copyOf(findLinks);
    }
  }

  public record Summary(List<TestResult> results, Path report) {
    public List<String> problems() {
      return results.stream().filter(r -> r.outcome() == Outcome.FAILED || r.outcome() == Outcome.ERROR)
          .map(r -> r.name() + ": " + r.message()).toList();
    }
  }

  /** The suite's name in the report: {@code TEST-python.xml}. */
  public static final String SUITE = "python";

  private final BuildLog log;
  private final ProcessRunner runner = new ProcessRunner(Map.of());

  public PythonTests(BuildLog log) {
    this.log = log;
  }

  public Summary run(Request request) throws BuildFailureException, ToolchainException, IOException {
    List<Path> tests = tests(request);
    if (tests.isEmpty()) {
      return new Summary(List.of(), null);
    }
    Path venv = request.workDirectory().resolve("venv");
    FileUtils.deleteDirectory(venv.toFile());
    Files.createDirectories(request.workDirectory());
    tool(List.of(request.python(), "-m", "venv", venv.toString()), "make a virtualenv with " + request.python()
        + " (Debian: apt-get install python3-venv; or point kernel.python at a Python with venv)");
    Path python = venv.resolve("bin/python");
    List<String> install = new ArrayList<>(List.of(python.toString(), "-m", "pip", "install", "--no-index",
        "--disable-pip-version-check", "--no-warn-script-location"));
    request.findLinks().forEach(f -> install.addAll(List.of("--find-links", f.toString())));
    install.add(request.wheel().toString());
    ProcessResult installed = runner.run(install, request.workDirectory());
    if (!installed.succeeded()) {
      throw new BuildFailureException("pip could not install " + request.wheel().getFileName() + " into the test"
          + " venv (offline: its Requires-Dist must be in the <wheel><findLinks> folders):\n" + installed.output());
    }
    boolean pytest = runner.run(List.of(python.toString(), "-c", "import pytest"), request.workDirectory()).succeeded();
    List<TestResult> results = new ArrayList<>();
    int n = 0;
    for (Path test : tests) {
      TestResult result = runOne(python, pytest, test, request);
      results.add(result);
      log.info("[" + (++n) + "/" + tests.size() + "] " + result.outcome() + " " + result.name()
          + (result.outcome() == Outcome.PASSED ? "" : ": " + result.message()));
    }
    Path report = SurefireReport.write(request.reportsDirectory(), SUITE, results,
        Map.of("wheel", request.wheel().getFileName().toString(), "runner", pytest ? "pytest" : "python"));
    return new Summary(results, report);
  }

  private static List<Path> tests(Request request) throws IOException {
    if (!Files.isDirectory(request.testSources())) {
      return List.of();
    }
    PathMatcher filter = request.filter() == null ? null
        : FileSystems.getDefault().getPathMatcher("glob:" + request.filter());
    try (Stream<Path> files = Files.list(request.testSources())) {
      return files.filter(p -> p.getFileName().toString().matches("test_.*\\.py"))
          .filter(p -> filter == null || filter.matches(p.getFileName())
              || filter.matches(Path.of(p.getFileName().toString().replaceAll("\\.py$", ""))))
          .sorted().toList();
    }
  }

  /** One file in the venv, from the work folder (not the sources: the import must find the installed package). */
  private TestResult runOne(Path python, boolean pytest, Path test, Request request) throws IOException {
    String name = test.getFileName().toString().replaceAll("\\.py$", "");
    List<String> argv = pytest ? List.of(python.toString(), "-m", "pytest", "-q", "-p", "no:cacheprovider", test.toString())
        : List.of(python.toString(), test.toString());
    Path stdout = request.workDirectory().resolve(name + ".out");
    Path stderr = request.workDirectory().resolve(name + ".err");
    ProcessBuilder builder = new ProcessBuilder(argv).directory(request.workDirectory().toFile())
        .redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
    builder.environment().remove("PYTHONPATH");
    long start = System.nanoTime();
    Process process = builder.start();
    boolean finished;
    try {
      finished = process.waitFor(request.timeout().toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      finished = false;
    }
    if (!finished) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    String out = Files.readString(stdout, StandardCharsets.UTF_8);
    String err = Files.readString(stderr, StandardCharsets.UTF_8);
    if (!finished) {
      return new TestResult(name, Outcome.FAILED, "timed out after " + request.timeout().toSeconds() + " s", err,
          seconds, out, err);
    }
    int exit = process.exitValue();
    if (exit == 0) {
      return new TestResult(name, Outcome.PASSED, "", "", seconds, out, err);
    }
    if (exit == 77 && !pytest) {
      List<String> lines = err.strip().lines().toList();
      return new TestResult(name, Outcome.SKIPPED, lines.isEmpty() ? "exit 77" : lines.get(lines.size() - 1), "",
          seconds, out, err);
    }
    List<String> lines = (pytest ? out : err).strip().lines().toList();
    String last = lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    return new TestResult(name, Outcome.FAILED, "exit " + exit + (last.isEmpty() ? "" : ": " + last), err, seconds,
        out, err);
  }

  private void tool(List<String> argv, String what) throws ToolchainException {
    ProcessResult result;
    try {
      result = runner.run(argv, null);
    } catch (IOException e) {
      throw new ToolchainException("Could not " + what + ": " + e.getMessage());
    }
    if (!result.succeeded()) {
      throw new ToolchainException("Could not " + what + ":\n" + result.output());
    }
  }
}
