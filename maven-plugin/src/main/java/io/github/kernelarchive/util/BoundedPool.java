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
 * uneven the tasks are.
 */
public final class BoundedPool {
  /** Receives results one at a time on the thread that called {@link #run}. */
  public interface Completion<T> {
    void finished(int done, int total, T result);
  }

  private BoundedPool() {}

  public static <T> void run(String threadName, int parallelism, List<Callable<T>> tasks, Completion<T> completion)
      throws InterruptedException {
    if (tasks.isEmpty()) {
      return;
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(parallelism, tasks.size())), runnable -> {
      Thread thread = new Thread(runnable, threadName);
      thread.setDaemon(true);
      return thread;
    });
    try {
      CompletionService<T> service = new ExecutorCompletionService<>(pool);
      tasks.forEach(service::submit);
      for (int done = 1; done <= tasks.size(); done++) {
        completion.finished(done, tasks.size(), service.take().get());
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("a " + threadName + " task failed unexpectedly", e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }
}
