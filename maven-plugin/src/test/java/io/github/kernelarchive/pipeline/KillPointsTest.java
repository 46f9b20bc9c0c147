package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.github.kernelarchive.cache.CacheEntry;
import io.github.kernelarchive.cache.ContentManifest;
import io.github.kernelarchive.cache.EntryKind;
import io.github.kernelarchive.cache.LocalCache;
import io.github.kernelarchive.util.Hashing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL at 20 random moments of a build (compile, ar, combine, cache publish, link), each followed
 * by a normal build: it succeeds, its archive and library equal a clean build's bytes, and the
 * cache holds only entries that verify. The moments come from a seed printed here, so a failure
 * can be replayed with -Dkill.seed=N.
 */
class KillPointsTest {
  @TempDir Path dir;

  @Test
  void aBuildKilledAnywhereLeavesNothingTheNextBuildTrips() throws Exception {
    long seed = Long.getLong("kill.seed", System.nanoTime());
    System.out.println("KillPointsTest seed " + seed + " (replay: -Dkill.seed=" + seed + ")");
    Random random = new Random(seed);
    Path project = dir.resolve("p");
    Path cache = dir.resolve("cache");
    Projects.generate(project, 60);

    // The reference: a clean build without a cache, in the same directory, timed to choose kill moments.
    long start = System.nanoTime();
    run(project, dir.resolve("reference-cache"), -1);
    long buildMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    byte[] archive = Files.readAllBytes(project.resolve("target/kernel/libk.a"));
    byte[] library = Files.readAllBytes(project.resolve("target/kernel/libk.so"));

    for (int round = 0; round < 20; round++) {
      // Half the rounds start clean (kills land in compile and archive), half from the last state.
      if (random.nextBoolean()) {
        delete(project.resolve("target"));
      }
      if (random.nextInt(4) == 0) {
        Projects.generate(project, 60); // rewrite every source: same content, new timestamps
      }
      run(project, cache, random.nextInt((int) Math.max(50, buildMillis)));
      RecordingLog log = new RecordingLog();
      new KernelBuild(log, System.getenv()).run(Projects.request(project, cache, 7));
      String context = "round " + round + " (seed " + seed + "):\n" + log.text();
      assertFalse(log.text().contains("corrupt"), context);
      assertArrayEquals(archive, Files.readAllBytes(project.resolve("target/kernel/libk.a")), context);
      assertArrayEquals(library, Files.readAllBytes(project.resolve("target/kernel/libk.so")), context);
      assertEntriesVerify(cache, context);
      try (Stream<Path> left = Files.walk(project.resolve("target/kernel"))) {
        assertEquals(List.of(), left.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList(),
            "temporary files a killed build left: " + context);
      }
    }
  }

  /** Runs a build process; with {@code killAfterMillis} >= 0 it is SIGKILLed then (if still running). */
  private static void run(Path project, Path cache, int killAfterMillis) throws Exception {
    Process build = BuildMain.process(project, cache, 7).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    if (killAfterMillis < 0) {
      assertEquals(0, build.waitFor());
      return;
    }
    if (!build.waitFor(killAfterMillis, TimeUnit.MILLISECONDS)) {
      // The whole tree, as a terminal's Ctrl-C or a CI runner's cancel kills it: an ar or compiler
      // left running would write its output after the next build began, which no build can prevent.
      List<ProcessHandle> tools = build.descendants().toList();
      build.destroyForcibly();
      tools.forEach(ProcessHandle::destroyForcibly);
      build.waitFor();
      for (ProcessHandle tool : tools) {
        tool.onExit().get();
      }
    }
  }

  private static void assertEntriesVerify(Path cache, String context) throws Exception {
    LocalCache local = new LocalCache(cache, Long.MAX_VALUE);
    for (EntryKind kind : new EntryKind[] {EntryKind.OBJECT, EntryKind.BATCH}) {
      for (CacheEntry entry : local.entries(kind)) {
        assertEquals(ContentManifest.read(entry.manifest()).sha256(), Hashing.ofFile(entry.payload()),
            entry + " " + context);
      }
    }
    // Archive entries: the next clean build takes the archive from the cache and validates it fully.
  }

  private static void delete(Path tree) throws Exception {
    if (Files.exists(tree)) {
      try (Stream<Path> walk = Files.walk(tree)) {
        for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
          Files.delete(p);
        }
      }
    }
  }
}
