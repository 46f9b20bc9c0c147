package io.github.kernelarchive.compile;

import io.github.kernelarchive.build.BuildFailureException;
import io.github.kernelarchive.build.BuildLog;
import io.github.kernelarchive.build.ToolchainException;
import io.github.kernelarchive.compile.CompileExecutor.Outcome;
import io.github.kernelarchive.compile.CompileState.Dependency;
import io.github.kernelarchive.compile.IncrementalPlanner.Plan;
import io.github.kernelarchive.compile.IncrementalPlanner.Planned;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.scan.SourceFile;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.toolchain.Toolchain;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The compile stage: resolve a compiler per language, plan incrementally, compile what is stale in
 * parallel, and record what was built. State and {@code compile_commands.json} live under the
 * output directory.
 */
public final class CompileStage {

  /** A source and the object it compiles to (fresh or up to date). */
  public record CompiledObject(SourceFile source, Path object) {}

  public record Result(List<CompiledObject> objects, int compiled, int upToDate, List<SourceFile> skipped,
      long planMillis, long compileMillis) {}

  private final Toolchain toolchain;
  private final CompileOptions options;
  private final Path outputDirectory;
  private final Path workingDirectory;
  private final int parallelism;
  private final BuildLog log;

  public CompileStage(Toolchain toolchain, CompileOptions options, Path outputDirectory,
      Path workingDirectory, int parallelism, BuildLog log) {
    this.toolchain = toolchain;
    this.options = options;
    this.outputDirectory = outputDirectory;
    this.workingDirectory = workingDirectory;
    this.parallelism = parallelism;
    this.log = log;
  }

  public Path stateFile() {
    return outputDirectory.resolve("state").resolve("compile.state");
  }

  public Result run(List<SourceFile> sources)
      throws BuildFailureException, ToolchainException, IOException, InterruptedException {
    long start = System.nanoTime();
    Map<Language, CompilerSetup> setups = setupsFor(sources);
    CompileCommandFactory factory = new CompileCommandFactory(options, outputDirectory.resolve("obj"));
    List<CompileJob> jobs = new ArrayList<>();
    List<SourceFile> skipped = new ArrayList<>();
    for (SourceFile source : sources) {
      CompilerSetup setup = setups.get(source.language());
      if (setup == null) {
        skipped.add(source);
      } else {
        jobs.add(factory.create(source, setup));
      }
    }

    ContentHashes hashes = new ContentHashes();
    CompileState state = CompileState.load(stateFile());
    forgetRemovedObjects(state, jobs);
    Plan plan = new IncrementalPlanner(hashes).plan(jobs, state);
    for (Planned planned : plan.toCompile()) {
      log.debug("compile " + planned.job().source().displayName() + ": " + planned.reason());
    }
    long planned = System.nanoTime();

    List<Outcome> outcomes = new CompileExecutor(toolchain.runner(), parallelism, workingDirectory, log)
        .run(plan.toCompile(), job -> record(job, state, hashes));
    List<Outcome> failures = outcomes.stream().filter(o -> !o.succeeded()).toList();
    for (Outcome failure : failures) {
      state.remove(failure.planned().job().object());
    }
    state.save(stateFile());
    CompileCommandsWriter.write(outputDirectory.resolve("compile_commands.json"), workingDirectory, jobs);

    if (!failures.isEmpty()) {
      List<String> names = failures.stream().map(o -> o.planned().job().source().displayName()).toList();
      throw new BuildFailureException(failures.size() + " of " + plan.toCompile().size()
          + " sources failed to compile: " + String.join(", ", names)
          + ". The compiler output is above; fix the sources and build again.");
    }
    List<CompiledObject> objects = jobs.stream().map(j -> new CompiledObject(j.source(), j.object())).toList();
    return new Result(objects, plan.toCompile().size(), plan.upToDate().size(), skipped,
        (planned - start) / 1_000_000, (System.nanoTime() - planned) / 1_000_000);
  }

  /** Per language in use: command prefix, environment and identity; absent when its compiler is not installed. */
  private Map<Language, CompilerSetup> setupsFor(List<SourceFile> sources)
      throws BuildFailureException, ToolchainException {
    Set<Language> languages = new LinkedHashSet<>();
    sources.forEach(s -> languages.add(s.language()));
    List<String> launcher = toolchain.launcher();
    Map<Language, CompilerSetup> setups = new EnumMap<>(Language.class);
    for (Language language : languages) {
      int count = (int) sources.stream().filter(s -> s.language() == language).count();
      if (language == Language.CUDA && options.cudaArchs().isEmpty()) {
        throw new BuildFailureException(count + " CUDA sources need target architectures: set <cuda><archs>"
            + " (property kernel.cuda.archs), e.g. -Dkernel.cuda.archs=80;90a. Build machines have no GPU to ask.");
      }
      Optional<Tool> compiler = toolchain.compiler(language);
      if (compiler.isEmpty()) {
        log.warn(count + " " + language.label() + " sources skipped: "
            + (language == Language.CUDA ? "nvcc not found (set CUDA_HOME or kernel.cuda.nvcc)"
                : "hipcc not found (set ROCM_PATH or kernel.hip.hipcc)"));
        continue;
      }
      setups.put(language, setupFor(language, compiler.get(), launcher));
    }
    return setups;
  }

  private CompilerSetup setupFor(Language language, Tool compiler, List<String> launcher)
      throws BuildFailureException, ToolchainException {
    List<String> prefix = new ArrayList<>(launcher);
    prefix.add(compiler.command());
    Map<String, String> environment = new HashMap<>();
    String identity = compiler.identity();
    if (language == Language.CUDA) {
      // nvcc compiles host code with the same C++ compiler as the rest of the library.
      Tool host = toolchain.compiler(Language.CXX).orElseThrow();
      prefix.add("-ccbin");
      prefix.add(host.command());
      prefix.addAll(GpuArchitectures.nvccFlags(options.cudaArchs()));
      identity = identity + "\n" + host.identity();
    } else if (language == Language.HIP) {
      prefix.addAll(GpuArchitectures.hipFlags(options.hipArchs()));
      // With nvcc installed too, hipcc would silently target NVIDIA unless told otherwise.
      if (GpuArchitectures.targetsAmd(options.hipArchs()) && System.getenv("HIP_PLATFORM") == null) {
        environment.put("HIP_PLATFORM", "amd");
      }
    }
    return new CompilerSetup(prefix, environment, identity);
  }

  /** Objects of sources that were removed or renamed: delete them so nothing links a stale copy. */
  private void forgetRemovedObjects(CompileState state, List<CompileJob> jobs) throws IOException {
    Set<String> current = new HashSet<>();
    jobs.forEach(j -> current.add(j.object().toString()));
    for (String object : state.objectPaths()) {
      if (!current.contains(object)) {
        Path path = Path.of(object);
        Files.deleteIfExists(path);
        Files.deleteIfExists(path.resolveSibling(path.getFileName() + ".d"));
        state.remove(path);
      }
    }
  }

  /** After a successful compile: remember the key, the headers from the depfile and the object's stamp. */
  private void record(Planned planned, CompileState state, ContentHashes hashes) throws IOException {
    CompileJob job = planned.job();
    String depfile = Files.readString(job.depfile(), StandardCharsets.UTF_8);
    Path source = job.source().path().toAbsolutePath().normalize();
    List<Dependency> dependencies = new ArrayList<>();
    for (String prerequisite : DepfileParser.prerequisites(depfile)) {
      // Relative names in a depfile are relative to the directory the compiler ran in.
      Path absolute = workingDirectory.resolve(prerequisite).toAbsolutePath().normalize();
      if (absolute.equals(source)) {
        continue;
      }
      dependencies.add(new Dependency(absolute.toString(), hashes.of(absolute).orElse("missing")));
    }
    BasicFileAttributes object = IncrementalPlanner.attributes(job.object());
    if (object == null) {
      throw new IOException("the compiler reported success but wrote no " + job.object());
    }
    state.put(job.object(), new CompileState.ObjectRecord(
        planned.key(), object.size(), object.lastModifiedTime().toMillis(), dependencies));
  }
}
