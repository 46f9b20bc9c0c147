package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.cache.CacheEntry;
import io.github.kernelarchive.cache.ContentManifest;
import io.github.kernelarchive.cache.EntryKind;
import io.github.kernelarchive.cache.LocalCache;
import io.github.kernelarchive.util.Hashing;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Separate build processes sharing one cache: racing publishers, and a build killed mid-archive. */
class ConcurrentBuildsTest {
  @TempDir Path dir;

  /**
   * Starts {@code count} build processes at once on one cache, project {@code i} with
   * {@code sources.applyAsInt(i)} sources; asserts every one succeeds without a corrupt entry.
   */
  private void buildAllAtOnce(String prefix, int count, java.util.function.IntUnaryOperator sources, Path cache)
      throws Exception {
    List<Process> builds = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Path project = dir.resolve(prefix + i);
      Projects.generate(project, sources.applyAsInt(i));
      builds.add(BuildMain.process(project, cache, 5).start());
    }
    for (int i = 0; i < builds.size(); i++) {
      String output = new String(builds.get(i).getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(0, builds.get(i).waitFor(), "build " + i + " failed:\n" + output);
      assertTrue(!output.contains("corrupt"), output);
    }
  }

  @Test
  void fourBuildsOnOneEmptyCacheAllSucceedWithOneValidEntry() throws Exception {
    Path cache = dir.resolve("cache");
    buildAllAtOnce("p", 4, i -> 40, cache);
    assertEquals(1, new LocalCache(cache, Long.MAX_VALUE).entries(EntryKind.ARCHIVE).size(), "one key, one entry");
    RecordingLog log = new RecordingLog();
    Path fifth = dir.resolve("p4");
    Projects.generate(fifth, 40);
    BuildSummary summary = new KernelBuild(log, System.getenv()).run(Projects.request(fifth, cache, 5));
    assertEquals(1, summary.archivesFromCache(), "the entry the racers left validates:\n" + log.text());
  }

  @Test
  void eightBuildsOfTwoProjectsOnOneCacheShareObjectEntriesSafely() throws Exception {
    // Projects of 40 and 41 sources: 40 compile keys in common, two archive keys.
    Path cache = dir.resolve("cache");
    buildAllAtOnce("q", 8, i -> 40 + i % 2, cache);
    LocalCache local = new LocalCache(cache, Long.MAX_VALUE);
    assertEquals(2, local.entries(EntryKind.ARCHIVE).size(), "one entry per archive key");
    assertEquals(41, local.entries(EntryKind.OBJECT).size(), "one entry per compile key");
    for (CacheEntry entry : local.entries(EntryKind.OBJECT)) {
      assertEquals(ContentManifest.read(entry.manifest()).sha256(), Hashing.ofFile(entry.payload()), entry.toString());
    }
    for (int size : new int[] {40, 41}) {
      Path fresh = dir.resolve("fresh" + size);
      Projects.generate(fresh, size);
      RecordingLog log = new RecordingLog();
      BuildSummary summary = new KernelBuild(log, System.getenv()).run(Projects.request(fresh, cache, 5));
      assertEquals(1, summary.archivesFromCache(), log.text());
    }
  }

  @Test
  void aBuildKilledMidArchiveLeavesNothingALaterBuildAccepts() throws Exception {
    Path cache = dir.resolve("cache");
    Path project = dir.resolve("p");
    Projects.generate(project, 120);
    Process build = BuildMain.process(project, cache, 3).start();
    boolean archiving = false;
    try (BufferedReader out = new BufferedReader(new InputStreamReader(build.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = out.readLine()) != null; ) {
        if (line.contains(" AR k batch")) {
          archiving = true;
          build.destroyForcibly(); // SIGKILL
          break;
        }
      }
    }
    build.waitFor();
    assertTrue(archiving, "the build was killed while it ran ar");
    assertEquals(List.of(), new LocalCache(cache, Long.MAX_VALUE).entries(EntryKind.ARCHIVE),
        "no archive entry from a killed build");

    RecordingLog log = new RecordingLog();
    BuildSummary next = new KernelBuild(log, System.getenv()).run(Projects.request(project, cache, 3));
    assertEquals(1, next.archivesBuilt(), log.text());
    assertEquals(1, new LocalCache(cache, Long.MAX_VALUE).entries(EntryKind.ARCHIVE).size());
  }
}
