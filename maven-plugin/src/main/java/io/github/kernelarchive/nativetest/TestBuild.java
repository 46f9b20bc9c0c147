package io.github.kernelarchive.nativetest;

import io.github.kernelarchive.bundle.HostArchive;
import io.github.kernelarchive.cache.BuildCache;
import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.BuildLog;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.compile.CompileOptions;
import io.github.kernelarchive.compile.CompileStage;
import io.github.kernelarchive.deps.StubRequest;
import io.github.kernelarchive.glibc.GlibcFloor;
import io.github.kernelarchive.link.LinkSettings;
import io.github.kernelarchive.link.LinkStage;
import io.github.kernelarchive.nativetest.TestResult.Outcome;
import io.github.kernelarchive.pipeline.KernelBuildRequest;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.scan.SourceFile;
import io.github.kernelarchive.stub.StubStage;
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
 * Builds the test programs in {@code <library output>/test/}: compiled through {@link CompileStage}
 * with the library's toolchain and flags (incrementally, through the cache), then linked against
 * the library ({@link TestLinker}). A program whose compiler is missing here is skipped, saying
 * why; link failures fail the build, all named at once.
 */
final class TestBuild {
  /**
   * @param runnable the linked programs, ready to run
   * @param notBuilt programs that could not be compiled here, as skipped results
   */
  record Built(List<TestRunner.Runnable> runnable, Map<String, TestResult> notBuilt) {}

  private final KernelBuildRequest library;
  private final TestSettings settings;
  private final Toolchain toolchain;
  private final Path output;
  private final BuildLog log;

  /** @param library the request of the library the programs link against (the sanitized one, with sanitizers) */
  TestBuild(KernelBuildRequest library, TestSettings settings, Toolchain toolchain, BuildLog log) {
    this.library = library;
    this.settings = settings;
    this.toolchain = toolchain;
    this.output = library.project().outputDirectory().resolve("test");
    this.log = log;
  }

  Path output() {
    return output;
  }

  /** Compiles and links every program; CUDA programs run under {@code computeSanitizer} when present. */
  Built build(TestPrograms programs, Optional<ComputeSanitizer> computeSanitizer)
      throws BuildFailureException, ToolchainException, IOException, InterruptedException {
    Path hashFile = output.resolve("state").resolve("file-hashes");
    ContentHashes hashes = ContentHashes.load(hashFile);
    BuildCache cache;
    try {
      cache = BuildCache.open(library.cache(), log).orElse(null);
    } catch (IllegalArgumentException e) {
      throw new BuildFailureException(e.getMessage());
    }
    int jobs = settings.jobs() > 0 ? settings.jobs() : Runtime.getRuntime().availableProcessors();
    CompileStage stage = new CompileStage(toolchain, testOptions(library.compile()), output,
        library.project().directory(), jobs, hashes, cache, log);
    CompileStage.Prepared prepared = stage.prepare(programs.sources());
    CompileStage.Result compiled;
    try {
      compiled = stage.compile(prepared, job -> true);
    } finally {
      hashes.save(hashFile);
    }
    Map<Path, Path> objects = new HashMap<>();
    prepared.jobs().forEach(job -> objects.put(job.source().path(), job.object()));
    List<Path> support = programs.support().stream().map(SourceFile::path).filter(objects::containsKey)
        .map(objects::get).toList();

    TestLinker linker = new TestLinker(toolchain.runner(), hashes, output.resolve("bin"), library.project().directory());
    TestLinker.Setup setup = linkSetup(prepared);
    String driver = toolchain.compiler(Language.CXX).orElseThrow(() -> new ToolchainException("No C++ compiler to link"
        + " the test programs with: install g++ or set kernel.cxx.")).command();
    List<TestRunner.Runnable> runnable = new ArrayList<>();
    Map<String, TestResult> notBuilt = new LinkedHashMap<>();
    List<String> failures = new ArrayList<>();
    for (TestProgram program : programs.programs()) {
      Path object = objects.get(program.main().path());
      if (object == null) {
        notBuilt.put(program.name(), new TestResult(program.name(), Outcome.SKIPPED,
            "not built: " + stage.whyAbsent(program.main().language()), null, 0, "", ""));
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
    hashes.save(hashFile);
    if (cache != null) {
      cache.finish();
    }
    log.info("Test programs: " + compiled.compiled() + " compiled, " + compiled.upToDate() + " up to date"
        + (compiled.fromCache() == 0 ? "" : ", " + compiled.fromCache() + " from cache") + ", " + linker.counts());
    if (!failures.isEmpty()) {
      throw new BuildFailureException(String.join("\n\n", failures));
    }
    return new Built(runnable, notBuilt);
  }

  /**
   * What every program links with: the library (and white-box its archives), the runtimes of the
   * GPU objects among the programs, the sanitizers, the user's flags and the library's own.
   */
  private TestLinker.Setup linkSetup(CompileStage.Prepared prepared) throws ToolchainException, BuildFailureException {
    Path libraryOutput = library.project().outputDirectory();
    List<Path> archives = new ArrayList<>();
    archives.add(libraryOutput.resolve(HostArchive.fileName(library.project().libraryName())));
    library.sources().archives().forEach(name -> archives.add(libraryOutput.resolve("lib" + name + ".a")));
    archives.removeIf(a -> !Files.isRegularFile(a));
    List<String> flags = new ArrayList<>(Sanitized.linkFlags(settings.sanitizers()));
    boolean cuda = prepared.jobs().stream().anyMatch(j -> j.source().language() == Language.CUDA);
    if (cuda) {
      if (settings.whiteBox() && library.compile().relocatableDeviceCode()) {
        throw new BuildFailureException("kernel.test.whiteBox=true cannot link CUDA tests against archives of"
            + " relocatable device code (<relocatableDeviceCode>true</relocatableDeviceCode>): test through the exports.");
      }
      Tool nvcc = toolchain.compiler(Language.CUDA).orElseThrow();
      Optional<Path> runtime = toolchain.platform().cross()
          ? CudaLibraries.crossDirectory(nvcc, toolchain.runner(), toolchain.platform())
          : Optional.of(CudaLibraries.directory(nvcc, toolchain.runner()));
      if (runtime.isPresent()) {
        flags.addAll(List.of("-L" + runtime.get(), "-lcudart_static", "-ldl", "-lpthread", "-lrt"));
      } else {
        flags.addAll(List.of(cudaRuntimeStub(nvcc, prepared).toString(), "-ldl", "-lpthread"));
      }
    }
    if (prepared.jobs().stream().anyMatch(j -> j.source().language() == Language.HIP)) {
      // hipcc put the device code in the objects; the C++ driver links them with the HIP runtime
      // (hipcc as the driver would target NVIDIA where nvcc is installed).
      flags.add("-lamdhip64");
    }
    flags.addAll(settings.linkFlags());
    flags.addAll(library.link().linkFlags());
    LinkSettings link = library.link();
    if (link.staticRuntime()) {
      flags.addAll(List.of("-static-libstdc++", "-static-libgcc"));
    }
    // Held to the library's glibc too: the tests then call what the library's users get.
    GlibcFloor glibc = link.glibc() == null ? null : new GlibcFloor(link.glibc(),
        toolchain.compiler(Language.C).orElseThrow(() -> new ToolchainException("kernel.glibc needs a C compiler")),
        toolchain.runner(), libraryOutput.resolve("test/link"), toolchain.platform().elfMachine());
    return new TestLinker.Setup(libraryOutput.resolve("lib" + library.project().libraryName() + ".so"), archives,
        settings.whiteBox(), flags, glibc);
  }

  /**
   * For another platform whose CUDA runtime this install lacks: the programs reach the runtime
   * through a stub, as the library can (its functions' names are the same on every platform), so
   * they build and run under the emulator, where the stub finds no runtime and the CUDA calls
   * answer cudaErrorInsufficientDriver: the programs' own "no GPU" path.
   */
  private Path cudaRuntimeStub(Tool nvcc, CompileStage.Prepared prepared)
      throws ToolchainException, BuildFailureException {
    Tool cc = toolchain.compiler(Language.C).orElseThrow(() -> new ToolchainException("The CUDA runtime's stub for "
        + toolchain.platform() + " needs a C compiler for it"));
    List<Path> objects = prepared.jobs().stream().filter(j -> j.source().language() == Language.CUDA)
        .map(j -> j.object()).toList();
    try {
      StubRequest request = LinkStage.cudaRuntimeStub(CudaLibraries.directory(nvcc, toolchain.runner()),
          CudaLibraries.root(nvcc, toolchain.runner()));
      return new StubStage(cc, toolchain.runner(), output, toolchain.platform().elfMachine())
          .build(request, objects, List.of()).object();
    } catch (IOException e) {
      throw new ToolchainException("Making the CUDA runtime's stub for the test programs failed: " + e.getMessage(), e);
    }
  }

  /** The library's compile options for test code: default visibility (a test is a program, not an archive member). */
  private static CompileOptions testOptions(CompileOptions library) {
    return new CompileOptions(library.includeDirectories(), library.defines(), library.cFlags(), library.cxxFlags(),
        library.cudaFlags(), library.hipFlags(), library.cudaArchs(), library.relocatableDeviceCode(),
        library.hipArchs(), false, library.sourceRoot());
  }
}
