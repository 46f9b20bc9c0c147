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
import io.github.kernelarchive.util.ContentHashes;
import io.github.kernelarchive.util.Hashing;
import io.github.kernelarchive.util.KeyFile;
import io.github.kernelarchive.util.Paths;
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
import java.util.function.IntFunction;
import java.util.stream.IntStream;

/**
 * Builds {@code lib<name>.a} without quadratic rewrites and with every object read once, in two
 * steps. First the members are cut into batches of {@code batchSize}, each one {@code ar qcSD} call
 * reading its members from a response file (batches run in parallel; one whose members are
 * unchanged is kept from the last build or taken from the cache). Small members are copied into
 * their batch; large ones are batched thin ({@code --thin}: recorded by path and size, no bytes
 * copied), see {@link #THIN_MEMBER_BYTES}. Either kind stands in for the archive in a link while
 * the archive is written. Then the combine reads the batches' member tables, checks that they list
 * exactly the planned objects at their sizes (a batch that holds its members is checked member by
 * member as the archive is written, each read with its header: see {@link #laidOut}), and writes
 * the archive from them in one pass ({@link
 * ArWriter}) that reads each member once, from its batch or its object, to check it ({@link
 * ObjectRequirements}: a wrong-CPU or non-object file is refused, naming it), find its symbols for
 * the index and its strong definitions for the duplicate check, hash it and copy it. The batch size
 * and kind only change progress granularity, reuse and speed: the result is byte-identical.
 */
public final class ArchiveBuilder {
  /** {@code q} append without replacing (repeated basenames stay), {@code c} quiet create,
   *  {@code S} no index (written once by the combiner), {@code D} deterministic headers. */
  static final String AR_FLAGS = "qcSD";
  /** Batches of large members record them by path (GNU ar 2.38+, llvm-ar); the combine copies the bytes once. */
  static final String THIN = "--thin";
  /** The key of a batch that holds its members' bytes, where a thin one has {@link #THIN}. */
  private static final String COPIED = "copied";
  private static final String BATCH_KEY_FORMAT = "kernel-archive batch key 5";

  /**
   * Members at least this size on average are batched thin; smaller ones are copied into their
   * batch. A linker and the combine open each member of a thin batch on its own. Over 50,000 small
   * objects (1.2 KiB), mold took 0.58 s through two thin batches against 0.27 s through two that
   * hold the bytes, and llvm-ar made either kind in the same 0.15 s: next to opening a small file,
   * copying it costs nothing. Over 5,000 objects of 64 KiB, thin batches are linked as fast as the
   * archive (docs/archives.md), and a second copy of 333 MB would not pay.
   */
  public static final long THIN_MEMBER_BYTES = 16 * 1024;

  /**
   * An object to archive under {@code name}.
   *
   * @param inputKey what it was made from (its compile key and the headers that compile read): equal
   *     keys mean an identical object; {@code null}: a prebuilt object, keyed by its content
   * @param seen its size and time as the build found it, before any read; {@code null}: looked at here
   */
  public record Input(String name, Path object, String inputKey, BasicFileAttributes seen) {
    public Input(String name, Path object, String inputKey) {
      this(name, object, inputKey, null);
    }

    /** A prebuilt object, keyed by its content. */
    public Input(String name, Path object) {
      this(name, object, null);
    }
  }

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
  private final ContentHashes hashes;
  private final BuildLog log;
  private final ObjectRequirements requirements;
  private long thinMemberBytes = THIN_MEMBER_BYTES;
  private final Map<Path, Path> realFolders = new ConcurrentHashMap<>();

  /**
   * @param cache where finished batches are kept and looked up; {@code null}: none
   * @param hashes prebuilt objects' content hashes, for the keys of batches that may be reused
   */
  public ArchiveBuilder(Tool ar, ProcessRunner runner, int batchSize, int parallelism, BuildCache cache,
      ContentHashes hashes, BuildLog log, int machine) {
    this.requirements = new ObjectRequirements(machine);
    if (batchSize < 1) {
      throw new IllegalArgumentException("batch size must be at least 1");
    }
    this.ar = ar;
    this.runner = runner;
    this.batchSize = batchSize;
    this.parallelism = parallelism;
    this.cache = cache;
    this.hashes = hashes;
    this.log = log;
  }

  /** Batches thin from this average member size instead of {@link #THIN_MEMBER_BYTES}: tests try both kinds. */
  ArchiveBuilder thinFrom(long averageMemberBytes) {
    this.thinMemberBytes = averageMemberBytes;
    return this;
  }

  /**
   * Builds the archive {@code output} from {@code inputs} (in order), keeping batch archives in
   * {@code workDirectory}: {@link #batch}, then {@link Batched#combine} and {@link Batched#recordBatches}.
   *
   * @throws java.nio.file.NoSuchFileException when an object does not exist
   * @throws ArchiveInvalidException when an object is not one this archive can hold, a batch does
   *     not list its planned objects, or an object changed while it was archived
   */
  public Result build(String name, List<Input> inputs, Path workDirectory, Path output)
      throws IOException, ToolchainException, ArchiveInvalidException, InterruptedException {
    Batched batched = batch(name, inputs, workDirectory, output);
    Result combined = batched.combine();
    batched.recordBatches(combined);
    return combined;
  }

  /**
   * The first step: every batch made ({@code ar}, kept, or from the cache) and checked to list
   * exactly its planned objects. The batches can then stand in for the archive (linkers read thin
   * archives) while {@link Batched#combine} writes it.
   */
  public Batched batch(String name, List<Input> inputs, Path workDirectory, Path output)
      throws IOException, ToolchainException, ArchiveInvalidException, InterruptedException {
    Files.createDirectories(workDirectory);
    int batches = (inputs.size() + batchSize - 1) / batchSize;
    removeBatchesBeyond(workDirectory, batches);
    // How each batch names its members (relative to its folder), worked out once per object: the
    // batch's response file, its key and its check all use it.
    List<String> relativeNames = relativeNames(workDirectory, inputs);
    Batches made = makeBatches(name, inputs, relativeNames, workDirectory, batches);
    List<ArWriter.Entry> entries;
    try (Trace.Span span = Trace.current().span("read batches of " + name, "archive")) {
      entries = readBatches(workDirectory, batches, inputs, made.stats(), relativeNames, made.thin());
    }
    List<Path> files = IntStream.range(0, batches).mapToObj(i -> batchFile(workDirectory, i)).toList();
    return new Batched(name, inputs, workDirectory, output, relativeNames, made, entries, files);
  }

  /** An archive whose batches are made: what {@link #combine} writes it from. */
  public final class Batched {
    private final String name;
    private final List<Input> inputs;
    private final Path workDirectory;
    private final Path output;
    private final List<String> relativeNames;
    private final Batches made;
    private final List<ArWriter.Entry> entries;
    private final List<Path> files;

    private Batched(String name, List<Input> inputs, Path workDirectory, Path output, List<String> relativeNames,
        Batches made, List<ArWriter.Entry> entries, List<Path> files) {
      this.name = name;
      this.inputs = inputs;
      this.workDirectory = workDirectory;
      this.output = output;
      this.relativeNames = relativeNames;
      this.made = made;
      this.entries = entries;
      this.files = files;
    }

    /** The batches, in order: together they list the archive's members. */
    public List<Path> files() {
      return files;
    }

    /**
     * Writes the archive from the batches' members, each object read once, and publishes it by
     * rename; its structure is not read back here. The batches' keys are recorded apart ({@link
     * #recordBatches}), so that a link waiting for the archive need not wait for them.
     */
    public Result combine() throws IOException, ArchiveInvalidException {
      Path temporary = AtomicFiles.temporarySibling(output);
      try {
        Combined combined;
        try (Trace.Span span = Trace.current().span("combine " + name, "archive")) {
          combined = ArchiveBuilder.this.combine(name, inputs, entries, made.stats(), temporary, output);
        }
        int batchesRun = 0;
        for (boolean ran : made.ran()) {
          batchesRun += ran ? 1 : 0;
        }
        AtomicFiles.publish(temporary, output);
        return new Result(output, files.size(), batchesRun, combined.members(), combined.digest());
      } finally {
        Files.deleteIfExists(temporary);
      }
    }

    /**
     * Records the key of each batch that ran or came from the cache, for the next build (a batch
     * with a prebuilt member is keyed by the hash {@code combined} took of it), and puts the batches
     * that ran into the cache.
     */
    public void recordBatches(Result combined) throws IOException {
      for (int i = 0; i < files.size(); i++) {
        if (made.ran()[i] || made.fromCache()[i]) {
          String key = made.keys()[i] != null ? made.keys()[i] : batchKey(i, inputs, relativeNames, made.thin(),
              member -> combined.members().get(member).sha256());
          KeyFile.record(keyFile(workDirectory, i), key);
          if (made.ran()[i] && cache != null) {
            Path batch = batchFile(workDirectory, i);
            cache.store(EntryKind.BATCH, key, batch, new ContentManifest(key, Hashing.ofFile(batch), List.of()).toBytes());
          }
        }
      }
    }
  }

  /**
   * What {@link #makeBatches} did: per batch whether {@code ar} ran or the cache gave it, and its key
   * when one was needed to decide (else it is taken from the hashes the combine finds); each
   * object's size and time, taken before any batch ran; whether the batches are thin.
   */
  private record Batches(boolean[] ran, boolean[] fromCache, String[] keys, List<BasicFileAttributes> stats,
      boolean thin) {}

  /**
   * Leaves every batch of the archive in {@code workDirectory}: the one the last build left when its
   * members are unchanged, else one from the cache, else a new {@code ar} call (in parallel).
   * Without a cache, a batch the last build did not leave behind (every batch of a clean build)
   * needs no key: it starts as soon as the objects' sizes are known.
   */
  private Batches makeBatches(String name, List<Input> inputs, List<String> relativeNames, Path workDirectory,
      int batches) throws IOException, ToolchainException, ArchiveInvalidException, InterruptedException {
    boolean[] ran = new boolean[batches];
    boolean[] fromCache = new boolean[batches];
    String[] keys = new String[batches];
    // Before any object is read (ar copies small ones into their batch), so that a write landing
    // later changes what checkUnchanged sees; the sizes also choose the kind of batch.
    List<BasicFileAttributes> stats = stat(inputs);
    boolean thin = thin(stats, thinMemberBytes);
    List<BatchOutcome> failures = new ArrayList<>();
    try (BoundedPool<BatchOutcome> pool = new BoundedPool<>("kernel-ar", parallelism)) {
      for (int i = 0; i < batches && cache == null; i++) {
        if (!Files.isRegularFile(batchFile(workDirectory, i)) || !Files.isRegularFile(keyFile(workDirectory, i))) {
          ran[i] = true;
          submitBatch(pool, workDirectory, i, sliceOf(relativeNames, i), thin);
        }
      }
      try {
        for (int i = 0; i < batches; i++) {
          if (ran[i]) {
            continue;
          }
          keys[i] = knownKey(i, inputs, relativeNames, thin);
          if (keys[i] == null) {
            // A prebuilt member changed (or was never hashed): the batch runs, and its key is taken
            // from the hashes the combine finds rather than from a read of its own.
            ran[i] = true;
            submitBatch(pool, workDirectory, i, sliceOf(relativeNames, i), thin);
            continue;
          }
          if (KeyFile.upToDate(batchFile(workDirectory, i), keyFile(workDirectory, i), keys[i])) {
            continue;
          }
          fromCache[i] = restoreBatch(workDirectory, i, keys[i], sliceOf(inputs, i), sliceOf(stats, i),
              sliceOf(relativeNames, i), thin);
          if (!fromCache[i]) {
            ran[i] = true;
            submitBatch(pool, workDirectory, i, sliceOf(relativeNames, i), thin);
          }
        }
      } finally {
        // No ar run outlives the build that started it; failures are reported once all are done.
        pool.awaitAll((done, total, outcome) -> report(name, batches, done, total, outcome, failures));
      }
    }
    if (!failures.isEmpty()) {
      BatchOutcome first = failures.get(0);
      throw new ToolchainException(ar.command() + " failed on " + failures.size() + " batch(es) of archive '"
          + name + "': " + first.error().lines().findFirst().orElse("") + ". " + first.fix());
    }
    return new Batches(ran, fromCache, keys, stats, thin);
  }

  /** Whether the members are large enough on average to be batched thin. */
  private static boolean thin(List<BasicFileAttributes> stats, long fromAverageBytes) {
    long bytes = 0;
    for (BasicFileAttributes stat : stats) {
      bytes += stat.size();
    }
    return !stats.isEmpty() && bytes / stats.size() >= fromAverageBytes;
  }

  /**
   * Batch {@code batch}'s key when it is known without reading an object: every prebuilt member's
   * hash taken already this build (the archive key's) or still vouched for by its size and time;
   * {@code null} otherwise.
   */
  private String knownKey(int batch, List<Input> inputs, List<String> relativeNames, boolean thin) {
    for (int m = batch * batchSize; m < Math.min(inputs.size(), (batch + 1) * batchSize); m++) {
      if (inputs.get(m).inputKey() == null && hashes.fromStamp(inputs.get(m).object()).isEmpty()) {
        return null;
      }
    }
    return batchKey(batch, inputs, relativeNames, thin, m -> hashes.fromStamp(inputs.get(m).object()).orElseThrow());
  }

  /**
   * The archive's members as its batches list them, in order: every batch must name exactly its
   * planned objects at the sizes they have now (a dropped, extra, reordered or rewritten member
   * fails here), and each member is then read from its batch, or from the file a thin batch names.
   */
  private List<ArWriter.Entry> readBatches(Path workDirectory, int batches, List<Input> inputs,
      List<BasicFileAttributes> stats, List<String> relativeNames, boolean thin)
      throws IOException, ArchiveInvalidException {
    List<List<ArWriter.Entry>> listed = onAllCores(batches, i -> {
      List<Input> planned = sliceOf(inputs, i);
      Path batch = batchFile(workDirectory, i);
      List<ArWriter.Entry> laidOut = thin ? null : laidOut(batch, planned, sliceOf(stats, i), sliceOf(relativeNames, i));
      if (laidOut != null) {
        return laidOut;
      }
      List<ArMember> recorded = listBatch(batch, workDirectory, planned, sliceOf(stats, i),
          sliceOf(relativeNames, i), thin);
      List<ArWriter.Entry> entries = new ArrayList<>(recorded.size());
      for (int m = 0; m < recorded.size(); m++) {
        ArMember member = recorded.get(m);
        entries.add(thin ? new ArWriter.Entry(planned.get(m).name(), planned.get(m).object(), member.size())
            : new ArWriter.Entry(planned.get(m).name(), batch, member.dataOffset(), member.size(), List.of()));
      }
      return entries;
    });
    List<ArWriter.Entry> entries = new ArrayList<>(inputs.size());
    listed.forEach(entries::addAll);
    return entries;
  }

  /**
   * The members of a batch that holds them, where {@code ar} lays them out: each planned object
   * under its file name, at the size it had before the batch was made, one after another. Each is
   * then read with its header in front, which must name it at that size ({@link
   * ArWriter.FileRange#storedAs}): the batch is checked member by member as the archive is written,
   * and needs no pass of its own before the link can start on it. {@code null} when an object's
   * name is long (the batch then has a long-name table), or the batch is not the size this layout
   * gives (another archiver's layout, or damage): it is then listed.
   */
  private static List<ArWriter.Entry> laidOut(Path batch, List<Input> planned, List<BasicFileAttributes> stats,
      List<String> given) throws IOException {
    long[] sizes = new long[planned.size()];
    String[] stored = new String[planned.size()];
    for (int m = 0; m < sizes.length; m++) {
      String path = given.get(m);
      stored[m] = path.substring(path.lastIndexOf('/') + 1); // ar names a member by its file's name
      if (!ArReader.isShortName(stored[m])) {
        return null;
      }
      sizes[m] = stats.get(m).size();
    }
    long[] headers = ArReader.plainHeaderOffsets(sizes);
    if (Files.size(batch) != headers[sizes.length]) {
      return null;
    }
    List<ArWriter.Entry> entries = new ArrayList<>(sizes.length);
    for (int m = 0; m < sizes.length; m++) {
      entries.add(new ArWriter.Entry(planned.get(m).name(), sizes[m], List.of(),
          new ArWriter.FileRange(batch, headers[m] + ArReader.HEADER_SIZE, stored[m])));
    }
    return entries;
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
    // A missing object throws NoSuchFileException: the archive stage names it. One the scan looked
    // at already is not looked at again: that look came before any read too.
    List<BasicFileAttributes> seen = new ArrayList<>(inputs.size());
    for (Input input : inputs) {
      if (input.seen() == null) {
        return onAllCores(inputs.size(), i -> inputs.get(i).seen() != null ? inputs.get(i).seen()
            : Files.readAttributes(inputs.get(i).object(), BasicFileAttributes.class));
      }
      seen.add(input.seen());
    }
    return seen; // every one looked at by the scan (prebuilt objects): no system call, nothing to share out
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

  /** How {@code ar} ends when SIGXFSZ stops it: a batch that holds its members outgrew {@code ulimit -f}. */
  private static final int EXIT_FILE_SIZE_LIMIT = 128 + 25;

  /** A batch's end: {@code error} is null when it was made, else what failed and {@code fix} what to do. */
  private record BatchOutcome(int number, int members, String error, String fix) {
    static BatchOutcome made(int number, int members) {
      return new BatchOutcome(number, members, null, null);
    }

    static BatchOutcome failed(int number, int members, String error) {
      return new BatchOutcome(number, members, error, "Check the archiver or set kernel.ar.");
    }

    /** The disk (or quota) ran out under {@code ar}: the archiver is not at fault, the space is. */
    static BatchOutcome noSpace(int number, int members, Path batch, String error) {
      return new BatchOutcome(number, members, "no space was left on the device for " + batch + " ("
          + error.lines().findFirst().orElse("").strip() + ")", "Free space on the disk that holds "
          + batch.getParent() + ", raise its quota, or build on a larger one; nothing was published.");
    }
  }

  /** A batch that failed with {@code error}: for want of space, or else the archiver's own failure. */
  private static BatchOutcome failedBatch(Path workDirectory, Path temporary, int number, List<String> objects,
      boolean thin, String error) {
    return outOfSpace(workDirectory, temporary, objects, thin, error)
        ? BatchOutcome.noSpace(number, objects.size(), batchFile(workDirectory, number), error)
        : BatchOutcome.failed(number, objects.size(), error);
  }

  /**
   * Whether a batch failed for want of space: the folder has less free space than the rest of the
   * batch needed (asked before the partly written batch is removed, and in any language), or, for
   * a quota the free space does not show, the archiver or the system says so in English ({@code
   * llvm-ar} aborts with an "IO failure" that names the error).
   */
  private static boolean outOfSpace(Path workDirectory, Path temporary, List<String> objects, boolean thin,
      String output) {
    try {
      // About what the batch takes: each member's header and bytes (a thin batch: its name instead).
      long[] sizes = new long[objects.size()];
      for (int m = 0; m < sizes.length; m++) {
        sizes[m] = thin ? objects.get(m).length() + 2 : Files.size(workDirectory.resolve(objects.get(m)));
      }
      long needed = ArReader.plainHeaderOffsets(sizes)[sizes.length];
      long written = Files.exists(temporary) ? Files.size(temporary) : 0;
      if (Files.getFileStore(workDirectory).getUsableSpace() < needed - written) {
        return true;
      }
    } catch (IOException e) {
      // An object or the folder is gone: the words below decide.
    }
    return output.contains("No space left on device") || output.contains("Disk quota exceeded");
  }

  /** One {@code [n/N]} line per finished batch; failures are collected for one error at the end. */
  private void report(String name, int batches, int done, int total, BatchOutcome outcome,
      List<BatchOutcome> failures) {
    if (outcome.error == null) {
      log.info("[" + done + "/" + total + "] AR " + name + " batch " + (outcome.number + 1) + "/" + batches
          + " (" + outcome.members + " objects)");
    } else {
      log.error("[" + done + "/" + total + "] AR " + name + " batch " + (outcome.number + 1) + " FAILED");
      log.error(outcome.error);
      failures.add(outcome);
    }
  }

  /** @param objects the batch's members, relative to {@code workDirectory} (ar runs there) */
  private void submitBatch(BoundedPool<BatchOutcome> pool, Path workDirectory, int number, List<String> objects,
      boolean thin) {
    pool.submit(() -> runBatch(workDirectory, number, objects, thin));
  }

  private BatchOutcome runBatch(Path workDirectory, int number, List<String> objects, boolean thin) {
    try (Trace.Span span = Trace.current().span("ar " + workDirectory.getFileName() + " batch " + (number + 1), "ar")) {
      return runBatchTraced(workDirectory, number, objects, thin);
    }
  }

  private BatchOutcome runBatchTraced(Path workDirectory, int number, List<String> objects, boolean thin) {
    Path target = batchFile(workDirectory, number);
    Path temporary;
    try {
      // A name that does not exist yet: ar appends to an existing file instead of replacing it.
      temporary = AtomicFiles.temporarySibling(target);
    } catch (IOException e) {
      return BatchOutcome.failed(number, objects.size(), e.toString());
    }
    try {
      // The old key must not vouch for the new batch if the build stops before the key is recorded.
      Files.deleteIfExists(keyFile(workDirectory, number));
      // Relative to the batch's folder: the batch then fits any checkout.
      String rsp = ResponseFile.write(workDirectory.resolve(String.format("batch-%05d.rsp", number)), objects);
      List<String> command = thin ? List.of(ar.command(), THIN, AR_FLAGS, temporary.toString(), rsp)
          : List.of(ar.command(), AR_FLAGS, temporary.toString(), rsp);
      ProcessResult result = runner.run(command, workDirectory);
      if (result.exitCode() == EXIT_FILE_SIZE_LIMIT) {
        return new BatchOutcome(number, objects.size(), "the file size limit stopped it writing " + target
            + " (SIGXFSZ)", "Raise the limit (ulimit -f) or build where it is higher; nothing was published.");
      }
      if (!result.succeeded()) {
        return failedBatch(workDirectory, temporary, number, objects, thin,
            "exit " + result.exitCode() + ": " + result.output().strip());
      }
      AtomicFiles.publish(temporary, target);
      return BatchOutcome.made(number, objects.size());
    } catch (IOException e) {
      // The response file, or the publishing rename, failed: the disk may be full here too.
      return failedBatch(workDirectory, temporary, number, objects, thin, e.toString());
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
   * Writes the archive to {@code temporary} from {@code entries} (on all cores), each object read
   * once: checked, its symbols and strong definitions taken, hashed and copied. Fails when an
   * object is not one this archive can hold, or changed while it was archived.
   */
  private Combined combine(String name, List<Input> inputs, List<ArWriter.Entry> entries,
      List<BasicFileAttributes> stats, Path temporary, Path output) throws IOException, ArchiveInvalidException {
    List<List<String>> strongDefinitions = new ArrayList<>(Collections.nCopies(inputs.size(), List.of()));
    ArWriter.Inspector inspector = (member, bytes) -> {
      Path object = inputs.get(member).object();
      try {
        // Right after its read, in the reading thread: the bytes are those of the size and time
        // looked at before the pass, which the object's hash is then kept under.
        checkUnchanged(object, stats.get(member), output);
        ElfObject parsed = requirements.check(bytes,
            () -> "object " + object + " (member " + (member + 1) + " of archive '" + name + "')", object);
        strongDefinitions.set(member, parsed.strongDefinitions());
        return parsed.definedExternalSymbols();
      } catch (ObjectRequirements.MemberProblem | ArchiveInvalidException e) {
        throw new ArWriter.RejectedMember(member, e.getMessage());
      } catch (IOException e) {
        throw new ArWriter.RejectedMember(member, object + " cannot be read any more (" + e.getMessage() + ")");
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
    return new Combined(members, written.digest());
  }

  /**
   * Fails when {@code object}'s size or time moved since it was looked at ({@code before}), before
   * its bytes were read: they may be torn, and its hash must not be kept under the old time.
   */
  static void checkUnchanged(Path object, BasicFileAttributes before, Path output)
      throws IOException, ArchiveInvalidException {
    BasicFileAttributes now = Files.readAttributes(object, BasicFileAttributes.class);
    if (now.size() != before.size() || !now.lastModifiedTime().equals(before.lastModifiedTime())) {
      throw new ArchiveInvalidException(output, object + " changed while it was archived (is another"
          + " process writing it?). Run the build again once it is complete.");
    }
  }

  /**
   * The members of the batch {@code batchFile}, checked to be exactly {@code planned}, in order, at
   * the sizes {@code stats} found. A thin batch's relative member names are taken relative to
   * {@code folder}, where the batch is (or will be) used; {@code given} are the names it was made
   * from. A batch that holds its members names each by its file name.
   */
  private List<ArMember> listBatch(Path batchFile, Path folder, List<Input> planned, List<BasicFileAttributes> stats,
      List<String> given, boolean thin) throws IOException, ArchiveInvalidException {
    List<ArMember> recorded;
    try (FileChannel channel = FileChannel.open(batchFile, StandardOpenOption.READ)) {
      recorded = (thin ? ArReader.readThin(channel) : ArReader.read(channel)).members();
    } catch (ArFormatException e) {
      throw new ArchiveInvalidException(batchFile, e.getMessage());
    }
    if (recorded.size() != planned.size()) {
      throw new ArchiveInvalidException(batchFile, "batch " + batchFile.getFileName() + ": " + ar.command()
          + " recorded " + recorded.size() + " of the " + planned.size() + " objects planned for it");
    }
    // Batches are given paths relative to their real folder (where ar runs). GNU ar records them as
    // given; llvm-ar records them relative to the batch's path as named on its command line, which
    // differs when a folder on the way is a symbolic link; either may also store absolute paths.
    // A name recorded exactly as given needs no resolving.
    Path realFolder = realFolder(folder);
    Path namedFolder = folder.toAbsolutePath().normalize();
    for (int m = 0; m < planned.size(); m++) {
      String name = recorded.get(m).name();
      Path object = planned.get(m).object();
      // A member is named by its file name, which its planned name nearly always is already.
      if (!thin && !name.equals(planned.get(m).name()) && !name.equals(object.getFileName().toString())) {
        throw new ArchiveInvalidException(batchFile, "member " + (m + 1) + " is '" + name + "' but " + object
            + " was planned there (missing, extra or reordered member)");
      }
      Path expected = !thin || name.equals(given.get(m)) ? null : real(object);
      if (expected != null && !real(realFolder.resolve(name)).equals(expected)
          && !real(namedFolder.resolve(name)).equals(expected)) {
        throw new ArchiveInvalidException(batchFile, "member " + (m + 1) + " is '" + name + "' but " + expected
            + " was planned there (missing, extra or reordered member)");
      }
      if (recorded.get(m).size() != stats.get(m).size()) {
        throw new ArchiveInvalidException(batchFile, "member " + (m + 1) + " (" + planned.get(m).object() + ") was recorded at "
            + recorded.get(m).size() + " bytes but has " + stats.get(m).size() + " (changed while archiving)");
      }
    }
    return recorded;
  }

  /**
   * Takes batch {@code number} from the cache when an entry for its key lists exactly its members;
   * returns whether it did. Thin batches name members relative to their folder, so an entry made
   * in another checkout fits this one.
   */
  private boolean restoreBatch(Path workDirectory, int number, String key, List<Input> planned,
      List<BasicFileAttributes> stats, List<String> given, boolean thin) throws IOException, InterruptedException {
    if (cache == null) {
      return false;
    }
    Optional<CacheEntry> entry = cache.find(EntryKind.BATCH, key, "ar batch " + (number + 1), candidate -> {
      ContentManifest manifest = ContentManifest.read(candidate.manifest());
      if (!manifest.key().equals(key) || !manifest.sha256().equals(Hashing.ofFile(candidate.payload()))) {
        return BuildCache.Verdict.corrupt("the batch differs from its manifest");
      }
      try {
        listBatch(candidate.payload(), workDirectory, planned, stats, given, thin);
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

  /**
   * Over the archiver, the kind of batch, and each member's name, path relative to the batch folder,
   * and input key (a prebuilt object's: its content hash, from {@code contentHash} by its position
   * in the archive).
   */
  private String batchKey(int batch, List<Input> inputs, List<String> relativeNames, boolean thin,
      IntFunction<String> contentHash) {
    int from = batch * batchSize;
    int to = Math.min(inputs.size(), (batch + 1) * batchSize);
    Hashing.Parts key = new Hashing.Parts(4 + 3 * (to - from)).add(BATCH_KEY_FORMAT).add(ar.identity())
        .add(thin ? THIN : COPIED).add(AR_FLAGS);
    for (int m = from; m < to; m++) {
      Input input = inputs.get(m);
      key.add(input.name()).add(relativeNames.get(m));
      if (input.inputKey() != null) {
        key.add(input.inputKey());
      } else {
        key.add("prebuilt object ", contentHash.apply(m));
      }
    }
    return key.hash();
  }

  /**
   * Each object's path relative to the batches' folder, between real folders: archivers resolve a
   * thin member against the batch's real folder, so a {@code target/} (or objects folder) reached
   * through a symbolic link must not be taken lexically. Thousands of objects share a few folders,
   * one after another: each folder is relativized once (Path.relativize is costly, and so is
   * compiling it when it runs hot) and the file name appended, taken from the path's text.
   */
  private List<String> relativeNames(Path workDirectory, List<Input> inputs) {
    Path from = realFolder(workDirectory);
    Map<String, String> folders = new HashMap<>();
    List<String> names = new ArrayList<>(inputs.size());
    String folder = null; // the last object's folder, as text, and its path relative to the batches
    String relativeFolder = null;
    for (Input input : inputs) {
      String path = Paths.absoluteText(input.object());
      int slash = path.lastIndexOf('/'); // an absolute path has one
      if (folder == null || folder.length() != slash || !path.startsWith(folder)) {
        folder = path.substring(0, slash);
        relativeFolder = folders.computeIfAbsent(folder, f -> {
          String relative = from.relativize(realFolder(Path.of(f.isEmpty() ? "/" : f))).toString();
          return relative.isEmpty() ? "" : relative + "/";
        });
      }
      names.add(relativeFolder + path.substring(slash + 1));
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
