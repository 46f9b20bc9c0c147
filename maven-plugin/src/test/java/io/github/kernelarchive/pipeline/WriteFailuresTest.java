package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.kernelarchive.cache.EntryKind;
import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.cache.LocalCache;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes that fail: a file size limit ({@code ulimit -f}, EFBIG, which stops root as well) while
 * the archive and while the library is written, and a cache directory that cannot be written. A
 * clear error naming the path, no partial output, the cache intact; an unwritable cache is only a
 * warning.
 */
class WriteFailuresTest {
  @TempDir Path dir;

  /**
   * Batches of 40 objects: small objects are copied into their batch, and each of these batches
   * stays under a limit the whole archive exceeds.
   */
  private static final int BATCH_SIZE = 40;

  /** Runs a build process under {@code ulimit -f} (in 512-byte blocks); returns its exit code and output. */
  private static String[] buildWithFileLimit(Path project, Path cache, int blocks) throws Exception {
    return buildWithFileLimit(project, cache, blocks, BATCH_SIZE);
  }

  private static String[] buildWithFileLimit(Path project, Path cache, int blocks, int batchSize) throws Exception {
    // GNU ld: its libraries have page-aligned segments, larger than the archive whatever the code.
    String command = shellWords(BuildMain.process(project, cache, batchSize, "bfd"));
    Process build = new ProcessBuilder("sh", "-c", "ulimit -f " + blocks + " && exec " + command)
        .redirectErrorStream(true).start();
    String output = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new String[] {Integer.toString(build.waitFor()), output};
  }

  /** The process's command, quoted for {@code sh -c}. */
  private static String shellWords(ProcessBuilder process) {
    return String.join(" ", process.command().stream().map(a -> "'" + a.replace("'", "'\\''") + "'").toList());
  }

  private static List<String> leftovers(Path folder) throws Exception {
    try (Stream<Path> files = Files.list(folder)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".tmp")).toList();
    }
  }

  @Test
  void aFileSizeLimitDuringTheArchiveWriteNamesTheArchiveAndPublishesNothing() throws Exception {
    Path project = dir.resolve("p");
    Path cache = dir.resolve("cache");
    Projects.generate(project, 120); // objects of about 1.4 KB, an archive of about 200 KB
    String[] result = buildWithFileLimit(project, cache, 200); // 100 KB
    assertNotEquals("0", result[0], result[1]);
    Path archive = project.resolve("target/kernel/libk.a");
    assertTrue(result[1].contains("cannot write " + archive) && result[1].contains("File too large"), result[1]);
    assertFalse(Files.exists(archive), "no partial archive");
    assertEquals(List.of(), leftovers(archive.getParent()));
    assertEquals(List.of(), new LocalCache(cache, Long.MAX_VALUE).entries(EntryKind.ARCHIVE));

    RecordingLog log = new RecordingLog();
    BuildSummary next = new KernelBuild(log, System.getenv()).run(Projects.request(project, cache, BATCH_SIZE));
    assertEquals(0, next.compiled(), "the objects were kept; only the archive is written again");
    assertEquals(1, next.archivesBuilt(), log.text());
  }

  /** One batch of 120 small objects, which it holds: ar is stopped writing it (SIGXFSZ). */
  @Test
  void aFileSizeLimitDuringABatchNamesTheBatchAndTheLimit() throws Exception {
    Path project = dir.resolve("p");
    Path cache = dir.resolve("cache");
    Projects.generate(project, 120);
    String[] result = buildWithFileLimit(project, cache, 200, 400); // 100 KB, a batch of about 170 KB
    assertNotEquals("0", result[0], result[1]);
    Path batch = project.resolve("target/kernel/archive/k/batch-00000.a");
    assertTrue(result[1].contains("the file size limit stopped it writing " + batch)
        && result[1].contains("Raise the limit (ulimit -f)"), result[1]);
    assertFalse(Files.exists(batch), "no partial batch");
    assertFalse(Files.exists(project.resolve("target/kernel/libk.a")));
    assertEquals(List.of(), leftovers(batch.getParent()));
  }

  /**
   * A disk that fills while {@code ar} writes a batch: a 16 KiB tmpfs over the batches' folder,
   * mounted in a mount namespace of the build's own. Whichever archiver runs (GNU ar says "No space
   * left on device"; llvm-ar aborts with an "IO failure"), the error names the batch and the folder
   * to free, and does not send the user to the archiver.
   */
  @Test
  void aFullDiskDuringABatchNamesTheBatchAndTheFolderNotTheArchiver() throws Exception {
    Path project = dir.resolve("p");
    Projects.generate(project, 120); // a batch of about 170 KB
    new KernelBuild(new RecordingLog(), System.getenv()).run(Projects.request(project, null, 400));
    Path batches = project.resolve("target/kernel/archive/k");
    Files.delete(project.resolve("target/kernel/libk.a")); // made again, and its batch with it
    assumeTrue(canMountTmpfs(), "no tmpfs can be mounted in a mount namespace here");
    String command = shellWords(BuildMain.process(project, dir.resolve("empty-cache"), 400));
    Process build = new ProcessBuilder("unshare", "-m", "sh", "-c",
        "mount -t tmpfs -o size=16k tmpfs '" + batches + "' && exec " + command).redirectErrorStream(true).start();
    String output = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertNotEquals(0, build.waitFor(), output);
    assertTrue(output.contains("no space was left on the device for " + batches.resolve("batch-00000.a"))
        && output.contains("Free space on the disk that holds " + batches), output);
    assertFalse(output.contains("Check the archiver"), output);
    assertFalse(Files.exists(project.resolve("target/kernel/libk.a")), "no archive");
  }

  /**
   * Whether this process may mount a tmpfs in a mount namespace of its own; where it may not, the
   * console says why and what to install (util-linux's unshare, mount) or how to run (as root).
   */
  private boolean canMountTmpfs() throws Exception {
    Installed.assumeOnPath("unshare", "a disk that fills under ar");
    Installed.assumeOnPath("mount", "a disk that fills under ar");
    Path probe = Files.createDirectories(dir.resolve("mount-probe"));
    Process mount = new ProcessBuilder("unshare", "-m", "mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs",
        probe.toString()).redirectErrorStream(true).start();
    String output = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (mount.waitFor() == 0) {
      return true;
    }
    System.out.println("SKIPPED: a tmpfs cannot be mounted in a mount namespace here (" + output + "); a disk that"
        + " fills under ar is not tested (it needs root)");
    return false;
  }

  @Test
  void aFileSizeLimitDuringTheLinkNamesTheLibraryAndPublishesNothing() throws Exception {
    Path project = dir.resolve("p");
    Projects.generate(project, 4);
    Path cache = dir.resolve("cache");
    // The archive (about 6 KB) fits; the library (page-aligned segments, over 13 KB) does not.
    String[] result = buildWithFileLimit(project, cache, 24);
    assertNotEquals("0", result[0], result[1]);
    // ld is killed by SIGXFSZ (its parent's ignoring of the signal does not survive the spawn): gcc says so.
    assertTrue(result[1].contains("Linking libk.so (with bfd) failed") && result[1].contains("File size limit exceeded"),
        result[1]);
    assertTrue(Files.exists(project.resolve("target/kernel/libk.a")), result[1]);
    assertFalse(Files.exists(project.resolve("target/kernel/libk.so")), "no partial library");
    assertEquals(List.of(), leftovers(project.resolve("target/kernel")));
  }

  @Test
  void aCacheThatCannotBeWrittenCostsOneWarning() throws Exception {
    Path project = dir.resolve("p");
    Projects.generate(project, 20);
    Path blocked = Files.writeString(dir.resolve("not-a-folder"), "a file where the cache's parent should be");
    RecordingLog log = new RecordingLog();
    BuildSummary summary = new KernelBuild(log, System.getenv()).run(Projects.request(project, blocked.resolve("c"), 4));
    assertEquals(20, summary.compiled());
    List<String> warnings = log.lines().stream().filter(l -> l.startsWith("WARN ")).toList();
    assertEquals(1, warnings.size(), log.text());
    assertTrue(warnings.get(0).contains("cannot be written") && warnings.get(0).contains("kernel.cache.dir"),
        warnings.get(0));

    Path reference = dir.resolve("r");
    Projects.generate(reference, 20);
    new KernelBuild(new RecordingLog(), System.getenv()).run(Projects.request(reference, null, 4));
    assertArrayEquals(Files.readAllBytes(reference.resolve("target/kernel/libk.a")),
        Files.readAllBytes(project.resolve("target/kernel/libk.a")));
  }

  @Test
  void anOutputDirectoryThatCannotBeWrittenFailsUpFrontNamingIt() throws Exception {
    Path project = dir.resolve("p");
    Projects.generate(project, 3);
    Files.writeString(project.resolve("target"), "a file where target/ should be");
    KernelBuildRequest base = Projects.request(project, null, 4);
    BuildFailureException e = org.junit.jupiter.api.Assertions.assertThrows(BuildFailureException.class,
        () -> new KernelBuild(new RecordingLog(), System.getenv()).run(base));
    assertTrue(e.getMessage().contains("The output directory " + project.resolve("target/kernel") + " cannot be written")
        && e.getMessage().contains("<outputDirectory>"), e.getMessage());
  }
}
