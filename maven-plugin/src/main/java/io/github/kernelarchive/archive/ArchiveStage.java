package io.github.kernelarchive.archive;

import io.github.kernelarchive.build.BuildFailureException;
import io.github.kernelarchive.build.BuildLog;
import io.github.kernelarchive.build.ToolchainException;
import io.github.kernelarchive.cache.ArchiveCache;
import io.github.kernelarchive.cache.Manifest;
import io.github.kernelarchive.compile.CompileState.Dependency;
import io.github.kernelarchive.compile.ContentHashes;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.util.AtomicFiles;
import io.github.kernelarchive.util.Hashing;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Produces each {@code lib<name>.a}: kept when it is current, else copied from the cache when a
 * validated entry for the same inputs exists (then its sources need no compiling), else built from
 * the objects, validated, and published to the cache. Nothing that failed validation is linked or
 * cached.
 */
public final class ArchiveStage {
  private static final String KEY_FORMAT = "kernel-archive archive key 1";

  public enum Status { UP_TO_DATE, CACHE_HIT, BUILT }

  /** @param sha256 the archive's content hash (from its manifest) */
  public record Outcome(String name, Path archive, String sha256, Status status, int members, int batches,
      int batchesRun) {}

  private final Tool ar;
  private final ProcessRunner runner;
  private final ArchiveCache cache;
  private final int batchSize;
  private final int parallelism;
  private final Path outputDirectory;
  private final Path projectDirectory;
  private final ContentHashes hashes;
  private final BuildLog log;
  private final ArchiveValidator validator = new ArchiveValidator(ElfObject.hostMachine());

  /** @param cache {@code null} when the cache is disabled */
  public ArchiveStage(Tool ar, ProcessRunner runner, ArchiveCache cache, int batchSize, int parallelism,
      Path outputDirectory, Path projectDirectory, ContentHashes hashes, BuildLog log) {
    this.ar = ar;
    this.runner = runner;
    this.cache = cache;
    this.batchSize = batchSize;
    this.parallelism = parallelism;
    this.outputDirectory = outputDirectory;
    this.projectDirectory = projectDirectory;
    this.hashes = hashes;
    this.log = log;
  }

  public Path archiveFile(String name) {
    return outputDirectory.resolve("lib" + name + ".a");
  }

  private Path workDirectory(String name) {
    return outputDirectory.resolve("archive").resolve(name);
  }

  /** The key over everything the archive is made from: archiver, member names and member input keys. */
  public String keyOf(ArchiveRequest request) {
    List<String> parts = new ArrayList<>(List.of(KEY_FORMAT, ar.identity(), ArchiveBuilder.AR_FLAGS,
        Integer.toString(ElfObject.hostMachine()), request.name()));
    for (ArchiveRequest.Member member : request.members()) {
      parts.add(member.name());
      parts.add(member.inputKey());
    }
    return Hashing.ofStrings(parts);
  }

  /**
   * Before compiling: the archive if it needs no build (current, or a valid cache entry, which is
   * then copied into place); empty when it must be built.
   */
  public Optional<Outcome> reuse(ArchiveRequest request) throws IOException {
    String key = keyOf(request);
    Path target = archiveFile(request.name());
    Path localManifest = workDirectory(request.name()).resolve("manifest.txt");
    Optional<Manifest> local = readManifest(localManifest);
    if (local.isPresent() && local.get().key().equals(key) && headersUnchanged(local.get())
        && stampMatches(request.name(), target)) {
      return Optional.of(new Outcome(request.name(), target, local.get().archiveDigest(), Status.UP_TO_DATE,
          request.members().size(), 0, 0));
    }
    if (cache == null) {
      return Optional.empty();
    }
    Optional<ArchiveCache.Entry> entry = cache.find(key);
    if (entry.isEmpty()) {
      return Optional.empty();
    }
    Optional<Manifest> cached = readManifest(entry.get().manifest());
    if (cached.isEmpty() || !cached.get().key().equals(key)) {
      log.warn("Cache entry " + entry.get().directory() + " has an unreadable manifest: dropped and rebuilt.");
      cache.discard(entry.get());
      return Optional.empty();
    }
    if (!headersUnchanged(cached.get())) {
      log.debug("cache entry for " + request.name() + " was built against other headers");
      return Optional.empty();
    }
    try {
      validateEntry(entry.get(), cached.get(), request);
    } catch (ArchiveInvalidException e) {
      log.warn("Cache entry for archive '" + request.name() + "' is corrupt (" + e.problem()
          + "): dropped, the archive is rebuilt.");
      cache.discard(entry.get());
      return Optional.empty();
    }
    Path temporary = AtomicFiles.temporarySibling(target);
    try {
      Files.copy(entry.get().archive(), temporary, StandardCopyOption.REPLACE_EXISTING);
      AtomicFiles.publish(temporary, target);
    } finally {
      Files.deleteIfExists(temporary);
    }
    cache.touch(entry.get());
    recordLocal(request.name(), cached.get(), target);
    return Optional.of(new Outcome(request.name(), target, cached.get().archiveDigest(), Status.CACHE_HIT,
        request.members().size(), 0, 0));
  }

  /** After compiling: builds, validates, records and caches the archive. */
  public Outcome build(ArchiveRequest request, Map<Path, List<Dependency>> dependencies)
      throws IOException, ToolchainException, BuildFailureException, InterruptedException {
    List<ArchiveBuilder.Input> inputs = request.members().stream()
        .map(member -> new ArchiveBuilder.Input(member.name(), member.object())).toList();
    Path target = archiveFile(request.name());
    ArchiveBuilder.Result built;
    String digest;
    try {
      built = new ArchiveBuilder(ar, runner, batchSize, parallelism, log)
          .build(request.name(), inputs, workDirectory(request.name()), target);
      checkUnchangedSincePlanning(request.name(), built.members());
      ArReader.Contents contents = validator.validateWritten(target, built.members());
      // Every member's bytes match its hash, so the digest needs no second pass over the payload.
      digest = ArchiveDigest.of(target, contents, built.members().stream().map(InspectedObject::sha256).toList());
    } catch (NoSuchFileException e) {
      throw new BuildFailureException("Object " + e.getFile() + " of archive '" + request.name()
          + "' does not exist.");
    } catch (ArchiveInvalidException e) {
      Files.deleteIfExists(target);
      throw new BuildFailureException("Archive '" + request.name() + "' failed validation: " + e.problem()
          + " It was not linked or cached.");
    }
    List<Manifest.Member> manifestMembers = new ArrayList<>();
    for (InspectedObject member : built.members()) {
      List<Manifest.Header> headers = new ArrayList<>();
      for (Dependency dependency : dependencies.getOrDefault(member.object(), List.of())) {
        headers.add(new Manifest.Header(portable(dependency.path()), dependency.hash()));
      }
      manifestMembers.add(new Manifest.Member(member.name(), member.sha256(), headers));
    }
    String key = keyOf(request);
    Manifest manifest = new Manifest(key, request.name(), digest,
        ar.identity().lines().findFirst().orElse(""), manifestMembers);
    recordLocal(request.name(), manifest, target);
    if (cache != null) {
      cache.find(key).ifPresent(stale -> discardQuietly(stale)); // same inputs, other headers
      cache.publish(key, target, manifest);
      int evicted = cache.evict(key);
      if (evicted > 0) {
        log.info("Cache: evicted " + evicted + " least recently used entries to stay under the size cap");
      }
    }
    return new Outcome(request.name(), target, manifest.archiveDigest(), Status.BUILT, built.members().size(),
        built.batches(), built.batchesRun());
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

  private void validateEntry(ArchiveCache.Entry entry, Manifest manifest, ArchiveRequest request)
      throws IOException, ArchiveInvalidException {
    if (manifest.members().size() != request.members().size()) {
      throw new ArchiveInvalidException(entry.archive(), "manifest lists " + manifest.members().size()
          + " members, " + request.members().size() + " planned");
    }
    List<PlannedMember> planned = new ArrayList<>();
    for (int i = 0; i < manifest.members().size(); i++) {
      ArchiveRequest.Member member = request.members().get(i);
      planned.add(new PlannedMember(member.name(), member.object(), manifest.members().get(i).sha256()));
    }
    validator.validate(entry.archive(), planned);
    // Members match their hashes; the digest covers the rest (headers, index, padding).
    if (!ArchiveDigest.of(entry.archive(), planned.stream().map(PlannedMember::sha256).toList())
        .equals(manifest.archiveDigest())) {
      throw new ArchiveInvalidException(entry.archive(), "digest of the archive differs from its manifest");
    }
  }

  private boolean headersUnchanged(Manifest manifest) {
    for (Manifest.Member member : manifest.members()) {
      for (Manifest.Header header : member.headers()) {
        if (!hashes.of(resolve(header.path())).map(header.sha256()::equals).orElse(false)) {
          return false;
        }
      }
    }
    return true;
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

  private void discardQuietly(ArchiveCache.Entry entry) {
    try {
      cache.discard(entry);
    } catch (IOException e) {
      log.debug("could not drop stale cache entry " + entry.directory() + ": " + e.getMessage());
    }
  }

  private String portable(String absolute) {
    Path path = Path.of(absolute);
    return path.startsWith(projectDirectory) ? projectDirectory.relativize(path).toString() : absolute;
  }

  private Path resolve(String portable) {
    Path path = Path.of(portable);
    return path.isAbsolute() ? path : projectDirectory.resolve(path);
  }
}
