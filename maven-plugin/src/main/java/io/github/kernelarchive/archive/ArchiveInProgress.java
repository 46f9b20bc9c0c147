package io.github.kernelarchive.archive;

import io.github.kernelarchive.common.BuildFailureException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * An archive being written on a thread of its own while the build goes on to the link. Its
 * batches, made before it starts, may stand in for it: they hold or name the same members in the
 * same order, and linkers read them as they read the archive. {@link #awaitWritten} gives its
 * digest and definitions once it is written and published (a link may read it then, while it is
 * checked); {@link #await} gives the archive once it is also checked, or throws what failed. The
 * build waits for every archive before it ends, successful or not, so no writer outlives it.
 */
public final class ArchiveInProgress {
  /** What is known once the archive is written: its digest and what its members define strongly. */
  public record Written(String sha256, List<MemberSymbols> definitions) {}

  /** The rest of an archive's work, run on its own thread; it tells {@code written} when the archive is. */
  interface Work {
    ArchiveStage.Outcome run(Consumer<Written> written) throws IOException, BuildFailureException;
  }

  private final String name;
  private final Path file;
  private final List<Path> standIns;
  private final CompletableFuture<Written> written;
  private final CompletableFuture<ArchiveStage.Outcome> outcome;
  private volatile long finishedAt = System.nanoTime();

  private ArchiveInProgress(String name, Path file, List<Path> standIns, CompletableFuture<Written> written,
      CompletableFuture<ArchiveStage.Outcome> outcome) {
    this.name = name;
    this.file = file;
    this.standIns = List.copyOf(standIns);
    this.written = written;
    this.outcome = outcome;
  }

  /** An archive that needed no writing (current, or taken from the cache). */
  public static ArchiveInProgress done(ArchiveStage.Outcome outcome) {
    return new ArchiveInProgress(outcome.name(), outcome.archive(), List.of(),
        CompletableFuture.completedFuture(new Written(outcome.sha256(), outcome.definitions())),
        CompletableFuture.completedFuture(outcome));
  }

  /** Starts {@code work} on a thread of its own. */
  static ArchiveInProgress start(String name, Path file, List<Path> standIns, Work work) {
    CompletableFuture<Written> written = new CompletableFuture<>();
    CompletableFuture<ArchiveStage.Outcome> outcome = new CompletableFuture<>();
    ArchiveInProgress archive = new ArchiveInProgress(name, file, standIns, written, outcome);
    Thread writer = new Thread(() -> {
      try {
        ArchiveStage.Outcome done = work.run(written::complete);
        archive.finishedAt = System.nanoTime();
        outcome.complete(done);
      } catch (Throwable e) {
        archive.finishedAt = System.nanoTime();
        written.completeExceptionally(e); // no effect once it was written
        outcome.completeExceptionally(e);
      }
    }, "kernel-archive-" + name);
    writer.setDaemon(true);
    writer.start();
    return archive;
  }

  /** When it was done (System.nanoTime); when it was started, while it is not. */
  public long finishedAt() {
    return finishedAt;
  }

  public String name() {
    return name;
  }

  /** Where the archive is published. */
  public Path file() {
    return file;
  }

  /** The batches the link may read while the archive is written; empty once it is done. */
  public List<Path> standIns() {
    return outcome.isDone() ? List.of() : standIns;
  }

  /** Waits until the archive is written and published (not yet checked); throws what made it fail. */
  public Written awaitWritten() throws IOException, BuildFailureException {
    return get(written);
  }

  /** Waits until the archive is written, checked and published; throws what made it fail. */
  public ArchiveStage.Outcome await() throws IOException, BuildFailureException {
    return get(outcome);
  }

  private <T> T get(Future<T> future) throws IOException, BuildFailureException {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while archive '" + name + "' was written");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof BuildFailureException failure) {
        throw failure;
      }
      if (cause instanceof RuntimeException unexpected) {
        throw unexpected;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException("archive '" + name + "' failed", cause);
    }
  }
}
