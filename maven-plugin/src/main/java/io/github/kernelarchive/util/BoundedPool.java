package io.github.kernelarchive.util;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Runs tasks on at most {@code parallelism} threads and hands each result to the caller's thread
 * as soon as it finishes, so progress lines appear in completion order and logging stays
 * single-threaded. Idle workers take the next queued task, which keeps every core busy however
 * uneven the tasks are. Tasks may be submitted in several rounds before the results are taken,
 * so work that is known early can start while the caller prepares the rest.
 */
public final class BoundedPool<T> implements AutoCloseable {
  /** Receives results one at a time on the thread that called {@link #awaitAll}. */
  public interface Completion<T> {
    void finished(int done, int total, T result);
  }

  private final String threadName;
  private final ExecutorService pool;
  private final CompletionService<T> service;
  private int submitted;

  public BoundedPool(String threadName, int parallelism) {
    this.threadName = threadName;
    this.pool = Executors.newFixedThreadPool(Math.max(1, parallelism), runnable -> {
      Thread thread = new Thread(runnable, threadName);
      thread.setDaemon(true);
      return thread;
    });
    this.service = new ExecutorCompletionService<>(pool);
  }

  public void submit(Callable<T> task) {
    service.submit(task);
    submitted++;
  }

  /** Waits for every task submitted so far, handing each result over as it finishes. */
  public void awaitAll(Completion<T> completion) throws InterruptedException {
    int total = submitted;
    try {
      for (int done = 1; done <= total; done++) {
        completion.finished(done, total, service.take().get());
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("a " + threadName + " task failed unexpectedly", e.getCause());
    } finally {
      submitted = 0;
    }
  }

  /** Stops the workers; tasks still running are interrupted. */
  @Override
  public void close() {
    pool.shutdownNow();
  }

  public static <T> void run(String threadName, int parallelism, List<Callable<T>> tasks, Completion<T> completion)
      throws InterruptedException {
    if (tasks.isEmpty()) {
      return;
    }
    try (BoundedPool<T> pool = new BoundedPool<>(threadName, Math.min(parallelism, tasks.size()))) {
      tasks.forEach(pool::submit);
      pool.awaitAll(completion);
    }
  }
}
