package io.github.kernelarchive.nativetest;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.BuildLog;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.nativetest.SurefireReport.Counts;
import io.github.kernelarchive.nativetest.TestResult.Outcome;
import io.github.kernelarchive.pipeline.KernelBuild;
import io.github.kernelarchive.pipeline.KernelBuildRequest;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.toolchain.CudaLibraries;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.toolchain.Toolchain;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The test goal's engine: finds the test programs, compiles them with the library's toolchain and
 * flags (incrementally, through the cache), links them against the library, runs them and writes
 * the Surefire report. With sanitizers, the library is first built again with them into an output
 * folder of its own, and the programs are linked against that one.
 */
public final class NativeTests {
  /** What the run found; {@code report} is null when nothing ran. */
  public record Summary(List<TestResult> results, Counts counts, Path report) {
    static Summary none() {
      return new Summary(List.of(), new Counts(0, 0, 0, 0), null);
    }

    /** Failed and errored programs, each with why: for the build's error message. */
    public List<String> problems() {
      return results.stream().filter(r -> r.outcome() == Outcome.FAILED || r.outcome() == Outcome.ERROR)
          .map(r -> r.name() + " (" + r.message() + ")").toList();
    }
  }

  private final BuildLog log;
  private final Map<String, String> environment;

  /** @param environment the environment the build runs in (tools and test programs see it) */
  public NativeTests(BuildLog log, Map<String, String> environment) {
    this.log = log;
    this.environment = Map.copyOf(environment);
  }

  public Summary run(KernelBuildRequest build, TestSettings settings)
      throws BuildFailureException, ToolchainException, IOException, InterruptedException {
    TestPrograms programs = TestPrograms.scan(settings.sources());
    if (programs.programs().isEmpty()) {
      log.info("No native test programs in " + settings.sources());
      return Summary.none();
    }
    List<TestProgram> selected = programs.select(settings.filter(), settings.sources());
    KernelBuildRequest library = build;
    if (!settings.sanitizers().isEmpty()) {
      library = Sanitized.request(build, settings.sanitizers());
      log.info("Building lib" + build.project().libraryName() + ".so with -fsanitize="
          + String.join(",", settings.sanitizers()) + " in " + library.project().outputDirectory());
      new KernelBuild(log, environment).run(library);
    }
    Path output = library.project().outputDirectory();
    Path libraryFile = output.resolve("lib" + build.project().libraryName() + ".so");
    if (!Files.isRegularFile(libraryFile)) {
      throw new BuildFailureException("The native tests need " + libraryFile + ", which the build goal did not make."
          + " Run them with the build (mvn verify runs the build goal in the compile phase, before the tests).");
    }
    Toolchain toolchain = new Toolchain(build.toolchain(), environment);
    Optional<Tool> nvcc = toolchain.compiler(Language.CUDA);
    if (toolchain.platform().cross() && nvcc.isPresent()
        && CudaLibraries.crossDirectory(nvcc.get(), toolchain.runner(), toolchain.platform()).isEmpty()) {
      log.info("CUDA test programs for " + toolchain.platform() + " reach the CUDA runtime through a stub: "
          + nvcc.get().command() + "'s install has no runtime built for it to link them with.");
    }
    ComputeSanitizer.Found computeSanitizer = computeSanitizer(settings, toolchain);
    TestBuild testBuild = new TestBuild(library, settings, toolchain, log);
    TestBuild.Built built = testBuild.build(programs, computeSanitizer.tool());
    if (!settings.run()) {
      log.info("Tests are skipped (skipTests): " + built.runnable().size() + " native test programs built in "
          + testBuild.output().resolve("bin"));
      return Summary.none();
    }
    List<TestResult> results = runSelected(selected, built, settings, testBuild.output().resolve("run"));
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("library", libraryFile.toString());
    properties.put("kernel.test.sanitize", String.join(",", settings.sanitizers()));
    properties.put("kernel.test.whiteBox", Boolean.toString(settings.whiteBox()));
    if (settings.computeSanitizer() != null) {
      properties.put("kernel.test.computeSanitizer", computeSanitizer.note());
    }
    Path report = SurefireReport.write(settings.reportsDirectory(), settings.suite(), results, properties);
    Counts counts = Counts.of(results);
    logSummary(settings.suite(), results, counts, report);
    return new Summary(results, counts, report);
  }

  /**
   * Runs the selected programs that were built; the results in the order of {@code selected}, the
   * programs that could not be built among them as skipped.
   */
  private List<TestResult> runSelected(List<TestProgram> selected, TestBuild.Built built, TestSettings settings,
      Path runDirectory) throws InterruptedException {
    Map<String, String> runEnvironment = new HashMap<>(environment);
    runEnvironment.putAll(Sanitized.runtimeOptions(settings.sanitizers(), environment));
    runEnvironment.putAll(settings.environment());
    List<TestRunner.Runnable> chosen = built.runnable().stream().filter(r -> selected.contains(r.program())).toList();
    selected.stream().filter(p -> built.notBuilt().containsKey(p.name()))
        .forEach(p -> log.info("SKIP " + p.name() + ": " + built.notBuilt().get(p.name()).message()));
    List<String> emulator = settings.platform().emulator();
    if (!emulator.isEmpty()) {
      // Built for another platform: each program runs under its emulator, with that platform's libraries.
      if (!onPath(emulator.get(0))) {
        String why = "built for " + settings.platform() + ", which runs here under " + emulator.get(0)
            + ", not installed (apt-get install qemu-user-static)";
        log.info("SKIP " + chosen.size() + " native test programs " + why);
        Map<String, TestResult> byName = new LinkedHashMap<>(built.notBuilt());
        chosen.forEach(r -> byName.put(r.program().name(), new TestResult(r.program().name(), Outcome.SKIPPED, why, "",
            0, "", "")));
        return selected.stream().map(p -> byName.get(p.name())).toList();
      }
      chosen = chosen.stream().map(r -> {
        List<String> wrapper = new ArrayList<>(r.wrapper());
        wrapper.addAll(emulator);
        return new TestRunner.Runnable(r.program(), r.executable(), wrapper);
      }).toList();
    }
    int jobs = settings.jobs() > 0 ? settings.jobs() : Runtime.getRuntime().availableProcessors();
    List<TestResult> ran = new TestRunner(jobs, settings.gpuJobs(), settings.timeout(), runEnvironment, runDirectory,
        log).run(chosen);
    Map<String, TestResult> byName = new LinkedHashMap<>(built.notBuilt());
    ran.forEach(r -> byName.put(r.name(), r));
    return selected.stream().map(p -> byName.get(p.name())).toList();
  }

  private boolean onPath(String executable) {
    return environment.getOrDefault("PATH", "").lines().flatMap(p -> List.of(p.split(":")).stream())
        .anyMatch(folder -> !folder.isEmpty() && Files.isExecutable(Path.of(folder, executable)));
  }

  /** One block at the end, as the build's summary: Surefire's line, what did not pass, the report. */
  private void logSummary(String suite, List<TestResult> results, Counts counts, Path report) {
    log.info("------------------------------------------------------------------------");
    log.info("Native tests (" + suite + ")");
    log.info(counts.toString());
    results.stream().filter(r -> r.outcome() != Outcome.PASSED)
        .forEach(r -> log.info("  " + r.outcome().name().toLowerCase(Locale.ROOT) + "  " + r.name() + ": "
            + r.message()));
    log.info("  report    " + report);
    log.info("------------------------------------------------------------------------");
  }

  /** compute-sanitizer for the CUDA programs, when asked for, installed, and a GPU is visible. */
  private ComputeSanitizer.Found computeSanitizer(TestSettings settings, Toolchain toolchain)
      throws ToolchainException {
    if (settings.computeSanitizer() == null) {
      return new ComputeSanitizer.Found(Optional.empty(), "not asked for");
    }
    Optional<Tool> nvcc = toolchain.compiler(Language.CUDA);
    ComputeSanitizer.Found found = ComputeSanitizer.find(settings.computeSanitizer(),
        nvcc.map(n -> CudaLibraries.root(n, toolchain.runner())).orElse(null), environment);
    if (found.tool().isEmpty()) {
      log.warn("compute-sanitizer is not applied to the CUDA test programs: " + found.note());
    } else {
      log.info("CUDA test programs run under " + String.join(" ", found.tool().get().argv()));
    }
    return found;
  }
}
