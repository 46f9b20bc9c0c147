package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.scan.Language;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A build SIGKILLed while it wrote the archive leaves {@code .libk.a.<uuid>.tmp} (hundreds of MB
 * for large archives): the next build removes it, and every other temporary of its own outputs,
 * and says so once. What is not one of its temporary names stays.
 */
class TemporarySweepTest {
  @TempDir Path dir;

  @Test
  void theNextBuildRemovesWhatAKilledBuildLeftUnderTemporaryNames() throws Exception {
    Installed.assumeCompiler(Language.C);
    Path project = dir.resolve("p");
    Projects.generate(project, 4);
    new KernelBuild(new RecordingLog(), System.getenv()).run(Projects.request(project, dir.resolve("cache"), 2));
    Path output = project.resolve("target/kernel");
    Path archiveTemp = Files.write(output.resolve(".libk.a." + UUID.randomUUID() + ".tmp"), new byte[3_000_000]);
    Path batchTemp = Files.write(Files.createDirectories(output.resolve("archive/k")).resolve(".batch-1.a." + UUID.randomUUID()
        + ".tmp"), new byte[10]);
    Path usersFile = Files.writeString(output.resolve("notes.tmp"), "mine");

    RecordingLog log = new RecordingLog();
    new KernelBuild(log, System.getenv()).run(Projects.request(project, dir.resolve("cache"), 2));

    assertFalse(Files.exists(archiveTemp));
    assertFalse(Files.exists(batchTemp));
    assertTrue(Files.exists(usersFile), "only the plugin's own temporary names are removed");
    assertTrue(log.text().contains("Removed temporary files a killed build left in " + output + " (3 MB)"), log.text());
    assertEquals(1, log.text().split("Removed temporary files", -1).length - 1);
  }
}
