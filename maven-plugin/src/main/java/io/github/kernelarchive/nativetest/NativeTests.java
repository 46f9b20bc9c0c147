package io.github.kernelarchive.nativetest;

import io.github.kernelarchive.bundle.HostArchive;
import io.github.kernelarchive.cache.BuildCache;
import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.BuildLog;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.compile.CompileOptions;
import io.github.kernelarchive.compile.CompileStage;
import io.github.kernelarchive.nativetest.SurefireReport.Counts;
import io.github.kernelarchive.nativetest.TestResult.Outcome;
import io.github.kernelarchive.pipeline.KernelBuild;
import io.github.kernelarchive.pipeline.KernelBuildRequest;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.scan.SourceFile;
import io.github.kernelarchive.toolchain.CudaLibraries;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.util.ContentHashes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
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
    Path testOutput = output.resolve("test");
    Toolchain toolchain = new Toolchain(build.toolchain(), environment);
    Path hashFile = testOutput.resolve("state").resolve("file-hashes");
    ContentHashes hashes = ContentHashes.load(hashFile);
    BuildCache cache;
    try {
      cache = BuildCache.open(build.cache(), log).orElse(null);
    } catch (IllegalArgumentException e) {
      throw new BuildFailureException(e.getMessage());
    }
    int cores = Runtime.getRuntime().availableProcessors();
    int jobs = settings.jobs() > 0 ? settings.jobs() : cores;
    CompileStage compileStage = new CompileStage(toolchain, testOptions(library.compile()), testOutput,
        build.project().directory(), jobs, hashes, cache, log);
    CompileStage.Prepared prepared = compileStage.prepare(programs.sources());
    CompileStage.Result compiled;
    try {
      compiled = compileStage.compile(prepared, job -> true);
    } finally {
      hashes.save(hashFile);
    }
    Map<Path, Path> objects = new HashMap<>();
    prepared.jobs().forEach(job -> objects.put(job.source().path(), job.object()));
    List<Path> support = programs.support().stream().map(SourceFile::path).filter(objects::containsKey)
        .map(objects::get).toList();

    Map<String, TestResult> notBuilt = new LinkedHashMap<>();
    ComputeSanitizer.Found computeSanitizer = computeSanitizer(settings, toolchain);
    List<TestRunner.Runnable> runnable = link(programs, prepared, objects, support, toolchain, library, settings,
        hashes, testOutput, compileStage, computeSanitizer.tool(), notBuilt, compiled);
    hashes.save(hashFile);
    if (cache != null) {
      cache.finish();
    }
    if (!settings.run()) {
      log.info("Tests are skipped (skipTests): " + runnable.size() + " native test programs built in "
          + testOutput.resolve("bin"));
      return Summary.none();
    }
    Map<String, String> runEnvironment = new HashMap<>(environment);
    runEnvironment.putAll(Sanitized.runtimeOptions(settings.sanitizers(), environment));
    runEnvironment.putAll(settings.environment());
    List<TestRunner.Runnable> chosen = runnable.stream().filter(r -> selected.contains(r.program())).toList();
    selected.stream().filter(p -> notBuilt.containsKey(p.name()))
        .forEach(p -> log.info("SKIP " + p.name() + ": " + notBuilt.get(p.name()).message()));
    List<TestResult> ran = new TestRunner(jobs, settings.gpuJobs(), settings.timeout(), runEnvironment,
        testOutput.resolve("run"), log).run(chosen);
    Map<String, TestResult> byName = new LinkedHashMap<>(notBuilt);
    ran.forEach(r -> byName.put(r.name(), r));
    List<TestResult> results = selected.stream().map(p -> byName.get(p.name())).toList();
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("library", libraryFile.toString());
    properties.put("kernel.test.sanitize", String.join(",", settings.sanitizers()));
    properties.put("kernel.test.whiteBox", Boolean.toString(settings.whiteBox()));
    if (settings.computeSanitizer() != null) {
      properties.put("kernel.test.computeSanitizer", computeSanitizer.note());
    }
    Path report = SurefireReport.write(settings.reportsDirectory(), settings.suite(), results, properties);
    Counts counts = Counts.of(results);
    log.info("------------------------------------------------------------------------");
    log.info("Native tests (" + settings.suite() + ")");
    log.info(counts.toString());
    results.stream().filter(r -> r.outcome() != Outcome.PASSED)
        .forEach(r -> log.info("  " + r.outcome().name().toLowerCase(java.util.Locale.ROOT) + "  " + r.name() + ": "
            + r.message()));
    log.info("  report    " + report);
    log.info("------------------------------------------------------------------------");
    return new Summary(results, counts, report);
  }

  /**
   * Links every compiled program; a program whose main source has no compiler here is reported
   * as skipped (with the reason) rather than failing the build. Link failures fail the build,
   * all named at once.
   */
  private List<TestRunner.Runnable> link(TestPrograms programs, CompileStage.Prepared prepared, Map<Path, Path> objects,
      List<Path> support, Toolchain toolchain, KernelBuildRequest library, TestSettings settings, ContentHashes hashes,
      Path testOutput, CompileStage compileStage, Optional<ComputeSanitizer> computeSanitizer,
      Map<String, TestResult> notBuilt, CompileStage.Result compiled)
      throws ToolchainException, IOException, BuildFailureException, InterruptedException {
    Path output = library.project().outputDirectory();
    List<Path> archives = new ArrayList<>();
    Path hostArchive = output.resolve(HostArchive.fileName(library.project().libraryName()));
    if (Files.isRegularFile(hostArchive)) {
      archives.add(hostArchive);
    }
    library.sources().archives().forEach(name -> archives.add(output.resolve("lib" + name + ".a")));
    archives.removeIf(a -> !Files.isRegularFile(a));
    List<String> flags = new ArrayList<>(Sanitized.linkFlags(settings.sanitizers()));
    boolean cuda = prepared.jobs().stream().anyMatch(j -> j.source().language() == Language.CUDA);
    if (cuda) {
      Tool nvcc = toolchain.compiler(Language.CUDA).orElseThrow();
      flags.addAll(List.of("-L" + CudaLibraries.directory(nvcc, toolchain.runner()), "-lcudart_static", "-ldl",
          "-lpthread", "-lrt"));
    }
    if (prepared.jobs().stream().anyMatch(j -> j.source().language() == Language.HIP)) {
      // hipcc put the device code in the objects; the C++ driver links them with the HIP runtime.
      flags.add("-lamdhip64");
    }
    flags.addAll(settings.linkFlags());
    flags.addAll(library.link().linkFlags());
    TestLinker.Setup setup = new TestLinker.Setup(output.resolve("lib" + library.project().libraryName() + ".so"),
        archives, settings.whiteBox(), flags);
    if (settings.whiteBox() && library.compile().relocatableDeviceCode() && cuda) {
      throw new BuildFailureException("kernel.test.whiteBox=true cannot link CUDA tests against archives of"
          + " relocatable device code (<relocatableDeviceCode>true</relocatableDeviceCode>): test through the exports.");
    }
    TestLinker linker = new TestLinker(toolchain.runner(), hashes, testOutput.resolve("bin"),
        library.project().directory());
    String driver = toolchain.compiler(Language.CXX).orElseThrow(() -> new ToolchainException("No C++ compiler to link"
        + " the test programs with: install g++ or set kernel.cxx.")).command();
    List<TestRunner.Runnable> runnable = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    for (TestProgram program : programs.programs()) {
      Path object = objects.get(program.main().path());
      if (object == null) {
        notBuilt.put(program.name(), new TestResult(program.name(), Outcome.SKIPPED,
            "not built: " + compileStage.whyAbsent(program.main().language()), null, 0, "", ""));
        continue;
      }
      List<Path> inputs = new ArrayList<>(List.of(object));
      inputs.addAll(support);
      TestLinker.Failure failure = linker.link(program.name(), driver, inputs, setup);
      if (failure != null) {
        failures.add(failure.message());
        continue;
      }
      List<String> wrapper = program.main().language() == Language.CUDA && computeSanitizer.isPresent()
          ? computeSanitizer.get().argv() : List.of();
      runnable.add(new TestRunner.Runnable(program, linker.executable(program.name()), wrapper));
    }
    log.info("Test programs: " + compiled.compiled() + " compiled, " + compiled.upToDate() + " up to date"
        + (compiled.fromCache() == 0 ? "" : ", " + compiled.fromCache() + " from cache") + ", " + linker.counts());
    if (!failures.isEmpty()) {
      throw new BuildFailureException(String.join("\n\n", failures));
    }
    return runnable;
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

  /** The library's compile options for test code: default visibility (a test is a program, not an archive member). */
  private static CompileOptions testOptions(CompileOptions library) {
    return new CompileOptions(library.includeDirectories(), library.defines(), library.cFlags(), library.cxxFlags(),
        library.cudaFlags(), library.hipFlags(), library.cudaArchs(), library.relocatableDeviceCode(),
        library.hipArchs(), false, library.sourceRoot());
  }

}
