package io.github.kernelarchive.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.pipeline.RecordingLog;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import io.github.kernelarchive.util.ContentHashes;
import io.github.kernelarchive.util.Hashing;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The published archive of fixed objects (test resources {@code golden/}: repeated basenames in
 * two folders, a name longer than 16 bytes) is, byte for byte, what the plugin wrote at 7cd607f,
 * whatever the archiver, the batch size and the kind of batch: a rework of the archive stage (issue
 * #50) must keep it.
 * The SHA-256 was taken from 7cd607f's ArchiveBuilder with this test.
 */
class GoldenArchiveTest {
  static final String SHA256_AT_7CD607F = "be5c6158e51f9a9b7c12f33b7a134ef588f59b722e5d376299987f306bfed7a7";
  static final List<String> OBJECTS = List.of("a/k0.o", "a/k1.o", "a/k2.o", "b/k0.o", "b/k1.o",
      "b/a-member-whose-name-is-longer-than-sixteen.o");

  @TempDir
  Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"ar", "llvm-ar"})
  void theSameBytesAsAt7cd607f(String archiver) throws Exception {
    assumeTrue(NativeObjects.installed(archiver));
    Tool ar = new Toolchain(new ToolchainConfig(null, null, null, null, archiver, null, null, Map.of()),
        System.getenv()).archiver();
    ContentHashes hashes = new ContentHashes();
    List<PlannedMember> members = new ArrayList<>();
    for (String name : OBJECTS) {
      Path object = dir.resolve("obj").resolve(name);
      Files.createDirectories(object.getParent());
      try (InputStream in = GoldenArchiveTest.class.getResourceAsStream("golden/" + name)) {
        Files.write(object, in.readAllBytes());
      }
      members.add(new PlannedMember(object.getFileName().toString(), object, hashes.of(object).orElseThrow()));
    }
    for (int batchSize : new int[] {2, 400}) {
      // Batches that hold the members' bytes (what objects this small get) and thin ones.
      for (long thinFrom : new long[] {Long.MAX_VALUE, 0}) {
        String tag = archiver + "-" + batchSize + (thinFrom == 0 ? "-thin" : "-copied");
        Path output = dir.resolve(tag + "/libgolden.a");
        new ArchiveBuilder(ar, new ProcessRunner(Map.of()), batchSize, 2, null, new ContentHashes(), new RecordingLog(), ElfObject.hostMachine())
            .thinFrom(thinFrom).build("golden", NativeObjects.inputs(members), dir.resolve(tag + "/work"), output);
        assertEquals(SHA256_AT_7CD607F, Hashing.ofFile(output), tag);
        assertEquals(thinFrom == 0 ? "!<thin>\n" : "!<arch>\n", new String(Files.readAllBytes(
            dir.resolve(tag + "/work/batch-00000.a")), 0, 8, java.nio.charset.StandardCharsets.US_ASCII), tag);
      }
    }
  }
}
