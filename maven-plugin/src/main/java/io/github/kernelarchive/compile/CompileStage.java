package io.github.kernelarchive.compile;

import io.github.kernelarchive.cache.BuildCache;
import io.github.kernelarchive.cache.CacheEntry;
import io.github.kernelarchive.cache.ContentManifest;
import io.github.kernelarchive.cache.EntryKind;
import io.github.kernelarchive.cache.HeaderPaths;
import io.github.kernelarchive.cache.Manifest;
import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.BuildLog;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.compile.CompileExecutor.Outcome;
import io.github.kernelarchive.compile.CompileState.Dependency;
import io.github.kernelarchive.compile.IncrementalPlanner.Plan;
import io.github.kernelarchive.compile.IncrementalPlanner.Planned;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.elf.ObjectRequirements;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.scan.SourceFile;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.util.ContentHashes;
import io.github.kernelarchive.util.Hashing;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
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
import java.util.function.Predicate;

/**
 * The compile stage: resolve a compiler per language, plan incrementally, compile what is stale in
 * parallel, and record what was built. State and {@code compile_commands.json} live under the
 * output directory.
 */
public final class CompileStage {

  /** The jobs of every source that has a compiler here, and the sources skipped for want of one. */
  public record Prepared(List<CompileJob> jobs, List<SourceFile> skipped) {}

  /**
   * @param compiled how many ran now
   * @param fromCache stale objects taken from the cache instead of compiled
   * @param upToDate wanted jobs whose objects were already current
   * @param dependencies per object path, the headers its last compile read (for cache manifests)
   */
  public record Result(int compiled, int fromCache, int upToDate, Map<Path, List<Dependency>> dependencies,
      long planMillis, long compileMillis) {}

  private final Toolchain toolchain;
  private final CompileOptions options;
  private final Path outputDirectory;
  private final Path workingDirectory;
  private final int parallelism;
  private final ContentHashes hashes;
  private final BuildCache cache;
  private final SlurmLauncher cluster;
  private final HeaderPaths headerPaths;
  private final ObjectRequirements requirements;
  private final BuildLog log;

  /** @param cache where objects are looked up before compiling and kept after; {@code null}: none */
  public CompileStage(Toolchain toolchain, CompileOptions options, Path outputDirectory,
      Path workingDirectory, int parallelism, ContentHashes hashes, BuildCache cache, BuildLog log) {
    this(toolchain, options, outputDirectory, workingDirectory, parallelism, hashes, cache, null, log);
  }

  /** @param cluster the Slurm cluster the compiles it takes run on; {@code null}: none */
  public CompileStage(Toolchain toolchain, CompileOptions options, Path outputDirectory,
      Path workingDirectory, int parallelism, ContentHashes hashes, BuildCache cache, SlurmLauncher cluster,
      BuildLog log) {
    this.cluster = cluster;
    this.toolchain = toolchain;
    this.requirements = new ObjectRequirements(toolchain.platform().elfMachine());
    this.options = options;
    this.outputDirectory = outputDirectory;
    this.workingDirectory = workingDirectory;
    this.parallelism = parallelism;
    this.hashes = hashes;
    this.cache = cache;
    this.headerPaths = new HeaderPaths(workingDirectory);
    this.log = log;
  }

  public Path stateFile() {
    return outputDirectory.resolve("state").resolve("compile.state");
  }

  /** Resolves compilers and builds every job; nothing runs yet. */
  public Prepared prepare(List<SourceFile> sources) throws BuildFailureException, ToolchainException {
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
    return new Prepared(jobs, skipped);
  }

  /** The key a job would be recorded under now: compiler, command line and current source content. */
  public String keyOf(CompileJob job) {
    return job.key(hashes.of(job.source().path()).orElse("missing"));
  }

  /**
   * Compiles the stale jobs among those {@code wanted}; the others (e.g. sources of archives served
   * from the cache) keep their objects and state untouched.
   */
  public Result compile(Prepared prepared, Predicate<CompileJob> wanted)
      throws BuildFailureException, IOException, InterruptedException {
    long start = System.nanoTime();
    CompileState state = CompileState.load(stateFile());
    forgetRemovedObjects(state, prepared.jobs());
    Plan plan = new IncrementalPlanner(hashes).plan(prepared.jobs().stream().filter(wanted).toList(), state);
    for (Planned planned : plan.toCompile()) {
      log.debug("compile " + planned.job().source().displayName() + ": " + planned.reason());
    }
    long planned = System.nanoTime();

    // kernel.jobs may count a compile farm's slots; what runs here keeps to this machine's cores.
    int localSlots = Math.min(parallelism, Runtime.getRuntime().availableProcessors());
    boolean hip = plan.toCompile().stream().anyMatch(p -> p.job().source().language() == Language.HIP);
    if (hip) {
      Files.createDirectories(hipScratch());
    }
    List<Outcome> outcomes;
    try {
      outcomes = new CompileExecutor(toolchain.runner(), parallelism, localSlots, workingDirectory, cluster, log)
          .run(plan.toCompile(), new CompileExecutor.ObjectStore() {
            @Override
            public boolean restore(Planned planned) throws IOException, InterruptedException {
              return restoreFromCache(planned, state);
            }

            @Override
            public void compiled(Planned planned) throws IOException {
              storeInCache(planned, record(planned, state));
            }
          });
    } finally {
      if (hip) {
        emptyScratch(hipScratch());
      }
    }
    List<Outcome> failures = outcomes.stream().filter(o -> !o.succeeded()).toList();
    for (Outcome failure : failures) {
      state.remove(failure.planned().job().object());
    }
    state.save(stateFile());
    CompileCommandsWriter.write(outputDirectory.resolve("compile_commands.json"), workingDirectory, prepared.jobs());

    if (!failures.isEmpty()) {
      List<String> names = failures.stream().map(o -> o.planned().job().source().displayName()).toList();
      throw new BuildFailureException(failures.size() + " of " + plan.toCompile().size()
          + " sources failed to compile: " + String.join(", ", names)
          + ". The compiler output is above; fix the sources and build again.");
    }
    Map<Path, List<Dependency>> dependencies = new HashMap<>();
    for (CompileJob job : prepared.jobs()) {
      CompileState.ObjectRecord record = state.get(job.object());
      if (record != null) {
        dependencies.put(job.object(), record.dependencies());
      }
    }
    int restored = (int) outcomes.stream().filter(Outcome::restored).count();
    return new Result(plan.toCompile().size() - restored, restored, plan.upToDate().size(), dependencies,
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
      if (toolchain.disabled(language)) {
        log.warn(count + " " + language.label() + " sources skipped: " + whyAbsent(language));
        continue;
      }
      if (language == Language.CUDA && options.cudaArchs().isEmpty()) {
        throw new BuildFailureException(count + " CUDA sources need target architectures: set <cuda><archs>"
            + " (property kernel.cuda.archs), e.g. -Dkernel.cuda.archs=80;90a. Build machines have no GPU to ask.");
      }
      Optional<Tool> compiler = toolchain.compiler(language);
      if (compiler.isEmpty()) {
        log.warn(count + " " + language.label() + " sources skipped: " + whyAbsent(language));
        continue;
      }
      setups.put(language, setupFor(language, compiler.get(), launcherFor(language, launcher)));
    }
    return setups;
  }

  /**
   * The launcher for one language. A C/C++ compile farm ({@code distcc}, {@code icecc}, also behind
   * {@code ccache}) never gets nvcc or hipcc: those compiles run locally (still through ccache
   * when it leads the launcher, which understands nvcc), as the farm hosts cannot run them.
   */
  static List<String> launcherFor(Language language, List<String> launcher) {
    return language == Language.CUDA || language == Language.HIP ? FarmLauncher.local(launcher) : launcher;
  }

  /** Why sources of {@code language} cannot be compiled here, with the setting that changes it. */
  public String whyAbsent(Language language) {
    boolean cuda = language == Language.CUDA;
    String property = cuda ? "kernel.cuda.nvcc" : "kernel.hip.hipcc";
    if (toolchain.disabled(language)) {
      return (cuda ? "CUDA" : "HIP") + " switched off (" + property + "=" + Toolchain.DISABLED + ")";
    }
    return cuda ? "nvcc not found (set CUDA_HOME or " + property + ")"
        : "hipcc not found (set ROCM_PATH or " + property + ")";
  }

  /** hipcc's TMPDIR: a folder of this build's own. */
  private Path hipScratch() {
    return outputDirectory.resolve("state").resolve("hip-tmp");
  }

  /** Removes what the compilers left in {@code scratch}, keeping the folder. */
  private static void emptyScratch(Path scratch) throws IOException {
    if (!Files.isDirectory(scratch, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    List<Path> paths;
    try (java.util.stream.Stream<Path> walk = Files.walk(scratch)) {
      paths = walk.filter(p -> !p.equals(scratch)).sorted(java.util.Comparator.reverseOrder()).toList();
    }
    for (Path path : paths) {
      Files.deleteIfExists(path);
    }
  }

  private CompilerSetup setupFor(Language language, Tool compiler, List<String> launcher)
      throws BuildFailureException, ToolchainException {
    List<String> prefix = new ArrayList<>();
    prefix.add(compiler.command());
    // What the compiler already runs with, made explicit so that the key holds it: a changed
    // CPATH or NVCC_APPEND_FLAGS is a different compile, locally and in every cache tier.
    Map<String, String> environment = new HashMap<>(CompilerEnvironment.forKey(language, toolchain.environment()));
    String identity = compiler.identity();
    if (language == Language.CUDA) {
      // nvcc compiles host code with the same C++ compiler as the rest of the library.
      Tool host = toolchain.compiler(Language.CXX).orElseThrow();
      prefix.add("-ccbin");
      prefix.add(host.command());
      if (toolchain.platform().cross()) {
        prefix.addAll(CudaHeaders.flags(compiler, toolchain.platform(), toolchain.runner()));
      }
      prefix.addAll(GpuArchitectures.nvccFlags(options.cudaArchs()));
      identity = identity + "\n" + host.identity();
    } else if (language == Language.HIP) {
      prefix.addAll(GpuArchitectures.hipFlags(options.hipArchs()));
      // hipcc's clang leaves two empty folders in TMPDIR per compile: here they land in the build's
      // own folder, which the stage empties when it is done, not in /tmp for good.
      environment.put(CompileJob.SCRATCH_VARIABLE, hipScratch().toString());
      // With nvcc installed too, hipcc would silently target NVIDIA unless told otherwise.
      if (GpuArchitectures.targetsAmd(options.hipArchs()) && !environment.containsKey("HIP_PLATFORM")) {
        environment.put("HIP_PLATFORM", "amd");
      }
    }
    return new CompilerSetup(launcher, prefix, environment, identity);
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

  /**
   * Before compiling: takes the object from the cache when an entry for its key verifies (content
   * hash as stored, a relocatable ELF object for this CPU) and was built against the headers this
   * checkout has; records it as if it had been compiled here.
   */
  private boolean restoreFromCache(Planned planned, CompileState state) throws IOException, InterruptedException {
    if (cache == null) {
      return false;
    }
    CompileJob job = planned.job();
    Optional<CacheEntry> entry = cache.find(EntryKind.OBJECT, planned.key(),
        "object of " + job.source().displayName(), candidate -> verifyObject(candidate, planned.key()));
    if (entry.isEmpty()) {
      return false;
    }
    ContentManifest manifest;
    try {
      manifest = ContentManifest.read(entry.get().manifest());
    } catch (NoSuchFileException e) {
      return false; // dropped by a concurrent build right after it was checked
    }
    if (!cache.checkOut(entry.get(), job.object())) {
      return false;
    }
    List<Dependency> dependencies = new ArrayList<>();
    for (Manifest.Header header : manifest.headers()) {
      dependencies.add(new Dependency(headerPaths.resolve(header.path()).toString(), header.sha256()));
    }
    BasicFileAttributes object = IncrementalPlanner.attributes(job.object());
    state.put(job.object(), new CompileState.ObjectRecord(
        planned.key(), object.size(), object.lastModifiedTime().toMillis(), dependencies));
    return true;
  }

  private BuildCache.Verdict verifyObject(CacheEntry entry, String key) throws IOException {
    ContentManifest manifest = ContentManifest.read(entry.manifest());
    if (!manifest.key().equals(key)) {
      return BuildCache.Verdict.corrupt("its manifest is for another key");
    }
    byte[] bytes = Files.readAllBytes(entry.payload());
    if (!Hashing.of(bytes).equals(manifest.sha256())) {
      return BuildCache.Verdict.corrupt("the object differs from the SHA-256 recorded when it was stored");
    }
    try {
      requirements.check(ByteBuffer.wrap(bytes), () -> "the cached object", entry.payload());
    } catch (ObjectRequirements.MemberProblem e) {
      return BuildCache.Verdict.corrupt(e.getMessage());
    }
    return headerPaths.unchanged(manifest.headers(), hashes::of) ? BuildCache.Verdict.USABLE : BuildCache.Verdict.STALE;
  }

  /** After a compile: keeps the object in the cache under its key, with the headers it was built against. */
  private void storeInCache(Planned planned, List<Dependency> dependencies) throws IOException {
    if (cache == null) {
      return;
    }
    List<Manifest.Header> headers = new ArrayList<>();
    for (Dependency dependency : dependencies) {
      headers.add(new Manifest.Header(headerPaths.portable(dependency.path()), dependency.hash()));
    }
    Path object = planned.job().object();
    cache.store(EntryKind.OBJECT, planned.key(), object,
        new ContentManifest(planned.key(), Hashing.ofFile(object), headers).toBytes());
  }

  /**
   * After a successful compile: remember the key, the headers from the depfile and the object's
   * stamp; returns the headers.
   */
  private List<Dependency> record(Planned planned, CompileState state) throws IOException {
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
    return dependencies;
  }
}
