package io.github.kernelarchive.archive;

import io.github.kernelarchive.ar.ArFormatException;
import io.github.kernelarchive.ar.ArReader;
import io.github.kernelarchive.ar.ArchiveDigest;
import io.github.kernelarchive.cache.BuildCache;
import io.github.kernelarchive.cache.CacheEntry;
import io.github.kernelarchive.cache.EntryKind;
import io.github.kernelarchive.cache.HeaderPaths;
import io.github.kernelarchive.cache.Manifest;
import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.BuildLog;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.compile.CompileState.Dependency;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.util.AtomicFiles;
import io.github.kernelarchive.util.ContentHashes;
import io.github.kernelarchive.util.Hashing;
import io.github.kernelarchive.util.Trace;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * Produces each {@code lib<name>.a}: kept when it is current, else copied from the cache when a
 * validated entry for the same inputs exists (then its sources need no compiling), else built from
 * the objects, validated, and published to the cache. Nothing that failed validation is linked or
 * cached.
 */
public final class ArchiveStage {
  private static final String KEY_FORMAT = "kernel-archive archive key 1";

  public enum Status { UP_TO_DATE, CACHE_HIT, BUILT }

  /**
   * @param sha256 the archive's {@link ArchiveDigest}: from its manifest, or from the writer for one built now
   * @param definitions what each member defines strongly, for an archive built in this run (as
   *     inspected); {@code null} for one reused, whose members nobody read
   */
  public record Outcome(String name, Path archive, String sha256, Status status, int members, int batches,
      int batchesRun, List<MemberSymbols> definitions) {}

  private final Tool ar;
  private final ProcessRunner runner;
  private final BuildCache cache;
  private final int batchSize;
  private final int parallelism;
  private final Path outputDirectory;
  private final HeaderPaths headerPaths;
  private final ContentHashes hashes;
  private final BuildLog log;
  private final ArchiveValidator validator;
  private final int machine;
  private final PendingRecords records = new PendingRecords();

  /**
   * @param cache {@code null} when the cache is disabled
   * @param batchSize objects per {@code ar} call; 0: {@link #defaultBatchSize} for this archiver and archive
   */
  public ArchiveStage(Tool ar, ProcessRunner runner, BuildCache cache, int batchSize, int parallelism,
      Path outputDirectory, Path projectDirectory, ContentHashes hashes, BuildLog log, int machine) {
    this.machine = machine;
    this.validator = new ArchiveValidator(machine);
    this.ar = ar;
    this.runner = runner;
    this.cache = cache;
    this.batchSize = batchSize;
    this.parallelism = parallelism;
    this.outputDirectory = outputDirectory;
    this.headerPaths = new HeaderPaths(projectDirectory);
    this.hashes = hashes;
    this.log = log;
  }

  /**
   * Objects per batch when {@code kernel.batchSize} is not set. Each {@code llvm-ar} start costs
   * about 25 ms of CPU (loading libLLVM) and each thin member about 5 us, so its batches are as large
   * as keeps every local core busy: 50,000 small objects on 2 cores in 2 batches took 0.16 s against
   * 0.73 s for 25 batches of 2,000. The share of each job is rounded up to a step of about a
   * sixteenth of it (a power of two, at least {@link #LEAST_BATCH}), so that the batch borders stay
   * where they were when a few objects come or go, and the other batches are reused, while the
   * batches stay within a sixteenth of each other: rounding 2,500 up to steps of 2,000 made batches
   * of 4,000 and 1,000, and the archive waited for the larger. A larger batch only re-runs more
   * members after a change (25,000 thin members: about 0.15 s), which writing the archive, a pass
   * over every member, outweighs anyway. GNU {@code ar} starts in 5 ms but its time per member grows
   * with the batch (400: 18 ms, 1,000: 80 ms, 2,000: 276 ms): 400 stays its size.
   */
  static int defaultBatchSize(Tool ar, int members, int parallelism) {
    if (!ar.identity().contains("LLVM")) {
      return 400;
    }
    long perJob = (members + (long) Math.max(1, parallelism) - 1) / Math.max(1, parallelism);
    long step = Math.max(1, Long.highestOneBit(Math.max(1, perJob)) / 16);
    return (int) Math.max(LEAST_BATCH, (perJob + step - 1) / step * step);
  }

  /** No llvm-ar batch is smaller (but the last): below this, its start costs more than its members. */
  static final int LEAST_BATCH = 1000;

  public Path archiveFile(String name) {
    return outputDirectory.resolve("lib" + name + ".a");
  }

  private Path workDirectory(String name) {
    return outputDirectory.resolve("archive").resolve(name);
  }

  /**
   * The key over everything the archive is made from: archiver, member names and member input
   * keys. Prebuilt objects are keyed by content: hashed here on all cores, unless the last build's
   * hash still matches the file's size and time.
   */
  public String keyOf(ArchiveRequest request) throws IOException {
    List<ArchiveRequest.Member> members = request.members();
    // A timeline slice only when something is read: a hash this build took, or a stamp that still
    // matches, needs no read (fromStamp answers both).
    boolean reads = members.stream().anyMatch(m -> m.keyedByContent() && hashes.fromStamp(m.object()).isEmpty());
    List<Optional<String>> contents;
    try (Trace.Span span = reads ? Trace.current().span("hash prebuilt objects of " + request.name(), "archive")
        : null) {
      contents = members.parallelStream()
          .map(member -> member.keyedByContent() ? hashes.of(member.object()) : Optional.<String>empty()).toList();
    }
    for (int i = 0; i < members.size(); i++) {
      if (members.get(i).keyedByContent() && contents.get(i).isEmpty()) {
        throw new NoSuchFileException(members.get(i).object().toString(), null, "cannot be read");
      }
    }
    return keyOf(request, i -> contents.get(i).orElseThrow());
  }

  /** The key, with each prebuilt member's content hash from {@code contentHash} (by its position). */
  private String keyOf(ArchiveRequest request, IntFunction<String> contentHash) {
    List<ArchiveRequest.Member> members = request.members();
    Hashing.Parts key = new Hashing.Parts(5 + 2 * members.size()).add(KEY_FORMAT).add(ar.identity())
        .add(ArchiveBuilder.AR_FLAGS).add(Integer.toString(machine)).add(request.name());
    for (int i = 0; i < members.size(); i++) {
      ArchiveRequest.Member member = members.get(i);
      key.add(member.name());
      if (member.keyedByContent()) {
        key.add("prebuilt object ", contentHash.apply(i));
      } else {
        key.add(member.inputKey());
      }
    }
    return key.hash();
  }

  /**
   * Before compiling: the archive if it needs no build (current, or a valid cache entry, which is
   * then copied into place); empty when it must be built.
   */
  public Optional<Outcome> reuse(ArchiveRequest request)
      throws IOException, InterruptedException, BuildFailureException {
    Path target = archiveFile(request.name());
    Path localManifest = workDirectory(request.name()).resolve("manifest.txt");
    Optional<Manifest> local = readManifest(localManifest);
    if (local.isEmpty() && cache == null) {
      // Nothing to reuse, so no key is needed now: prebuilt objects are then hashed once, as the archive is written.
      return Optional.empty();
    }
    String key;
    try {
      key = keyOf(request);
    } catch (NoSuchFileException e) {
      throw new BuildFailureException("Object " + e.getFile() + " of archive '" + request.name()
          + "' does not exist or cannot be read.");
    }
    if (local.isPresent() && local.get().key().equals(key) && headersUnchanged(local.get())
        && stampMatches(request.name(), target)) {
      return Optional.of(new Outcome(request.name(), target, local.get().archiveDigest(), Status.UP_TO_DATE,
          request.members().size(), 0, 0, null));
    }
    if (cache == null) {
      return Optional.empty();
    }
    Optional<CacheEntry> entry = cache.find(EntryKind.ARCHIVE, key, "archive '" + request.name() + "'",
        candidate -> verifyEntry(candidate, key, request));
    if (entry.isEmpty()) {
      return Optional.empty();
    }
    Optional<Manifest> cached = readManifest(entry.get().manifest());
    if (cached.isEmpty() || !cache.checkOut(entry.get(), target)) {
      return Optional.empty(); // dropped by a concurrent build right after it was checked
    }
    recordLocal(request.name(), cached.get(), target);
    return Optional.of(new Outcome(request.name(), target, cached.get().archiveDigest(), Status.CACHE_HIT,
        request.members().size(), 0, 0, null));
  }

  /** Whether a cache entry (local, or just received from the remote) can stand for this archive. */
  private BuildCache.Verdict verifyEntry(CacheEntry entry, String key, ArchiveRequest request)
      throws IOException {
    Manifest manifest = Manifest.read(entry.manifest());
    if (!manifest.key().equals(key)) {
      return BuildCache.Verdict.corrupt("its manifest is for another key");
    }
    if (!headersUnchanged(manifest)) {
      log.debug("cache entry for " + request.name() + " was built against other headers");
      return BuildCache.Verdict.STALE;
    }
    try (Trace.Span span = Trace.current().span("validate cached " + request.name(), "archive")) {
      validateEntry(entry, manifest, request);
    } catch (ArchiveInvalidException e) {
      return BuildCache.Verdict.corrupt(e.problem());
    }
    return BuildCache.Verdict.USABLE;
  }

  /** After compiling: builds, validates, records and caches the archive, and waits for all of it. */
  public Outcome build(ArchiveRequest request, Map<Path, List<Dependency>> dependencies)
      throws IOException, ToolchainException, BuildFailureException, InterruptedException {
    return start(request, dependencies).await();
  }

  /**
   * After compiling: makes the archive's batches here, then writes, validates, records and caches
   * the archive on a thread of its own while the build goes on ({@link ArchiveInProgress}).
   */
  public ArchiveInProgress start(ArchiveRequest request, Map<Path, List<Dependency>> dependencies)
      throws IOException, ToolchainException, BuildFailureException, InterruptedException {
    // Loops rather than streams over the members, here and below: tens of thousands go through each.
    List<ArchiveBuilder.Input> inputs = new ArrayList<>(request.members().size());
    for (ArchiveRequest.Member member : request.members()) {
      inputs.add(new ArchiveBuilder.Input(member.name(), member.object(), batchInputKey(member, dependencies),
          member.seen()));
    }
    Path target = archiveFile(request.name());
    int size = batchSize > 0 ? batchSize : defaultBatchSize(ar, inputs.size(), parallelism);
    ArchiveBuilder.Batched batched;
    try {
      batched = new ArchiveBuilder(ar, runner, size, parallelism, cache, hashes, log, machine)
          .batch(request.name(), inputs, workDirectory(request.name()), target);
    } catch (NoSuchFileException e) {
      throw missing(request, e);
    } catch (ArchiveInvalidException e) {
      throw invalid(request, e, target);
    }
    // The batches stand in for the archive in a link that runs while it is written: thin ones
    // where members are large, ones that hold the bytes where they are small (ArchiveBuilder).
    return ArchiveInProgress.start(request.name(), target, batched.files(),
        written -> finish(request, dependencies, batched, target, written));
  }

  /**
   * The archive written from its batches (then {@code written} is told, and a link may read it),
   * checked against the plan and validated. What later builds read is worked out on the records
   * threads meanwhile, which the validation does not wait for: the archive's manifest on one, and
   * on the other the batches' keys and the prebuilt objects' hashes, saved for the next build (tens
   * of milliseconds each for 50,000 members). The manifest is written once the archive passed.
   */
  private Outcome finish(ArchiveRequest request, Map<Path, List<Dependency>> dependencies,
      ArchiveBuilder.Batched batched, Path target, Consumer<ArchiveInProgress.Written> written)
      throws IOException, BuildFailureException {
    ArchiveBuilder.Result built;
    List<MemberSymbols> definitions;
    String digest;
    CompletableFuture<Manifest> manifest = new CompletableFuture<>();
    try {
      built = batched.combine();
      definitions = new ArrayList<>(built.members().size());
      for (InspectedObject member : built.members()) {
        definitions.add(new MemberSymbols(member.name(), member.strongDefinitions()));
      }
      written.accept(new ArchiveInProgress.Written(built.digest(), definitions));
      checkUnchangedSincePlanning(request.name(), built.members());
      records.submit(() -> {
        try {
          manifest.complete(manifest(request, dependencies, built.members(), built.digest()));
        } catch (RuntimeException e) {
          manifest.completeExceptionally(e); // the record below then fails too, rather than wait
          throw e;
        }
      });
      records.submit(() -> {
        try (Trace.Span span = Trace.current().span("batch keys of " + request.name(), "archive")) {
          batched.recordBatches(built);
        }
        try (Trace.Span span = Trace.current().span("remember hashes of " + request.name(), "archive")) {
          rememberPrebuiltHashes(request, built.members());
        }
        try (Trace.Span span = Trace.current().span("save content hashes", "archive")) {
          hashes.save();
        }
      });
      try (Trace.Span span = Trace.current().span("validate " + request.name(), "archive")) {
        validator.validateWritten(target, built.members());
      }
      // Taken by the writer from the bytes it wrote (ArchiveDigest reads the same from the file, as
      // it does for cache entries): validation has just read the headers back.
      digest = built.digest();
    } catch (NoSuchFileException e) {
      throw missing(request, e);
    } catch (ArchiveInvalidException e) {
      throw invalid(request, e, target);
    }
    records.submit(() -> record(request, manifest.join(), target));
    return new Outcome(request.name(), target, digest, Status.BUILT, built.members().size(),
        built.batches(), built.batchesRun(), definitions);
  }

  private static BuildFailureException missing(ArchiveRequest request, NoSuchFileException e) {
    return new BuildFailureException("Object " + e.getFile() + " of archive '" + request.name() + "' does not exist.");
  }

  /** The archive is removed: nothing links or caches one that failed. */
  private static BuildFailureException invalid(ArchiveRequest request, ArchiveInvalidException e, Path target)
      throws IOException {
    Files.deleteIfExists(target);
    String problem = e.problem().endsWith(".") ? e.problem() : e.problem() + ".";
    return new BuildFailureException("Archive '" + request.name() + "' failed validation: " + problem
        + " It was not linked or cached.");
  }

  /**
   * What a member's batch is keyed by: a compiled object's compile key together with the headers it
   * was compiled against, since the compile key covers the source alone and a header edit rewrites
   * the object (a batch kept across it would list the old object's size); {@code null} for a
   * prebuilt object, which its batch keys by content.
   */
  private String batchInputKey(ArchiveRequest.Member member, Map<Path, List<Dependency>> dependencies) {
    if (member.keyedByContent()) {
      return null;
    }
    List<String> parts = new ArrayList<>(List.of(member.inputKey()));
    for (Dependency dependency : dependencies.getOrDefault(member.object(), List.of())) {
      parts.add(headerPaths.portable(dependency.path()) + "=" + dependency.hash());
    }
    return Hashing.ofStrings(parts);
  }

  /**
   * Waits until every archive built so far has its manifest, stamp and cache entry (written in the
   * background, see {@link PendingRecords}); throws the first failure.
   */
  public void awaitRecords() throws IOException, InterruptedException {
    records.awaitAll();
  }

  /** What the archive is made of, under its key, for the next build and the cache. */
  private Manifest manifest(ArchiveRequest request, Map<Path, List<Dependency>> dependencies,
      List<InspectedObject> members, String digest) {
    try (Trace.Span span = Trace.current().span("manifest of " + request.name(), "archive")) {
      List<Manifest.Member> manifestMembers = new ArrayList<>();
      for (InspectedObject member : members) {
        List<Manifest.Header> headers = new ArrayList<>();
        for (Dependency dependency : dependencies.getOrDefault(member.object(), List.of())) {
          headers.add(new Manifest.Header(headerPaths.portable(dependency.path()), dependency.hash()));
        }
        manifestMembers.add(new Manifest.Member(member.name(), member.sha256(), headers));
      }
      // Every member was hashed as it was archived: the key needs no other look at the objects.
      String key = keyOf(request, i -> members.get(i).sha256());
      return new Manifest(key, request.name(), digest, ar.identity().lines().findFirst().orElse(""), manifestMembers);
    }
  }

  /**
   * The manifest and stamp the next build compares with, and the cache entry for other builds:
   * written once the archive passed its checks.
   */
  private void record(ArchiveRequest request, Manifest manifest, Path target) throws IOException {
    try (Trace.Span span = Trace.current().span("record " + request.name(), "archive")) {
      recordLocal(request.name(), manifest, target);
      if (cache != null) {
        cache.store(EntryKind.ARCHIVE, manifest.key(), target, manifest.toBytes());
      }
    }
  }

  /**
   * A prebuilt object is keyed by the hash taken when the build was planned; the archive holds the
   * bytes inspected later. They must be the same, or the cache would file new bytes under the old key.
   */
  private void checkUnchangedSincePlanning(String name, List<InspectedObject> members)
      throws ArchiveInvalidException {
    for (InspectedObject member : members) {
      Optional<String> planned = hashes.hashedEarlier(member.object());
      if (planned.isPresent() && !planned.get().equals(member.sha256())) {
        throw new ArchiveInvalidException(archiveFile(name), member.object() + " changed while the build was "
            + "running (another process is writing it?). Run the build again once it is complete.");
      }
    }
  }

  /** Prebuilt objects were hashed as they were archived: that is their content key, now and next build. */
  private void rememberPrebuiltHashes(ArchiveRequest request, List<InspectedObject> members) {
    for (int i = 0; i < members.size(); i++) {
      if (request.members().get(i).keyedByContent()) {
        InspectedObject member = members.get(i);
        hashes.remember(member.object(), member.sha256(), member.size(), member.modified().toMillis());
      }
    }
  }

  private void validateEntry(CacheEntry entry, Manifest manifest, ArchiveRequest request)
      throws IOException, ArchiveInvalidException {
    if (manifest.members().size() != request.members().size()) {
      throw new ArchiveInvalidException(entry.payload(), "manifest lists " + manifest.members().size()
          + " members, " + request.members().size() + " planned");
    }
    List<PlannedMember> planned = new ArrayList<>();
    for (int i = 0; i < manifest.members().size(); i++) {
      ArchiveRequest.Member member = request.members().get(i);
      planned.add(new PlannedMember(member.name(), member.object(), manifest.members().get(i).sha256()));
    }
    ArReader.Contents contents = validator.validate(entry.payload(), planned);
    // Members match their hashes; the digest covers the rest (headers, index, padding).
    String digest;
    try {
      digest = ArchiveDigest.of(entry.payload(), contents, planned.stream().map(PlannedMember::sha256).toList());
    } catch (ArFormatException e) {
      throw new ArchiveInvalidException(entry.payload(), e.getMessage());
    }
    if (!digest.equals(manifest.archiveDigest())) {
      throw new ArchiveInvalidException(entry.payload(), "digest of the archive differs from its manifest");
    }
  }

  private boolean headersUnchanged(Manifest manifest) {
    return manifest.members().stream().allMatch(member -> headerPaths.unchanged(member.headers(), hashes::of));
  }

  private void recordLocal(String name, Manifest manifest, Path target) throws IOException {
    manifest.write(workDirectory(name).resolve("manifest.txt"));
    AtomicFiles.write(workDirectory(name).resolve("stamp"), stamp(target).getBytes(StandardCharsets.UTF_8));
  }

  private boolean stampMatches(String name, Path target) {
    try {
      return Files.isRegularFile(target)
          && Files.readString(workDirectory(name).resolve("stamp"), StandardCharsets.UTF_8).equals(stamp(target));
    } catch (IOException e) {
      return false;
    }
  }

  /** Size and modification time: enough to notice an archive replaced or damaged outside the build. */
  private static String stamp(Path file) throws IOException {
    return Files.size(file) + " " + Files.getLastModifiedTime(file).toMillis();
  }

  private static Optional<Manifest> readManifest(Path file) {
    try {
      return Files.isRegularFile(file) ? Optional.of(Manifest.read(file)) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

}
