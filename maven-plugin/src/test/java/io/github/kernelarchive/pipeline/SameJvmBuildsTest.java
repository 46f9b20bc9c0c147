package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Builds that follow one another in one JVM, as a Maven daemon runs them, or a pom with two
 * executions of the goal (how {@code bench/archive/end-to-end.sh}'s {@code WARM} times the goal in a
 * JVM that has run it already): each is a whole build of its own, byte for byte the same as the
 * first, and none leaves a thread of the plugin's running after it, whether it passed or failed.
 */
class SameJvmBuildsTest {
  @TempDir Path dir;

  private KernelBuildRequest request(String output) {
    return KernelBuildRequest.builder(dir, "k").outputDirectory(dir.resolve(output))
        .archiveObjects("k", dir.resolve("objects")).jobs(2).batchSize(3).build();
  }

  @Test
  void aSecondBuildInTheSameJvmIsTheSameBuildAndLeavesNoThreadBehind() throws Exception {
    Files.createDirectories(dir.resolve("objects"));
    for (int i = 0; i < 8; i++) {
      Path source = dir.resolve("src/k" + i + ".c");
      Files.createDirectories(source.getParent());
      Files.writeString(source, "int kernel_" + i + "(int x) { return x * " + (i + 3) + "; }\n");
      Commands.run(List.of("cc", "-c", "-fPIC", "-o", dir.resolve("objects/k" + i + ".o").toString(),
          source.toString()), dir);
    }
    // Threads other tests in this JVM may have left are theirs to answer for, not these builds'.
    Set<Thread> before = pluginThreads();
    RecordingLog log = new RecordingLog();
    BuildSummary first = new KernelBuild(log, System.getenv()).run(request("first"));
    assertNoPluginThreadRuns("after the first build", before);
    BuildSummary second = new KernelBuild(log, System.getenv()).run(request("second"));
    assertNoPluginThreadRuns("after the second build", before);
    assertEquals(1, first.archivesBuilt());
    assertEquals(1, second.archivesBuilt(), "the second build built its archive, in its own folder");
    assertArrayEquals(Files.readAllBytes(dir.resolve("first/libk.a")), Files.readAllBytes(dir.resolve("second/libk.a")));
    assertArrayEquals(Files.readAllBytes(dir.resolve("first/libk.so")), Files.readAllBytes(dir.resolve("second/libk.so")));

    // A build that fails (a member that is no object) stops its threads too.
    Files.writeString(dir.resolve("objects/k9.o"), "not an object\n");
    BuildFailureException failed = assertThrows(BuildFailureException.class,
        () -> new KernelBuild(log, System.getenv()).run(request("third")));
    assertTrue(failed.getMessage().contains("k9.o"), failed.getMessage());
    assertNoPluginThreadRuns("after a failed build", before);
  }

  /**
   * No thread of the plugin's ({@code kernel-...}) is alive but those in {@code before}: one that
   * has handed its result over may still be returning, so it gets a few seconds to end.
   */
  private static void assertNoPluginThreadRuns(String when, Set<Thread> before) throws InterruptedException {
    long deadline = System.nanoTime() + 5_000_000_000L;
    Set<Thread> running;
    do {
      running = pluginThreads();
      running.removeAll(before);
      if (running.isEmpty()) {
        return;
      }
      Thread.sleep(50);
    } while (System.nanoTime() < deadline);
    throw new AssertionError("threads of the plugin still running " + when + ": "
        + running.stream().map(Thread::getName).toList());
  }

  private static Set<Thread> pluginThreads() {
    Set<Thread> threads = new HashSet<>();
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (thread.isAlive() && thread.getName().startsWith("kernel-")) {
        threads.add(thread);
      }
    }
    return threads;
  }
}
