package io.github.kernelarchive.archive;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * What a built archive leaves for later builds (its manifest, its stamp, its cache entry, its
 * batches' keys, its objects' hashes), written on two threads of their own while the build goes on
 * to the link: nothing the link reads comes from them, and on the critical path they took 25-35 ms
 * for 5,000 members before the link could start (and a cache entry's copy of the whole archive on
 * top). Two, because for 50,000 members they are two independent parts of about 0.1 s each (the
 * manifest; the batches' keys and the objects' hashes) that outlasted the link on one thread.
 * Records run in the order submitted (a record may wait for one submitted before it, which is then
 * running or done). The build waits for all of them before it ends, successful or not, so none
 * outlives it.
 */
final class PendingRecords {
  /** A record to write; the exceptions it may throw are the ones {@link #awaitAll} reports. */
  interface Record {
    void write() throws IOException;
  }

  private final List<Future<?>> pending = new ArrayList<>();
  private ExecutorService writer;

  synchronized void submit(Record record) {
    if (writer == null) {
      writer = Executors.newFixedThreadPool(2, runnable -> {
        Thread thread = new Thread(runnable, "kernel-archive-records");
        thread.setDaemon(true);
        return thread;
      });
    }
    pending.add(writer.submit(() -> {
      try {
        record.write();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return null;
    }));
  }

  /** Waits for every record submitted so far; throws the first one's failure once all are done. */
  synchronized void awaitAll() throws IOException, InterruptedException {
    IOException failure = null;
    Throwable bug = null;
    try {
      for (Future<?> record : pending) {
        try {
          record.get();
        } catch (ExecutionException e) {
          if (e.getCause() instanceof UncheckedIOException io && failure == null) {
            failure = io.getCause();
          } else if (bug == null) {
            bug = e.getCause();
          }
        }
      }
    } finally {
      pending.clear();
      if (writer != null) {
        writer.shutdown();
        writer = null;
      }
    }
    if (failure != null) {
      throw failure;
    }
    if (bug instanceof RuntimeException unexpected) {
      throw unexpected;
    }
    if (bug instanceof Error error) {
      throw error;
    }
  }
}
