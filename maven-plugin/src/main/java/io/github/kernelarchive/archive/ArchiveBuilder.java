package io.github.kernelarchive.archive;

import io.github.kernelarchive.build.BuildLog;
import io.github.kernelarchive.build.ToolchainException;
import io.github.kernelarchive.elf.ElfFormatException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.toolchain.ProcessResult;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.ResponseFile;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.util.AtomicFiles;
import io.github.kernelarchive.util.BoundedPool;
import io.github.kernelarchive.util.Hashing;
import io.github.kernelarchive.util.KeyFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * Builds {@code lib<name>.a} without quadratic rewrites and with the payload written once: the
 * members are cut into batches of {@code batchSize}, each batch is one {@code ar --thin qcSD} call
 * reading its members from a response file (batches run in parallel and are reused while their
 * members are unchanged). A thin batch records its members by path without copying them; the
 * combine checks that every batch lists exactly its planned objects, then streams the objects into
 * the final archive in one pass that writes the symbol index once. So the bytes are copied once,
 * as by a single {@code ar} call, rather than into batch archives and again into the result. The
 * batch size only changes progress granularity: the result is byte-identical for any size.
 */
public final class ArchiveBuilder {
  /** {@code q} append without replacing (repeated basenames stay), {@code c} quiet create,
   *  {@code S} no index (written once by the combiner), {@code D} deterministic headers. */
  static final String AR_FLAGS = "qcSD";
  /** Batches record members by path (GNU ar 2.38+, llvm-ar); the combine copies the bytes once. */
  static final String THIN = "--thin";
  private static final String BATCH_KEY_FORMAT = "kernel-archive batch key 2";

  public record Result(Path archive, int batches, int batchesRun) {}

  private final Tool ar;
  private final ProcessRunner runner;
  private final int batchSize;
  private final int parallelism;
  private final BuildLog log;

  public ArchiveBuilder(Tool ar, ProcessRunner runner, int batchSize, int parallelism, BuildLog log) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batch size must be at least 1");
    }
    this.ar = ar;
    this.runner = runner;
    this.batchSize = batchSize;
    this.parallelism = parallelism;
    this.log = log;
  }

  /**
   * Builds the archive {@code output} from {@code members} (in order), keeping batch archives in
   * {@code workDirectory}. The archive is published by rename; it is not validated here.
   */
  public Result build(String name, List<PlannedMember> members, Path workDirectory, Path output)
      throws IOException, ToolchainException, ArchiveInvalidException, InterruptedException {
    Files.createDirectories(workDirectory);
    List<List<PlannedMember>> batches = new ArrayList<>();
    for (int from = 0; from < members.size(); from += batchSize) {
      batches.add(members.subList(from, Math.min(members.size(), from + batchSize)));
    }
    removeBatchesBeyond(workDirectory, batches.size());

    List<Callable<BatchOutcome>> stale = new ArrayList<>();
    for (int i = 0; i < batches.size(); i++) {
      int number = i;
      String key = batchKey(batches.get(i));
      if (!KeyFile.upToDate(batchFile(workDirectory, i), keyFile(workDirectory, i), key)) {
        stale.add(() -> runBatch(workDirectory, number, batches.get(number), key));
      }
    }
    List<String> failures = new ArrayList<>();
    BoundedPool.run("kernel-ar", parallelism, stale, (done, total, outcome) -> {
      if (outcome.error == null) {
        log.info("[" + done + "/" + total + "] AR " + name + " batch " + (outcome.number + 1) + "/" + batches.size()
            + " (" + outcome.members + " objects)");
      } else {
        log.error("[" + done + "/" + total + "] AR " + name + " batch " + (outcome.number + 1) + " FAILED");
        log.error(outcome.error);
        failures.add(outcome.error);
      }
    });
    if (!failures.isEmpty()) {
      throw new ToolchainException(ar.command() + " failed on " + failures.size() + " batch(es) of archive '"
          + name + "': " + failures.get(0).lines().findFirst().orElse("") + ". Check the archiver or set kernel.ar.");
    }
    combine(workDirectory, batches, output);
    return new Result(output, batches.size(), stale.size());
  }

  private record BatchOutcome(int number, int members, String error) {}

  private BatchOutcome runBatch(Path workDirectory, int number, List<PlannedMember> batch, String key) {
    Path target = batchFile(workDirectory, number);
    // A name that does not exist yet: ar appends to an existing file instead of replacing it.
    Path temporary = workDirectory.resolve("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
    try {
      List<String> objects = batch.stream().map(m -> m.object().toAbsolutePath().toString()).toList();
      String rsp = ResponseFile.write(workDirectory.resolve(String.format("batch-%05d.rsp", number)), objects);
      ProcessResult result = runner.run(List.of(ar.command(), THIN, AR_FLAGS, temporary.toString(), rsp), workDirectory);
      if (!result.succeeded()) {
        return new BatchOutcome(number, batch.size(), "exit " + result.exitCode() + ": " + result.output().strip());
      }
      AtomicFiles.publish(temporary, target);
      KeyFile.record(keyFile(workDirectory, number), key);
      return new BatchOutcome(number, batch.size(), null);
    } catch (IOException e) {
      return new BatchOutcome(number, batch.size(), e.toString());
    } finally {
      try {
        Files.deleteIfExists(temporary);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /**
   * Checks that every thin batch lists exactly its planned objects, reads each object's symbols
   * (on all cores; only the ELF header and symbol table pages are touched), then streams the
   * objects into the final archive with the index written once.
   */
  private void combine(Path workDirectory, List<List<PlannedMember>> batches, Path output)
      throws IOException, ArchiveInvalidException {
    List<PlannedMember> members = new ArrayList<>();
    List<Long> sizes = new ArrayList<>();
    for (int i = 0; i < batches.size(); i++) {
      Path batchFile = batchFile(workDirectory, i);
      List<ArMember> recorded;
      try (FileChannel channel = FileChannel.open(batchFile, StandardOpenOption.READ)) {
        recorded = ArReader.readThin(channel).members();
      } catch (ArFormatException e) {
        throw new ArchiveInvalidException(batchFile, e.getMessage());
      }
      List<PlannedMember> planned = batches.get(i);
      if (recorded.size() != planned.size()) {
        throw new ArchiveInvalidException(batchFile, ar.command() + " recorded " + recorded.size() + " of the "
            + planned.size() + " objects of this batch");
      }
      for (int m = 0; m < planned.size(); m++) {
        Path expected = planned.get(m).object().toAbsolutePath().normalize();
        // ar keeps the path it was given; a relative one would be relative to the batch's folder.
        Path path = batchFile.getParent().resolve(recorded.get(m).name()).normalize();
        if (!path.equals(expected)) {
          throw new ArchiveInvalidException(batchFile, "member " + (m + 1) + " is '" + recorded.get(m).name()
              + "' but " + expected + " was planned there (missing, extra or reordered member)");
        }
        sizes.add(recorded.get(m).size());
      }
      members.addAll(planned);
    }
    List<List<String>> symbols = members.parallelStream().map(m -> symbolsOf(m.object())).toList();
    List<ArWriter.Entry> entries = new ArrayList<>(members.size());
    for (int i = 0; i < members.size(); i++) {
      PlannedMember member = members.get(i);
      entries.add(new ArWriter.Entry(member.name(), member.object(), 0, sizes.get(i), symbols.get(i)));
    }
    Path temporary = AtomicFiles.temporarySibling(output);
    try {
      ArWriter.write(temporary, entries);
      AtomicFiles.publish(temporary, output);
    } finally {
      Files.deleteIfExists(temporary);
    }
  }

  /** The symbols the index lists for an object; one that is not ELF gets none (validation names it). */
  private static List<String> symbolsOf(Path object) {
    try (FileChannel channel = FileChannel.open(object, StandardOpenOption.READ)) {
      return ElfObject.parse(channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size())).definedExternalSymbols();
    } catch (ElfFormatException e) {
      return List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String batchKey(List<PlannedMember> batch) {
    List<String> parts = new ArrayList<>(List.of(BATCH_KEY_FORMAT, ar.identity(), THIN, AR_FLAGS));
    for (PlannedMember member : batch) {
      parts.add(member.name());
      parts.add(member.object().toString());
      parts.add(member.sha256());
    }
    return Hashing.ofStrings(parts);
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
