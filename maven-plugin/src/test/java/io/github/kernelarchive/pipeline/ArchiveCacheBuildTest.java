package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.ar.ArReader;
import io.github.kernelarchive.cache.CacheEntry;
import io.github.kernelarchive.cache.EntryKind;
import io.github.kernelarchive.cache.LocalCache;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole pipeline with a shared cache, against the real gcc and archiver. */
class ArchiveCacheBuildTest {
  @TempDir Path dir;
  private final RecordingLog log = new RecordingLog();

  private BuildSummary build(Path project, Path cache, int batchSize) throws Exception {
    log.clear();
    return new KernelBuild(log, System.getenv()).run(Projects.request(project, cache, batchSize));
  }

  private static void clean(Path project) throws Exception {
    Path target = project.resolve("target");
    if (Files.exists(target)) {
      try (Stream<Path> walk = Files.walk(target)) {
        for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
          Files.delete(p);
        }
      }
    }
  }

  /** The sources the last build ran the compiler for, sorted (progress lines not served by the cache). */
  private List<String> compiledNow() {
    return log.lines().stream().filter(l -> l.matches("INFO \\[\\d+/\\d+\\] C.*") && !l.endsWith("(from cache)"))
        .map(l -> l.substring(l.indexOf("] ") + 2)).sorted().toList();
  }

  private List<String> arLines() {
    return log.lines().stream().filter(l -> l.contains(" AR ")).toList();
  }

  @Test
  void cleanBuildWithUnchangedInputsCompilesNothingAndRunsNoAr() throws Exception {
    Path project = dir.resolve("p");
    Path cache = dir.resolve("cache");
    Projects.generate(project, 30);
    BuildSummary first = build(project, cache, 7);
    assertEquals(30, first.compiled());
    assertEquals(1, first.archivesBuilt());
    assertEquals(5, first.batchesRun());

    // A header edit recompiles exactly its dependents and reruns only the batches holding them.
    Files.writeString(project.resolve("include/group2.h"), "#define GROUP 20\n");
    BuildSummary edited = build(project, cache, 7);
    assertEquals(7, edited.compiled(), "sources 2, 6, 10, ..., 26 include group2.h");
    assertEquals(1, edited.archivesBuilt());
    byte[] archive = Files.readAllBytes(project.resolve("target/kernel/libk.a"));

    clean(project);
    BuildSummary second = build(project, cache, 7);
    assertEquals(0, second.compiled());
    assertEquals(30, second.servedByArchives());
    assertEquals(1, second.archivesFromCache());
    assertEquals(List.of(), arLines(), "a cache hit runs no ar");
    assertTrue(log.text().contains("Archive k: 30 members (cache hit, validated)"), log.text());
    assertArrayEquals(archive, Files.readAllBytes(project.resolve("target/kernel/libk.a")));
  }

  @Test
  void anotherCheckoutOfTheSameSourcesHitsTheCache() throws Exception {
    Path cache = dir.resolve("cache");
    Projects.generate(dir.resolve("one"), 12);
    Projects.generate(dir.resolve("two"), 12);
    build(dir.resolve("one"), cache, 400);
    BuildSummary other = build(dir.resolve("two"), cache, 400);
    assertEquals(1, other.archivesFromCache(), "keys and objects do not depend on the checkout directory");
    assertArrayEquals(Files.readAllBytes(dir.resolve("one/target/kernel/libk.a")),
        Files.readAllBytes(dir.resolve("two/target/kernel/libk.a")));
  }

  /** Builds a 10-source project once and returns the cache entry it published. */
  private CacheEntry cachedAfterOneBuild(Path project, Path cache) throws Exception {
    Projects.generate(project, 10);
    build(project, cache, 400);
    return new LocalCache(cache, Long.MAX_VALUE).entries(EntryKind.ARCHIVE).get(0);
  }

  @Test
  void aCorruptCacheEntryIsDroppedWithAWarningAndRebuilt() throws Exception {
    Path project = dir.resolve("p");
    Path cache = dir.resolve("cache");
    CacheEntry entry = cachedAfterOneBuild(project, cache);
    try (RandomAccessFile file = new RandomAccessFile(entry.payload().toFile(), "rw")) {
      file.seek(file.length() / 2);
      int b = file.read();
      file.seek(file.length() / 2);
      file.write(b ^ 0xff);
    }
    clean(project);
    BuildSummary rebuilt = build(project, cache, 400);
    assertEquals(1, rebuilt.archivesBuilt());
    assertTrue(log.lines().stream().anyMatch(l -> l.startsWith("WARN Cache entry for archive 'k' is corrupt")),
        log.text());
    clean(project);
    assertEquals(1, build(project, cache, 400).archivesFromCache(), "the rebuilt entry replaced the corrupt one");
  }

  @Test
  void anEditedMemberHeaderIsCaughtByTheDigest() throws Exception {
    // Member bytes, names and index stay valid; only the digest over the rest of the file sees it.
    Path project = dir.resolve("p");
    Path cache = dir.resolve("cache");
    CacheEntry entry = cachedAfterOneBuild(project, cache);
    long modeField = ArReader.read(entry.payload()).members().get(4).headerOffset() + 40;
    try (RandomAccessFile file = new RandomAccessFile(entry.payload().toFile(), "rw")) {
      file.seek(modeField);
      byte[] mode = new byte[8];
      file.readFully(mode);
      assertEquals("644", new String(mode, StandardCharsets.US_ASCII).trim());
      file.seek(modeField);
      file.write("600".getBytes(StandardCharsets.US_ASCII));
    }
    clean(project);
    assertEquals(1, build(project, cache, 400).archivesBuilt());
    assertTrue(log.lines().stream().anyMatch(l -> l.startsWith("WARN Cache entry for archive 'k' is corrupt")
        && l.contains("digest of the archive differs from its manifest")), log.text());
  }

  @Test
  void aHeaderChangeOnACleanBuildCompilesOnlyItsDependents() throws Exception {
    Path project = dir.resolve("p");
    Path cache = dir.resolve("cache");
    Projects.generate(project, 8);
    build(project, cache, 400);
    Files.writeString(project.resolve("include/group1.h"), "#define GROUP 100\n");
    clean(project);
    BuildSummary rebuilt = build(project, cache, 400);
    assertEquals(0, rebuilt.archivesFromCache(), "an entry built against other headers is not used");
    assertEquals(2, rebuilt.compiled(), "only k1 and k5 include group1.h");
    assertEquals(6, rebuilt.objectsFromCache(), "the other objects come from their object entries");
    assertEquals(List.of("CC k/d0/k5.c", "CC k/d1/k1.c"), compiledNow(), log.text());
    assertFalse(new LocalCache(cache, Long.MAX_VALUE).entries(EntryKind.ARCHIVE).isEmpty());
  }

  @Test
  void aHeaderEditThatResizesObjectsRerunsTheirBatches() throws Exception {
    Path project = dir.resolve("p");
    Projects.generate(project, 8);
    assertEquals(3, build(project, null, 3).batchesRun());
    // k1 and k5 include group1.h; a kilobyte of initialised data makes their objects larger, and
    // their batches' member tables (kept from the build before) list the old sizes.
    Files.writeString(project.resolve("include/group1.h"),
        "#define GROUP 1\nstatic int padding[256] __attribute__((used)) = {1};\n");
    BuildSummary edited = build(project, null, 3);
    assertEquals(2, edited.compiled());
    assertEquals(1, edited.archivesBuilt(), log.text());
    assertEquals(1, edited.batchesRun(), "only the batch holding k1 and k5");
    ArReader.Contents archive = ArReader.read(project.resolve("target/kernel/libk.a"));
    for (String source : List.of("k1.c", "k5.c")) {
      long size;
      try (Stream<Path> walk = Files.walk(project.resolve("target/kernel/obj"))) {
        size = Files.size(walk.filter(p -> p.getFileName().toString().equals(source + ".o")).findFirst().orElseThrow());
      }
      assertTrue(archive.members().stream().anyMatch(m -> m.name().equals(source + ".o") && m.size() == size),
          source + " at its new size");
    }
  }

  @Test
  void withoutCacheAndNothingChangedTheArchiveIsUpToDate() throws Exception {
    Path project = dir.resolve("p");
    Projects.generate(project, 8);
    build(project, null, 3);
    BuildSummary again = build(project, null, 3);
    assertEquals(1, again.archivesUpToDate());
    assertEquals(List.of(), arLines());
    assertFalse(again.relinked());
  }
}
