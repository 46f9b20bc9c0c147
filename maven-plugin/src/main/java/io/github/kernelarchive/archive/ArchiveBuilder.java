package io.github.kernelarchive.archive;

import io.github.kernelarchive.ar.ArFormatException;
import io.github.kernelarchive.ar.ArMember;
import io.github.kernelarchive.ar.ArReader;
import io.github.kernelarchive.ar.ArWriter;
import io.github.kernelarchive.ar.ArchiveDigest;
import io.github.kernelarchive.cache.BuildCache;
import io.github.kernelarchive.cache.CacheEntry;
import io.github.kernelarchive.cache.ContentManifest;
import io.github.kernelarchive.cache.EntryKind;
import io.github.kernelarchive.common.BuildLog;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.elf.ObjectRequirements;
import io.github.kernelarchive.toolchain.ProcessResult;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.ResponseFile;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.util.AtomicFiles;
import io.github.kernelarchive.util.BoundedPool;
import io.github.kernelarchive.util.Hashing;
import io.github.kernelarchive.util.KeyFile;
import io.github.kernelarchive.util.Trace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

/**
 * Builds {@code lib<name>.a} without quadratic rewrites and with every object read once: the
 * members are cut into batches of {@code batchSize}, each batch is one {@code ar --thin qcSD}
 * call reading its members from a response file (batches run in parallel and are reused while
 * their members are unchanged). The final archive is written in one pass ({@link ArWriter}) that
 * reads each object once to check it ({@link ObjectRequirements}: a wrong-CPU or non-object file is
 * refused, naming it), find its symbols for the index and its strong definitions for the duplicate
 * check, hash it and copy it. Batches with nothing recorded from an earlier build start at once and
 * overlap that pass. A thin batch records its members by path without copying them; before the
 * archive is published, every batch must list exactly its planned objects at their sizes. The
 * batch size only changes progress granularity: the result is byte-identical for any size.
 */
public final class ArchiveBuilder {
  /** {@code q} append without replacing (repeated basenames stay), {@code c} quiet create,
   *  {@code S} no index (written once by the combiner), {@code D} deterministic headers. */
  static final String AR_FLAGS = "qcSD";
  /** Batches record members by path (GNU ar 2.38+, llvm-ar); the combine copies the bytes once. */
  static final String THIN = "--thin";
  private static final String BATCH_KEY_FORMAT = "kernel-archive batch key 3";

  /** An object to archive under {@code name}. */
  public record Input(String name, Path object) {}

  /**
   * @param members every member as inspected, in archive order
   * @param digest the archive's {@link ArchiveDigest}, from the bytes as written
   */
  public record Result(Path archive, int batches, int batchesRun, List<InspectedObject> members, String digest) {}

  private final Tool ar;
  private final ProcessRunner runner;
  private final int batchSize;
  private final int parallelism;
  private final BuildCache cache;
  private final BuildLog log;
  private final ObjectRequirements requirements = new ObjectRequirements(ElfObject.hostMachine());
  private final Map<Path, Path> realFolders = new ConcurrentHashMap<>();

  /**
   * @param cache where finished batches are kept and looked up; {@code null}: none
   */
  public ArchiveBuilder(Tool ar, ProcessRunner runner, int batchSize, int parallelism, BuildCache cache,
      BuildLog log) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batch size must be at least 1");
    }
    this.ar = ar;
    this.runner = runner;
    this.batchSize = batchSize;
    this.parallelism = parallelism;
    this.cache = cache;
    this.log = log;
  }

  /**
   * Builds the archive {@code output} from {@code inputs} (in order), keeping batch archives in
   * {@code workDirectory}. The archive is published by rename; its structure is not read back here.
   *
   * @throws java.nio.file.NoSuchFileException when an object does not exist
   * @throws ArchiveInvalidException when an object is not one this archive can hold, or changed
   *     while it was archived
   */
  public Result build(String name, List<Input> inputs, Path workDirectory, Path output)
      throws IOException, ToolchainException, ArchiveInvalidException, InterruptedException {
    Files.createDirectories(workDirectory);
    int batches = (inputs.size() + batchSize - 1) / batchSize;
    removeBatchesBeyond(workDirectory, batches);
    // How each batch names its members (relative to its folder), worked out once per object: the
    // batch's response file, its key and its check all use it.
    List<String> relativeNames = relativeNames(workDirectory, inputs);

    Path temporary = AtomicFiles.temporarySibling(output);
    try {
      List<InspectedObject> members;
      String digest;
      boolean[] ran = new boolean[batches];
      boolean[] fromCache = new boolean[batches];
      List<String> failures = new ArrayList<>();
      try (BoundedPool<BatchOutcome> pool = new BoundedPool<>("kernel-ar", parallelism)) {
        // Without a cache, a batch with nothing recorded by an earlier build (every batch of a clean
        // build) runs whatever its objects hold: start it now, so ar works while the archive is
        // written. With one, its key (over the members' hashes) must be known first, to look it up.
        for (int i = 0; i < batches && cache == null; i++) {
          if (!Files.isRegularFile(batchFile(workDirectory, i)) || !Files.isRegularFile(keyFile(workDirectory, i))) {
            ran[i] = true;
            submitBatch(pool, workDirectory, i, sliceOf(relativeNames, i));
          }
        }
        try {
          try (Trace.Span span = Trace.current().span("combine " + name, "archive")) {
            Combined combined = write(name, inputs, stat(inputs), temporary, output);
            members = combined.members();
            digest = combined.digest();
          }
        } catch (IOException | ArchiveInvalidException e) {
          pool.awaitAll((done, total, outcome) -> {}); // no ar run outlives the build that started it
          throw e;
        }
        for (int i = 0; i < batches; i++) {
          if (ran[i]) {
            continue;
          }
          String key = batchKey(sliceOf(members, i), sliceOf(relativeNames, i));
          if (KeyFile.upToDate(batchFile(workDirectory, i), keyFile(workDirectory, i), key)) {
            continue;
          }
          fromCache[i] = restoreBatch(workDirectory, i, key, sliceOf(members, i), sliceOf(relativeNames, i));
          if (!fromCache[i]) {
            ran[i] = true;
            submitBatch(pool, workDirectory, i, sliceOf(relativeNames, i));
          }
        }
        pool.awaitAll((done, total, outcome) -> report(name, batches, done, total, outcome, failures));
      }
      if (!failures.isEmpty()) {
        throw new ToolchainException(ar.command() + " failed on " + failures.size() + " batch(es) of archive '"
            + name + "': " + failures.get(0).lines().findFirst().orElse("") + ". Check the archiver or set kernel.ar.");
      }
      int batchesRun = 0;
      for (int i = 0; i < batches; i++) {
        if (ran[i] || fromCache[i]) {
          String key = batchKey(sliceOf(members, i), sliceOf(relativeNames, i));
          KeyFile.record(keyFile(workDirectory, i), key);
          if (ran[i] && cache != null) {
            Path batch = batchFile(workDirectory, i);
            cache.store(EntryKind.BATCH, key, batch, new ContentManifest(key, Hashing.ofFile(batch), List.of()).toBytes());
          }
          batchesRun += ran[i] ? 1 : 0;
        }
      }
      try (Trace.Span span = Trace.current().span("check batches of " + name, "archive")) {
        checkBatches(workDirectory, batches, members, relativeNames);
      }
      AtomicFiles.publish(temporary, output);
      return new Result(output, batches, batchesRun, members, digest);
    } finally {
      Files.deleteIfExists(temporary);
    }
  }

  /** Batch {@code batch}'s part of a list that runs over all members. */
  private <T> List<T> sliceOf(List<T> all, int batch) {
    return all.subList(batch * batchSize, Math.min(all.size(), (batch + 1) * batchSize));
  }

  /**
   * Each object's size and modification time, on all cores, taken before its bytes are read: a
   * write that lands while they are read changes them afterwards. The sizes place the members.
   */
  private static List<BasicFileAttributes> stat(List<Input> inputs) throws IOException, ArchiveInvalidException {
    // A missing object throws NoSuchFileException: the archive stage names it.
    return onAllCores(inputs.size(), i -> Files.readAttributes(inputs.get(i).object(), BasicFileAttributes.class));
  }

  /** One item's work, which may fail as reading an object or archive does. */
  private interface Item<T> {
    T run(int item) throws IOException, ArchiveInvalidException;
  }

  /** Runs {@code work} for items [0, count) on all cores; the first failure in item order is thrown. */
  private static <T> List<T> onAllCores(int count, Item<T> work) throws IOException, ArchiveInvalidException {
    Object[] results = new Object[count];
    IntStream.range(0, count).parallel().forEach(i -> {
      try {
        results[i] = work.run(i);
      } catch (IOException | ArchiveInvalidException e) {
        results[i] = new Failure(e);
      }
    });
    List<T> done = new ArrayList<>(count);
    for (Object result : results) {
      if (result instanceof Failure failure) {
        if (failure.exception instanceof IOException e) {
          throw e;
        }
        throw (ArchiveInvalidException) failure.exception;
      }
      @SuppressWarnings("unchecked")
      T value = (T) result;
      done.add(value);
    }
    return done;
  }

  /** Marks a failed item among the results (a result may itself be anything, even null). */
  private record Failure(Exception exception) {}

  private record BatchOutcome(int number, int members, String error) {}

  /** One {@code [n/N]} line per finished batch; failures are collected for one error at the end. */
  private void report(String name, int batches, int done, int total, BatchOutcome outcome, List<String> failures) {
    if (outcome.error == null) {
      log.info("[" + done + "/" + total + "] AR " + name + " batch " + (outcome.number + 1) + "/" + batches
          + " (" + outcome.members + " objects)");
    } else {
      log.error("[" + done + "/" + total + "] AR " + name + " batch " + (outcome.number + 1) + " FAILED");
      log.error(outcome.error);
      failures.add(outcome.error);
    }
  }

  /** @param objects the batch's members, relative to {@code workDirectory} (ar runs there) */
  private void submitBatch(BoundedPool<BatchOutcome> pool, Path workDirectory, int number, List<String> objects) {
    pool.submit(() -> runBatch(workDirectory, number, objects));
  }

  private BatchOutcome runBatch(Path workDirectory, int number, List<String> objects) {
    try (Trace.Span span = Trace.current().span("ar " + workDirectory.getFileName() + " batch " + (number + 1), "ar")) {
      return runBatchTraced(workDirectory, number, objects);
    }
  }

  private BatchOutcome runBatchTraced(Path workDirectory, int number, List<String> objects) {
    Path target = batchFile(workDirectory, number);
    Path temporary;
    try {
      // A name that does not exist yet: ar appends to an existing file instead of replacing it.
      temporary = AtomicFiles.temporarySibling(target);
    } catch (IOException e) {
      return new BatchOutcome(number, objects.size(), e.toString());
    }
    try {
      // The old key must not vouch for the new batch if the build stops before the key is recorded.
      Files.deleteIfExists(keyFile(workDirectory, number));
      // Relative to the batch's folder: the batch then fits any checkout.
      String rsp = ResponseFile.write(workDirectory.resolve(String.format("batch-%05d.rsp", number)), objects);
      ProcessResult result = runner.run(List.of(ar.command(), THIN, AR_FLAGS, temporary.toString(), rsp), workDirectory);
      if (!result.succeeded()) {
        return new BatchOutcome(number, objects.size(), "exit " + result.exitCode() + ": " + result.output().strip());
      }
      AtomicFiles.publish(temporary, target);
      return new BatchOutcome(number, objects.size(), null);
    } catch (IOException e) {
      return new BatchOutcome(number, objects.size(), e.toString());
    } finally {
      try {
        Files.deleteIfExists(temporary);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The members as archived, and the archive's digest from the bytes written. */
  private record Combined(List<InspectedObject> members, String digest) {}

  /**
   * Writes the archive to {@code temporary} (on all cores), each object read once: checked, its
   * symbols and strong definitions taken, hashed and copied. Fails when an object is not one this
   * archive can hold, or changed while it was archived.
   */
  private Combined write(String name, List<Input> inputs, List<BasicFileAttributes> stats, Path temporary,
      Path output) throws IOException, ArchiveInvalidException {
    List<ArWriter.Entry> entries = new ArrayList<>(inputs.size());
    for (int i = 0; i < inputs.size(); i++) {
      entries.add(new ArWriter.Entry(inputs.get(i).name(), inputs.get(i).object(), stats.get(i).size()));
    }
    List<List<String>> strongDefinitions = new ArrayList<>(Collections.nCopies(inputs.size(), List.of()));
    ArWriter.Inspector inspector = (member, bytes) -> {
      Path object = inputs.get(member).object();
      try {
        ElfObject parsed = requirements.check(bytes,
            () -> "object " + object + " (member " + (member + 1) + " of archive '" + name + "')", object);
        strongDefinitions.set(member, parsed.strongDefinitions());
        return parsed.definedExternalSymbols();
      } catch (ObjectRequirements.MemberProblem e) {
        throw new ArWriter.RejectedMember(member, e.getMessage());
      }
    };
    ArWriter.Written written;
    try {
      written = ArWriter.write(temporary, entries, parallelism, inspector);
    } catch (ArWriter.RejectedMember e) {
      throw new ArchiveInvalidException(output, e.getMessage());
    } catch (ArWriter.SourceChangedException e) {
      throw new ArchiveInvalidException(output, e.getMessage());
    } catch (NoSuchFileException e) {
      throw e; // an object vanished: the archive stage names it
    } catch (IOException e) {
      // Disk full, a file size limit, a read-only folder: name the file, leave nothing behind.
      throw new IOException("cannot write " + output + " (" + e.getMessage() + "); nothing was published."
          + " Check the free space, quota and permissions of " + output.getParent(), e);
    }
    List<InspectedObject> members = new ArrayList<>(inputs.size());
    for (int i = 0; i < inputs.size(); i++) {
      members.add(new InspectedObject(inputs.get(i).name(), inputs.get(i).object(), stats.get(i).size(),
          stats.get(i).lastModifiedTime(), written.hashes().get(i), written.symbols().get(i), strongDefinitions.get(i)));
    }
    checkUnchanged(members, output);
    return new Combined(members, written.digest());
  }

  /**
   * Fails when an object's size or time moved since it was looked at before its read: its bytes
   * may be torn, and its hash must not be kept under the old time. On all cores, in archive order.
   */
  static void checkUnchanged(List<InspectedObject> members, Path output)
      throws IOException, ArchiveInvalidException {
    onAllCores(members.size(), i -> {
      InspectedObject member = members.get(i);
      BasicFileAttributes now = Files.readAttributes(member.object(), BasicFileAttributes.class);
      if (now.size() != member.size() || !now.lastModifiedTime().equals(member.modified())) {
        throw new ArchiveInvalidException(output, member.object() + " changed while it was archived (is another"
            + " process writing it?). Run the build again once it is complete.");
      }
      return null;
    });
  }

  /** Checks every batch, on all cores (each is a file of its own); the first problem in batch order is reported. */
  private void checkBatches(Path workDirectory, int batches, List<InspectedObject> members, List<String> relativeNames)
      throws IOException, ArchiveInvalidException {
    onAllCores(batches, i -> {
      checkBatch(batchFile(workDirectory, i), workDirectory, sliceOf(members, i), sliceOf(relativeNames, i));
      return null;
    });
  }

  /**
   * Checks that the thin batch {@code batchFile} lists exactly {@code planned}, in order, at the
   * inspected sizes; relative member names are taken relative to {@code folder}, where the batch
   * is (or will be) used. {@code given} are the names the batch was made from.
   */
  private void checkBatch(Path batchFile, Path folder, List<InspectedObject> planned, List<String> given)
      throws IOException, ArchiveInvalidException {
    List<ArMember> recorded;
    try (FileChannel channel = FileChannel.open(batchFile, StandardOpenOption.READ)) {
      recorded = ArReader.readThin(channel).members();
    } catch (ArFormatException e) {
      throw new ArchiveInvalidException(batchFile, e.getMessage());
    }
    if (recorded.size() != planned.size()) {
      throw new ArchiveInvalidException(batchFile, ar.command() + " recorded " + recorded.size() + " of the "
          + planned.size() + " objects of this batch");
    }
    // Batches are given paths relative to their real folder (where ar runs). GNU ar records them as
    // given; llvm-ar records them relative to the batch's path as named on its command line, which
    // differs when a folder on the way is a symbolic link; either may also store absolute paths.
    // A name recorded exactly as given needs no resolving.
    Path realFolder = realFolder(folder);
    Path namedFolder = folder.toAbsolutePath().normalize();
    for (int m = 0; m < planned.size(); m++) {
      String name = recorded.get(m).name();
      Path expected = name.equals(given.get(m)) ? null : real(planned.get(m).object());
      if (expected != null && !real(realFolder.resolve(name)).equals(expected)
          && !real(namedFolder.resolve(name)).equals(expected)) {
        throw new ArchiveInvalidException(batchFile, "member " + (m + 1) + " is '" + name + "' but " + expected
            + " was planned there (missing, extra or reordered member)");
      }
      if (recorded.get(m).size() != planned.get(m).size()) {
        throw new ArchiveInvalidException(batchFile, "member " + (m + 1) + " (" + planned.get(m).object() + ") was recorded at "
            + recorded.get(m).size() + " bytes but has " + planned.get(m).size() + " (changed while archiving)");
      }
    }
  }

  /**
   * Takes batch {@code number} from the cache when an entry for its key lists exactly its members;
   * returns whether it did. Thin batches name members relative to their folder, so an entry made
   * in another checkout fits this one.
   */
  private boolean restoreBatch(Path workDirectory, int number, String key, List<InspectedObject> planned,
      List<String> given) throws IOException, InterruptedException {
    if (cache == null) {
      return false;
    }
    Optional<CacheEntry> entry = cache.find(EntryKind.BATCH, key, "ar batch " + (number + 1), candidate -> {
      ContentManifest manifest = ContentManifest.read(candidate.manifest());
      if (!manifest.key().equals(key) || !manifest.sha256().equals(Hashing.ofFile(candidate.payload()))) {
        return BuildCache.Verdict.corrupt("the batch differs from its manifest");
      }
      try {
        checkBatch(candidate.payload(), workDirectory, planned, given);
      } catch (ArchiveInvalidException e) {
        return BuildCache.Verdict.corrupt(e.problem());
      }
      return BuildCache.Verdict.USABLE;
    });
    if (entry.isEmpty()) {
      return false;
    }
    Files.deleteIfExists(keyFile(workDirectory, number));
    return cache.checkOut(entry.get(), batchFile(workDirectory, number));
  }

  /** Over the archiver and each member's name, path relative to the batch folder, and content hash. */
  private String batchKey(List<InspectedObject> batch, List<String> relativeNames) {
    List<String> parts = new ArrayList<>(List.of(BATCH_KEY_FORMAT, ar.identity(), THIN, AR_FLAGS));
    for (int m = 0; m < batch.size(); m++) {
      parts.add(batch.get(m).name());
      parts.add(relativeNames.get(m));
      parts.add(batch.get(m).sha256());
    }
    return Hashing.ofStrings(parts);
  }

  /**
   * Each object's path relative to the batches' folder, between real folders: archivers resolve a
   * thin member against the batch's real folder, so a {@code target/} (or objects folder) reached
   * through a symbolic link must not be taken lexically. Thousands of objects share a few folders:
   * each folder is relativized once (Path.relativize is costly, and so is compiling it when it
   * runs hot) and the file name appended.
   */
  private List<String> relativeNames(Path workDirectory, List<Input> inputs) {
    Path from = realFolder(workDirectory);
    Map<Path, String> folders = new HashMap<>();
    List<String> names = new ArrayList<>(inputs.size());
    for (Input input : inputs) {
      Path absolute = input.object().toAbsolutePath().normalize(); // a file's absolute path has a parent
      String folder = folders.computeIfAbsent(absolute.getParent(), p -> {
        String relative = from.relativize(realFolder(p)).toString();
        return relative.isEmpty() ? "" : relative + "/";
      });
      names.add(folder + absolute.getFileName());
    }
    return names;
  }

  /** The file in its real folder; the file name is kept, as archivers keep it. */
  private Path real(Path file) {
    Path absolute = file.toAbsolutePath().normalize();
    return absolute.getParent() == null ? absolute : realFolder(absolute.getParent()).resolve(absolute.getFileName());
  }

  /**
   * Resolved once per folder: thousands of objects share a few, and each resolution costs a system
   * call per path element.
   */
  private Path realFolder(Path folder) {
    return realFolders.computeIfAbsent(folder.toAbsolutePath().normalize(), absolute -> {
      try {
        return absolute.toRealPath();
      } catch (IOException e) {
        return absolute; // not there (yet): reported where it is read
      }
    });
  }

  private static void removeBatchesBeyond(Path workDirectory, int count) throws IOException {
    for (int i = count; Files.exists(batchFile(workDirectory, i)) || Files.exists(keyFile(workDirectory, i)); i++) {
      Files.deleteIfExists(batchFile(workDirectory, i));
      Files.deleteIfExists(keyFile(workDirectory, i));
    }
  }

  private static Path batchFile(Path workDirectory, int number) {
    return workDirectory.resolve(String.format("batch-%05d.a", number));
  }

  private static Path keyFile(Path workDirectory, int number) {
    return workDirectory.resolve(String.format("batch-%05d.key", number));
  }
}
