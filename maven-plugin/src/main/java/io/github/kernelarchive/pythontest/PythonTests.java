package io.github.kernelarchive.pythontest;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.BuildLog;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.nativetest.SurefireReport;
import io.github.kernelarchive.nativetest.TestResult;
import io.github.kernelarchive.nativetest.TestResult.Outcome;
import io.github.kernelarchive.toolchain.ProcessResult;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.wheelfile.WheelVerifier;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;
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
      List<Path> findLinks, String filter, Duration timeout, Emulated emulated) {
    public Request {
      findLinks = List.copyOf(findLinks);
    }
  }

  /**
   * A wheel of another platform, tested under its emulator: {@code emulator} runs
   * {@code interpreter}, a Python of that platform unpacked from its distribution's packages (no
   * venv, no pip there), with the wheel unpacked onto its {@code PYTHONPATH}, as an installer
   * would lay it out. {@code suite} names its report ({@code python-linux-aarch64}).
   */
  public record Emulated(List<String> emulator, Path interpreter, String suite) {
    public Emulated {
      emulator = List.copyOf(emulator);
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
    if (request.emulated() != null) {
      return runEmulated(request, tests);
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
    return runAll(List.of(python.toString()), pytest, tests, request, Map.of(), SUITE);
  }

  /** Each file in turn, one {@code [n/N]} line each, then the report. */
  private Summary runAll(List<String> python, boolean pytest, List<Path> tests, Request request,
      Map<String, String> environment, String suite) throws IOException {
    List<TestResult> results = new ArrayList<>();
    int n = 0;
    for (Path test : tests) {
      TestResult result = runOne(python, pytest, test, request, environment);
      results.add(result);
      log.info("[" + (++n) + "/" + tests.size() + "] " + result.outcome() + " " + result.name()
          + (result.outcome() == Outcome.PASSED ? "" : ": " + result.message()));
    }
    Path report = SurefireReport.write(request.reportsDirectory(), suite, results,
        Map.of("wheel", request.wheel().getFileName().toString(), "runner", pytest ? "pytest" : "python"));
    return new Summary(results, report);
  }

  /** The wheel unpacked into {@code site-packages/}, its files checked against RECORD first; the tests on the emulated Python. */
  private Summary runEmulated(Request request, List<Path> tests) throws BuildFailureException, IOException {
    Path site = request.workDirectory().resolve("site-packages");
    FileUtils.deleteDirectory(site.toFile());
    Files.createDirectories(site);
    try (ZipFile zip = ZipFile.builder().setPath(request.wheel()).get()) {
      List<ZipArchiveEntry> entries = Collections.list(zip.getEntries());
      String distInfo = entries.stream().map(ZipArchiveEntry::getName).filter(n -> n.endsWith(".dist-info/RECORD"))
          .map(n -> n.substring(0, n.length() - "/RECORD".length())).findFirst()
          .orElseThrow(() -> new BuildFailureException(request.wheel() + " has no .dist-info/RECORD"));
      WheelVerifier.verify(request.wheel(), distInfo);
      for (ZipArchiveEntry entry : entries) {
        Path file = site.resolve(entry.getName()).normalize();
        if (!file.startsWith(site) || entry.isDirectory()) {
          throw new BuildFailureException(request.wheel() + " holds " + entry.getName() + ", which no installer"
              + " would write into its site folder");
        }
        Files.createDirectories(file.getParent());
        try (InputStream in = zip.getInputStream(entry)) {
          Files.copy(in, file);
        }
      }
    }
    List<String> python = new ArrayList<>(request.emulated().emulator());
    python.add(request.emulated().interpreter().toString());
    log.info("Python tests of " + request.wheel().getFileName() + " under " + String.join(" ", python));
    return runAll(python, false, tests, request, Map.of("PYTHONPATH", site.toString()), request.emulated().suite());
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
  private TestResult runOne(List<String> python, boolean pytest, Path test, Request request,
      Map<String, String> environment) throws IOException {
    String name = test.getFileName().toString().replaceAll("\\.py$", "");
    List<String> argv = new ArrayList<>(python);
    argv.addAll(pytest ? List.of("-m", "pytest", "-q", "-p", "no:cacheprovider", test.toString())
        : List.of(test.toString()));
    Path stdout = request.workDirectory().resolve(name + ".out");
    Path stderr = request.workDirectory().resolve(name + ".err");
    ProcessBuilder builder = new ProcessBuilder(argv).directory(request.workDirectory().toFile())
        .redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
    builder.environment().remove("PYTHONPATH");
    builder.environment().putAll(environment);
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
