package io.github.kernelarchive.pipeline;

import io.github.kernelarchive.archive.ArchiveInProgress;
import io.github.kernelarchive.archive.ArchiveRequest;
import io.github.kernelarchive.archive.ArchiveStage.Outcome;
import io.github.kernelarchive.archive.ArchiveStage.Status;
import io.github.kernelarchive.archive.ArchiveStage;
import io.github.kernelarchive.audit.ExportAudit;
import io.github.kernelarchive.bundle.BundleMetadata;
import io.github.kernelarchive.bundle.HostArchive;
import io.github.kernelarchive.bundle.KernelDependencies;
import io.github.kernelarchive.cache.BuildCache;
import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.BuildLog;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.compile.CompileJob;
import io.github.kernelarchive.compile.CompileStage;
import io.github.kernelarchive.compile.FarmLauncher;
import io.github.kernelarchive.compile.SlurmLauncher;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.elf.VersionFloor;
import io.github.kernelarchive.deps.DependencyStage;
import io.github.kernelarchive.link.LinkRequest;
import io.github.kernelarchive.link.LinkStage;
import io.github.kernelarchive.link.SharedLibraryLinker;
import io.github.kernelarchive.link.SymbolVersion;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.scan.SourceFile;
import io.github.kernelarchive.scan.SourceScanner;
import io.github.kernelarchive.scan.SourceSet;
import io.github.kernelarchive.toolchain.ToolVersions;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.util.AtomicFiles;
import io.github.kernelarchive.util.ContentHashes;
import io.github.kernelarchive.util.Hashing;
import io.github.kernelarchive.util.KeyFile;
import io.github.kernelarchive.util.Trace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The pipeline: scan, plan (dependencies, compile jobs, archives that are current or cached),
 * compile what is left (incrementally), build and validate the remaining archives, link and audit;
 * then one summary block. Each step is a method that takes the values the steps before it
 * returned ({@code Scanned}, {@code Plan}, {@code CompileStage.Result}, {@code Archived},
 * {@code Linked}), so what flows between stages is visible in their types.
 */
public final class KernelBuild {
  private final BuildLog log;
  private final Map<String, String> environment;

  public KernelBuild(BuildLog log, Map<String, String> environment) {
    this.log = log;
    this.environment = Map.copyOf(environment);
  }

  /** Runs the build; {@code target/kernel/trace.json} is written whether it succeeds or fails. */
  public BuildSummary run(KernelBuildRequest request)
      throws BuildFailureException, ToolchainException, IOException, InterruptedException {
    long start = System.nanoTime();
    checkWritable(request.project().outputDirectory());
    long swept = AtomicFiles.sweepTemporaries(request.project().outputDirectory(), Set.of("obj"));
    if (swept > 0) {
      log.info("Removed temporary files a killed build left in " + request.project().outputDirectory() + " ("
          + (swept + 500_000) / 1_000_000 + " MB)");
    }
    if (request.link().privateArchives()) {
      SymbolVersion.requireValid(request.link().symbolVersion());
    }
    Trace trace = Trace.start();
    Toolchain toolchain = new Toolchain(request.toolchain(), environment, new ToolVersions(
        request.project().outputDirectory().resolve("state").resolve("tool-versions.properties")));
    Thread lookup = toolchain.identifyAhead(!request.sources().archives().isEmpty());
    try {
      return runStages(request, toolchain, start);
    } finally {
      // Done long before in a build that gets far; one that fails early waits the few
      // milliseconds left, so no tool runs on after the build.
      lookup.join();
      try {
        toolchain.saveVersions();
      } catch (IOException e) {
        log.warn("Could not keep the tools' versions for the next build: " + e.getMessage());
      }
      Trace.stop();
      try {
        trace.write(request.project().outputDirectory().resolve("trace.json"));
      } catch (IOException e) {
        log.warn("Could not write the build timeline " + request.project().outputDirectory().resolve("trace.json")
            + ": " + e.getMessage());
      }
    }
  }

  /** Fails up front, naming the folder, when the outputs cannot be written (rather than in the middle of a stage). */
  private static void checkWritable(Path outputDirectory) throws BuildFailureException {
    try {
      // Named as every temporary is, so a build killed right here leaves nothing the next one's sweep misses.
      Files.delete(Files.createFile(AtomicFiles.temporarySibling(outputDirectory.resolve("write-check"))));
    } catch (IOException e) {
      throw new BuildFailureException("The output directory " + outputDirectory + " cannot be written (" + e
          + "). Check its permissions and free space, or set <outputDirectory>.");
    }
  }

  /**
   * What the scan found: sources of every set (host and archives), and each archive's prebuilt
   * objects, as members with the size and time the scan saw.
   */
  private record Scanned(List<SourceFile> sources, Map<String, List<ArchiveRequest.Member>> prebuilt, long millis) {}

  /**
   * What planning decided, and the stages it set up: the dependencies found (which may drop
   * sources), the compile jobs, each archive's members, and the archives that need no build
   * (current, or taken from the cache) with the sources those serve.
   */
  private record Plan(Toolchain toolchain, DependencyStage.Outcome dependencies, KernelDependencies.Outcome kernels,
      ContentHashes hashes, Path hashFile, BuildCache cache, CompileStage compileStage, CompileStage.Prepared prepared,
      ArchiveStage archiveStage,
      List<ArchiveRequest> archiveRequests, Map<String, Outcome> reused, int servedByArchives, long millis) {}

  /**
   * Every archive of the build, in declaration order, as used or taken, or being written (its
   * batches made); {@code start}: when the first archive's work began (System.nanoTime).
   */
  private record Archived(Map<String, ArchiveInProgress> archives, long start) {}

  /**
   * The library (null when there was nothing to link), per-archive libraries, and the audit's
   * report (null without a library); the link's time ({@code start}: System.nanoTime), and once the
   * archives are done, theirs and what of the link ran beside them.
   */
  private record Linked(SharedLibraryLinker.Result library, List<Path> archiveLibraries, ExportAudit.Report audit,
      long start, long millis, long archiveMillis, long besideArchiveMillis) {
    Linked besides(long archiveStart, long archivesDone) {
      long beside = Math.max(0, Math.min(archivesDone, start + millis * 1_000_000) - start) / 1_000_000;
      return new Linked(library, archiveLibraries, audit, start, millis, (archivesDone - archiveStart) / 1_000_000,
          beside);
    }
  }

  /** The stages in order; each takes what the ones before it produced. */
  private BuildSummary runStages(KernelBuildRequest request, Toolchain toolchain, long start)
      throws BuildFailureException, ToolchainException, IOException, InterruptedException {
    Scanned scanned = scan(request);
    Plan plan = plan(request, scanned, toolchain);
    CompileStage.Result compiled = compile(plan);
    Map<String, ArchiveInProgress> started = new LinkedHashMap<>();
    Map<String, Outcome> archives = new LinkedHashMap<>();
    long archivesDone;
    Linked linked;
    try {
      Archived archived = archive(plan, compiled, started);
      linked = link(request, plan, archived);
      // The link waited for every archive it read; all are done by now (or fail here).
      for (ArchiveInProgress archive : started.values()) {
        Outcome outcome = archive.await();
        archives.put(outcome.name(), outcome);
        if (outcome.status() == Status.BUILT) {
          logArchive(outcome);
        }
      }
      archivesDone = started.values().stream().mapToLong(ArchiveInProgress::finishedAt).max().orElse(archived.start());
      linked = linked.besides(archived.start(), archivesDone);
    } catch (BuildFailureException | ToolchainException | IOException | InterruptedException | RuntimeException e) {
      awaitArchivesAfter(plan, started, e);
      throw e;
    }
    // Written while the link ran; the build ends with them in place.
    if (plan.archiveStage() != null) {
      plan.archiveStage().awaitRecords();
    }
    if (linked.audit() != null) {
      try (Trace.Span span = Trace.current().span("bundle description", "build")) {
        describeForBundle(request, plan, archives, linked.audit());
      }
    }
    try (Trace.Span span = Trace.current().span("save content hashes", "build")) {
      plan.hashes().save(plan.hashFile());
    }
    if (plan.cache() != null) {
      try (Trace.Span span = Trace.current().span("cache uploads and eviction", "cache")) {
        plan.cache().finish();
      }
    }
    SharedLibraryLinker.Result library = linked.library();
    BuildSummary summary = new BuildSummary(compiled.compiled(), compiled.fromCache(), compiled.upToDate(),
        plan.prepared().skipped().size(), plan.servedByArchives(), count(archives, Status.BUILT),
        count(archives, Status.CACHE_HIT), count(archives, Status.UP_TO_DATE),
        archives.values().stream().mapToInt(Outcome::batchesRun).sum(),
        library == null ? null : library.library(), library != null && library.relinked(),
        library == null ? null : library.linker(), linked.audit() == null ? 0 : linked.audit().exports().size(),
        linked.archiveLibraries(),
        scanned.millis(), compiled.planMillis() + plan.millis(), compiled.compileMillis(), linked.archiveMillis(),
        linked.millis(), linked.besideArchiveMillis(), millisSince(start),
        plan.cache() == null ? null : plan.cache().stats(), floor(library, linked.audit()),
        library == null || request.link().glibc() == null ? null : request.link().glibc().version());
    logSummary(summary);
    return summary;
  }

  /**
   * A failed build still waits for the archives being written and their records, so nothing is
   * written after it ends; their own failures are added to the build's (unless they are it).
   */
  private static void awaitArchivesAfter(Plan plan, Map<String, ArchiveInProgress> started, Exception failure) {
    if (plan.archiveStage() == null) {
      return;
    }
    for (ArchiveInProgress archive : started.values()) {
      try {
        archive.await();
      } catch (IOException | BuildFailureException | RuntimeException e) {
        if (e != failure) {
          failure.addSuppressed(e);
        }
      }
    }
    try {
      plan.archiveStage().awaitRecords();
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure.addSuppressed(e);
    }
  }

  private Scanned scan(KernelBuildRequest request) throws IOException, BuildFailureException {
    long start = System.nanoTime();
    SourceScanner scanner = new SourceScanner();
    List<SourceFile> sources = new ArrayList<>();
    Map<String, List<ArchiveRequest.Member>> prebuilt = new LinkedHashMap<>();
    try (Trace.Span span = Trace.current().span("scan", "build")) {
      for (SourceSet set : request.sources().sources()) {
        sources.addAll(scanner.scan(set));
      }
      for (SourceSet set : request.sources().objects()) {
        List<ArchiveRequest.Member> members = prebuilt.computeIfAbsent(set.unit(), k -> new ArrayList<>());
        for (SourceScanner.Found object : scanner.scanObjects(set)) {
          members.add(ArchiveRequest.Member.prebuilt(object.name(), object.file(), object.attributes()));
        }
      }
    }
    return new Scanned(sources, prebuilt, millisSince(start));
  }

  /**
   * Dependencies, compile jobs, archive members; archives that are current or cached need none of
   * their sources compiled.
   */
  private Plan plan(KernelBuildRequest request, Scanned scanned, Toolchain toolchain)
      throws BuildFailureException, ToolchainException, IOException, InterruptedException {
    long start = System.nanoTime();
    DependencyStage.Outcome dependencies = new DependencyStage(toolchain, environment, log)
        .resolve(request.dependencies(), scanned.sources());
    Path hashFile = request.project().outputDirectory().resolve("state").resolve("file-hashes");
    ContentHashes hashes = ContentHashes.load(hashFile);
    KernelDependencies.Outcome kernels;
    try (Trace.Span span = Trace.current().span("kernel dependencies", "build")) {
      kernels = KernelDependencies.unpack(request.dependencies().kernels(), request.project().outputDirectory(),
          request.project().platform(), request.compile().cudaArchs(), hashes);
    }
    List<Path> includes = new ArrayList<>(dependencies.includeDirectories());
    includes.addAll(kernels.includeDirectories());
    BuildCache cache = cache(request);
    SlurmLauncher cluster = request.parallelism().cluster() == null ? null
        : SlurmLauncher.connect(request.parallelism().cluster(), toolEnvironment(request), log).orElse(null);
    int jobs = jobs(request, toolchain, cluster);
    CompileStage compileStage = new CompileStage(toolchain,
        request.compile().withIncludeDirectories(includes), request.project().outputDirectory(),
        request.project().directory(), jobs, hashes, cache, cluster, log);
    CompileStage.Prepared prepared = compileStage.prepare(dependencies.sources());
    // The archive stage runs here only: a farm's slots are no reason to start more ar processes.
    int localJobs = Math.min(jobs, Runtime.getRuntime().availableProcessors());
    ArchiveStage archiveStage = request.sources().archives().isEmpty() ? null : new ArchiveStage(toolchain.archiver(),
        toolchain.runner(), cache, request.parallelism().batchSize(), localJobs, request.project().outputDirectory(),
        request.project().directory(), hashes, log, toolchain.platform().elfMachine());
    List<ArchiveRequest> archiveRequests = archiveRequests(request, prepared, scanned.prebuilt(), compileStage);
    Map<String, Outcome> reused = new LinkedHashMap<>();
    for (ArchiveRequest archive : archiveRequests) {
      Optional<Outcome> outcome = archiveStage.reuse(archive);
      if (outcome.isPresent()) {
        reused.put(archive.name(), outcome.get());
      }
    }
    int servedByArchives = (int) prepared.jobs().stream().filter(j -> reused.containsKey(j.source().unit())).count();
    return new Plan(toolchain, dependencies, kernels, hashes, hashFile, cache, compileStage, prepared, archiveStage,
        archiveRequests, reused, servedByArchives, millisSince(start));
  }

  /** Compiles what is stale, except the sources of archives planning already has. */
  private CompileStage.Result compile(Plan plan) throws BuildFailureException, ToolchainException, IOException,
      InterruptedException {
    CompileStage.Result compiled;
    try {
      compiled = plan.compileStage().compile(plan.prepared(), job -> !plan.reused().containsKey(job.source().unit()));
    } finally {
      plan.hashes().save(plan.hashFile());
    }
    log.info("Compile: " + compiled.compiled() + " compiled, " + compiled.upToDate() + " up to date"
        + (compiled.fromCache() == 0 ? "" : ", " + compiled.fromCache() + " from cache")
        + (plan.servedByArchives() == 0 ? "" : ", " + plan.servedByArchives() + " in current or cached archives")
        + (plan.prepared().skipped().isEmpty() ? "" : ", " + plan.prepared().skipped().size() + " skipped"));
    return compiled;
  }

  /**
   * Starts every archive planning could not reuse, from the objects just compiled and the prebuilt
   * ones: each one's batches are made here, and it is written on while the next one's batches and
   * the link run. {@code started} gets each as it starts, for the build to wait for if it fails.
   */
  private Archived archive(Plan plan, CompileStage.Result compiled, Map<String, ArchiveInProgress> started)
      throws BuildFailureException, ToolchainException, IOException, InterruptedException {
    long start = System.nanoTime();
    for (ArchiveRequest archive : plan.archiveRequests()) {
      Outcome outcome = plan.reused().get(archive.name());
      if (outcome != null) {
        logArchive(outcome);
        started.put(archive.name(), ArchiveInProgress.done(outcome));
      } else {
        started.put(archive.name(), plan.archiveStage().start(archive, compiled.dependencies()));
      }
    }
    return new Archived(Collections.unmodifiableMap(new LinkedHashMap<>(started)), start);
  }

  /**
   * {@code kernel.jobs}, else what the Slurm cluster and the compile farm in the launcher offer,
   * else the local cores.
   */
  private int jobs(KernelBuildRequest request, Toolchain toolchain, SlurmLauncher cluster) throws ToolchainException {
    if (request.parallelism().jobs() > 0) {
      return request.parallelism().jobs();
    }
    int cores = Runtime.getRuntime().availableProcessors();
    List<String> launcher = toolchain.launcher();
    if (cluster != null) {
      // The cluster takes the GPU compiles, and the C/C++ ones unless a farm does: then both run at once.
      int farmJobs = FarmLauncher.farmIn(launcher).isPresent()
          ? FarmLauncher.defaultJobs(launcher, toolchain.runner(), Map.of(), cores) : 0;
      int jobs = cluster.defaultJobs() + farmJobs;
      log.info("Jobs: " + jobs + " (" + cluster.describe() + (farmJobs == 0 ? "" : "; " + farmJobs + " for the C/C++ farm")
          + ")");
      return jobs;
    }
    int jobs = FarmLauncher.defaultJobs(launcher, toolchain.runner(), Map.of(), cores);
    FarmLauncher.farmIn(launcher).ifPresent(farm -> log.info("Jobs: " + jobs + " (" + farm
        + (farm.equals("distcc") ? " -j: its hosts' slots" : ": the local cores; set kernel.jobs to the farm's slots")
        + "; local work keeps to " + cores + " cores)"));
    return jobs;
  }

  /** What tools run with: the build's environment and the pom's {@code <environment>} over it. */
  private Map<String, String> toolEnvironment(KernelBuildRequest request) {
    Map<String, String> all = new java.util.HashMap<>(environment);
    all.putAll(request.toolchain().environment());
    return all;
  }

  /** The local cache, with the remote tier behind it when one is configured; null when the cache is off. */
  private BuildCache cache(KernelBuildRequest request) throws BuildFailureException {
    try {
      return BuildCache.open(request.cache(), log).orElse(null);
    } catch (IllegalArgumentException e) {
      throw new BuildFailureException(e.getMessage());
    }
  }

  /** Each archive's members: its compiled sources in source order, then its prebuilt objects. */
  private static List<ArchiveRequest> archiveRequests(KernelBuildRequest request, CompileStage.Prepared prepared,
      Map<String, List<ArchiveRequest.Member>> prebuilt, CompileStage compileStage)
      throws BuildFailureException, IOException {
    List<ArchiveRequest> requests = new ArrayList<>();
    for (String name : request.sources().archives()) {
      List<ArchiveRequest.Member> members = new ArrayList<>();
      for (CompileJob job : prepared.jobs()) {
        if (job.source().unit().equals(name)) {
          members.add(new ArchiveRequest.Member(job.object().getFileName().toString(), job.object(),
              compileStage.keyOf(job)));
        }
      }
      members.addAll(prebuilt.getOrDefault(name, List.of()));
      if (members.isEmpty() && prepared.skipped().stream().anyMatch(s -> s.unit().equals(name))) {
        // Every source needs a compiler this machine lacks (or the user switched off): the warning
        // above said so. Drop the archive, and its last output so nothing links a stale one.
        Files.deleteIfExists(request.project().outputDirectory().resolve("lib" + name + ".a"));
        continue;
      }
      if (members.isEmpty()) {
        throw new BuildFailureException("Archive '" + name + "' has no members: its <sources> and <objects>"
            + " select no files.");
      }
      requests.add(new ArchiveRequest(name, members));
    }
    return requests;
  }

  /** Device link, stubs and the library ({@link LinkStage}), audited before it is published under its name. */
  private Linked link(KernelBuildRequest request, Plan plan, Archived archived)
      throws ToolchainException, IOException, BuildFailureException {
    // An archive the link cannot read through stand-ins is waited for here, so that the link's
    // time in the summary is the link's own.
    for (ArchiveInProgress archive : archived.archives().values()) {
      if (archive.standIns().isEmpty()) {
        archive.awaitWritten();
      }
    }
    long start = System.nanoTime();
    Path outputDirectory = request.project().outputDirectory();
    List<ExportAudit.Report> audited = new ArrayList<>();
    SharedLibraryLinker.Check audit = (written, library) -> {
      try (Trace.Span span = Trace.current().span("audit", "link")) {
        audited.add(ExportAudit.audit(written, library, request.link().exports(), hostObjects(plan.prepared()),
            archived.archives().values().stream().map(ArchiveInProgress::file).toList(), request.project().directory(),
            outputDirectory.resolve("audit.txt")));
      }
    };
    LinkStage.Result linked = new LinkStage(plan.toolchain(), outputDirectory, plan.hashes(), log)
        .link(request.project().libraryName(), request.link(), linkInputs(request, plan, archived), audit);
    return new Linked(linked.library(), linked.archiveLibraries(), audited.isEmpty() ? null : audited.get(0),
        start, millisSince(start), 0, 0);
  }

  /** What the link takes from the stages before it. */
  private static LinkStage.Inputs linkInputs(KernelBuildRequest request, Plan plan, Archived archived) {
    List<CompileJob> cuda = plan.prepared().jobs().stream().filter(j -> j.source().language() == Language.CUDA).toList();
    Set<String> cudaUnits = new HashSet<>();
    cuda.forEach(j -> cudaUnits.add(j.source().unit()));
    List<LinkStage.Archive> archives = new ArrayList<>();
    for (ArchiveInProgress archive : archived.archives().values()) {
      LinkRequest.Contents contents = () -> {
        ArchiveInProgress.Written written = archive.awaitWritten();
        return new LinkRequest.Checked(written.sha256(), written.definitions());
      };
      archives.add(new LinkStage.Archive(archive.name(), new LinkRequest.Archive(archive.file(), archive.standIns(),
          contents, archive::await), cudaUnits.contains(archive.name())));
    }
    // The kernel dependencies' archives, after this build's own: linked whole and private as well.
    plan.kernels().archives().forEach(a -> archives.add(new LinkStage.Archive(a.name(), a.file(), a.sha256(), null,
        a.deviceCode())));
    List<Path> cudaHostObjects = cuda.stream().filter(j -> j.source().unit().equals(SourceSet.HOST))
        .map(CompileJob::object).toList();
    List<String> linkFlags = new ArrayList<>(request.link().linkFlags());
    linkFlags.addAll(plan.dependencies().linkFlags());
    linkFlags.addAll(plan.kernels().linkFlags());
    return new LinkStage.Inputs(hostObjects(plan.prepared()), cudaHostObjects, archives,
        !cuda.isEmpty() || plan.kernels().cuda(),
        request.compile().cudaArchs(), request.compile().relocatableDeviceCode(), linkFlags,
        plan.dependencies().deviceLibraries(), plan.dependencies().stubs(), plan.kernels().sharedLibraries());
  }

  /**
   * What a kernel bundle of this library holds and needs ({@link BundleMetadata}), and its host
   * objects as one more archive: written after every successful link, for the bundle goal.
   */
  private static void describeForBundle(KernelBuildRequest request, Plan plan, Map<String, Outcome> built,
      ExportAudit.Report audit) throws IOException {
    Path output = request.project().outputDirectory();
    String library = request.project().libraryName();
    List<String> archives = new ArrayList<>();
    List<Path> host = hostObjects(plan.prepared());
    Path hostArchive = output.resolve(HostArchive.fileName(library));
    if (host.isEmpty()) {
      Files.deleteIfExists(hostArchive);
    } else {
      // Written again only when an object changed (the writer is deterministic): a build of an
      // unchanged tree reads none of them.
      List<String> parts = new ArrayList<>(List.of("host archive 1"));
      for (Path object : host) {
        parts.add(object.getFileName().toString());
        parts.add(plan.hashes().of(object).orElseThrow(() -> new IOException("cannot read " + object)));
      }
      String key = Hashing.ofStrings(parts);
      Path keyFile = output.resolve("state").resolve(hostArchive.getFileName() + ".key");
      if (!KeyFile.upToDate(hostArchive, keyFile, key)) {
        Files.deleteIfExists(keyFile);
        HostArchive.write(hostArchive, host);
        KeyFile.record(keyFile, key);
      }
      archives.add(hostArchive.getFileName().toString());
    }
    built.values().forEach(o -> archives.add(o.archive().getFileName().toString()));
    boolean cuda = plan.prepared().jobs().stream().anyMatch(j -> j.source().language() == Language.CUDA);
    List<String> downstream = new ArrayList<>();
    for (String flag : plan.dependencies().linkFlags()) {
      if (flag.startsWith("-l") || flag.startsWith("-L")) {
        downstream.add(flag);
      }
    }
    for (String flag : request.link().linkFlags()) {
      if (flag.startsWith("-l") || flag.startsWith("-L")) {
        downstream.add(flag);
      }
    }
    BundleMetadata metadata = new BundleMetadata(BundleMetadata.FORMAT, request.project().platform(), library,
        audit.soname(), request.link().symbolVersion(), request.link().exports(), archives,
        cuda ? request.compile().cudaArchs() : "", cuda && request.compile().relocatableDeviceCode(),
        request.link().cudaRuntime().name().toLowerCase(java.util.Locale.ROOT), audit.needed(), downstream,
        request.link().glibc() == null ? "" : request.link().glibc().version());
    AtomicFiles.writeIfChanged(output.resolve(BundleMetadata.FILE), metadata.toBytes());
  }

  private static List<Path> hostObjects(CompileStage.Prepared prepared) {
    return prepared.jobs().stream().filter(j -> j.source().unit().equals(SourceSet.HOST)).map(CompileJob::object).toList();
  }

  private void logArchive(Outcome outcome) {
    String what = switch (outcome.status()) {
      case UP_TO_DATE -> "up to date";
      case CACHE_HIT -> "cache hit, validated";
      case BUILT -> "built, validated; " + outcome.batchesRun() + " of " + outcome.batches() + " batches ran ar";
    };
    log.info("Archive " + outcome.name() + ": " + outcome.members() + " members (" + what + ")");
  }

  /** The library's version floor: the audit's when it ran, else read from the library (an up-to-date link). */
  private static List<VersionFloor> floor(SharedLibraryLinker.Result library, ExportAudit.Report audit)
      throws IOException {
    if (library == null) {
      return List.of();
    }
    if (audit != null) {
      return audit.floor();
    }
    return VersionFloor.of(ElfObject.read(library.library()));
  }

  private void logSummary(BuildSummary s) {
    log.info("------------------------------------------------------------------------");
    log.info("Kernel Archive summary");
    log.info("  objects   " + s.compiled() + " compiled, " + s.objectsFromCache() + " from cache, " + s.upToDate()
        + " up to date, " + s.servedByArchives() + " in current or cached archives, " + s.skipped() + " skipped");
    log.info("  archives  " + s.archivesBuilt() + " built (" + s.batchesRun() + " ar batches), "
        + s.archivesFromCache() + " cache hits, " + s.archivesUpToDate() + " up to date");
    log.info("  library   " + (s.library() == null ? "none" : s.library()
        + (s.relinked() ? " (linked with " + s.linker() + ")" : " (up to date)")
        + ", " + s.exports() + " exported symbols (audit.txt)"));
    List<String> floor = new ArrayList<>(s.floor().stream().map(f -> f.describe(3)).toList());
    if (s.glibcTarget() != null && s.floor().stream().noneMatch(f -> f.family().equals("GLIBC")
        && VersionFloor.VERSION_ORDER.compare(f.version(), s.glibcTarget()) >= 0)) {
      // Checked against the target, not against anything older: the floor claimed is the target's.
      floor.add(0, "glibc " + s.glibcTarget() + " (kernel.glibc)");
    }
    if (!floor.isEmpty()) {
      log.info("  floor     " + String.join("; ", floor));
    }
    if (s.cache() != null) {
      BuildCache.Stats c = s.cache();
      log.info(String.format("  cache     %d local hits (%.1f MB)", c.localHits(), c.localBytes() / 1e6)
          + (c.remote() ? String.format(", %d remote hits (%.1f MB in %.2f s), %d uploaded (%.1f MB), %d remote failures",
              c.remoteHits(), c.remoteBytes() / 1e6, c.remoteMillis() / 1000.0, c.uploaded(), c.uploadedBytes() / 1e6,
              c.remoteFailures()) : ", no remote"));
    }
    // The link may run while archives are still written: the part that did is said, so the
    // stages need not add up to the total.
    log.info(String.format("  time      scan %.2f s | plan %.2f s | compile %.2f s | archive %.2f s | link %.2f s%s"
        + " | total %.2f s after Maven's start-up",
        s.scanMillis() / 1000.0, s.planMillis() / 1000.0, s.compileMillis() / 1000.0,
        s.archiveMillis() / 1000.0, s.linkMillis() / 1000.0,
        s.besideArchiveMillis() == 0 ? "" : String.format(" (%.2f s beside the archive)", s.besideArchiveMillis() / 1000.0),
        s.totalMillis() / 1000.0));
    log.info("------------------------------------------------------------------------");
  }

  private static int count(Map<String, Outcome> archives, Status status) {
    return (int) archives.values().stream().filter(o -> o.status() == status).count();
  }

  private static long millisSince(long start) {
    return (System.nanoTime() - start) / 1_000_000;
  }
}
