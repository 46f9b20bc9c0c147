package io.github.kernelarchive.archive;

import io.github.kernelarchive.common.BuildFailureException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * An archive being written on a thread of its own while the build goes on to the link. Its thin
 * batches, made before it starts, may stand in for it: they list the same members in the same
 * order, and linkers read thin archives. {@link #await} gives the archive once it is written,
 * checked and published, or throws what failed; the build waits for every archive before it ends,
 * successful or not, so no writer outlives it.
 */
public final class ArchiveInProgress {
  /** The rest of an archive's work, run on its own thread. */
  interface Work {
    ArchiveStage.Outcome run() throws IOException, BuildFailureException;
  }

  private final String name;
  private final Path file;
  private final List<Path> standIns;
  private final CompletableFuture<ArchiveStage.Outcome> outcome;
  private volatile long finishedAt = System.nanoTime();

  private ArchiveInProgress(String name, Path file, List<Path> standIns, CompletableFuture<ArchiveStage.Outcome> outcome) {
    this.name = name;
    this.file = file;
    this.standIns = List.copyOf(standIns);
    this.outcome = outcome;
  }

  /** An archive that needed no writing (current, or taken from the cache). */
  public static ArchiveInProgress done(ArchiveStage.Outcome outcome) {
    return new ArchiveInProgress(outcome.name(), outcome.archive(), List.of(), CompletableFuture.completedFuture(outcome));
  }

  /** Starts {@code work} on a thread of its own. */
  static ArchiveInProgress start(String name, Path file, List<Path> standIns, Work work) {
    CompletableFuture<ArchiveStage.Outcome> outcome = new CompletableFuture<>();
    ArchiveInProgress archive = new ArchiveInProgress(name, file, standIns, outcome);
    Thread writer = new Thread(() -> {
      try {
        ArchiveStage.Outcome done = work.run();
        archive.finishedAt = System.nanoTime();
        outcome.complete(done);
      } catch (Throwable e) {
        archive.finishedAt = System.nanoTime();
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

  /**
   * Thin batches the link may read while the archive is written; empty when it is done, or when
   * linking them would cost more than waiting for it ({@link ArchiveStage#linkThroughBatches}).
   */
  public List<Path> standIns() {
    return outcome.isDone() ? List.of() : standIns;
  }

  /** Waits until the archive is written, checked and published; throws what made it fail. */
  public ArchiveStage.Outcome await() throws IOException, BuildFailureException {
    try {
      return outcome.get();
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
