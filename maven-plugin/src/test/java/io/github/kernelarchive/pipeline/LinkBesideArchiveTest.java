package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.elf.ElfObject;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The link reads the archive's batches while the archive is written: thin ones for objects of 64
 * KiB, ones that hold the bytes for small objects. The library is the one a link of the finished
 * archive writes, build ID included; an archive that fails its checks, or members that define a
 * symbol twice, fail the build with that cause (not the linker's words) and publish no library.
 */
class LinkBesideArchiveTest {
  @TempDir Path dir;

  /** An object with a payload of {@code payload} bytes defining {@code function}. */
  private void object(String name, String function, int payload) throws Exception {
    Path source = dir.resolve("src/" + name + ".c");
    Files.createDirectories(source.getParent());
    Files.writeString(source, "const unsigned char payload_" + name + "[" + payload + "] = { [0] = 1 };\n"
        + "int " + function + "(void) { return payload_" + name + "[0]; }\n");
    Path objects = Files.createDirectories(dir.resolve("objects"));
    Commands.run(List.of("cc", "-c", "-fPIC", "-o", objects.resolve(name + ".o").toString(), source.toString()), dir);
  }

  private void objects(int count, int payload) throws Exception {
    for (int i = 0; i < count; i++) {
      object("p" + i, "kernel_" + i, payload);
    }
  }

  private String batchMagic() throws Exception {
    byte[] start = Arrays.copyOf(Files.readAllBytes(dir.resolve("target/kernel/archive/k/batch-00000.a")), 8);
    return new String(start, StandardCharsets.US_ASCII);
  }

  private BuildSummary build() throws Exception {
    KernelBuildRequest request = KernelBuildRequest.builder(dir, "k").archiveObjects("k", dir.resolve("objects"))
        .jobs(2).batchSize(3).build();
    return new KernelBuild(new RecordingLog(), System.getenv()).run(request);
  }

  private String trace() throws Exception {
    return Files.readString(dir.resolve("target/kernel/trace.json"));
  }

  private Path library() {
    return dir.resolve("target/kernel/libk.so");
  }

  @ParameterizedTest
  @ValueSource(ints = {65536, 64})
  void theLibraryLinkedBesideTheArchiveIsTheOneLinkedAfterIt(int payload) throws Exception {
    objects(8, payload);
    BuildSummary beside = build();
    assertEquals(1, beside.archivesBuilt());
    assertTrue(beside.relinked());
    assertEquals(payload > 16 * 1024 ? "!<thin>\n" : "!<arch>\n", batchMagic());
    assertTrue(trace().contains("wait for the archives"), "the link read the batches while the archive was written");
    assertTrue(Files.readString(dir.resolve("target/kernel/link/libk.so.rsp")).contains("batch-00000.a"));
    byte[] first = Files.readAllBytes(library());
    String id = ElfObject.buildId(ByteBuffer.wrap(first)).orElseThrow();
    assertNotEquals(HexFormat.of().formatHex("kernel-archive-build".getBytes(StandardCharsets.US_ASCII)), id,
        "the placeholder was replaced by the key's build ID");

    Files.delete(library());
    BuildSummary after = build();
    assertEquals(1, after.archivesUpToDate());
    assertTrue(after.relinked());
    assertFalse(trace().contains("wait for the archives"), "the archive was there: the link read it");
    assertArrayEquals(first, Files.readAllBytes(library()), "same library, same build ID");
  }

  @ParameterizedTest
  @ValueSource(ints = {65536, 64})
  void anArchiveThatFailsItsChecksPublishesNoLibrary(int payload) throws Exception {
    objects(5, payload);
    byte[] text = new byte[40_000];
    java.util.Arrays.fill(text, (byte) 'x');
    Files.write(dir.resolve("objects/p9.o"), text);

    BuildFailureException failure = assertThrows(BuildFailureException.class, this::build);
    assertTrue(failure.getMessage().contains("Archive 'k' failed validation") && failure.getMessage().contains("p9.o"),
        failure.getMessage());
    assertFalse(Files.exists(library()));
    assertFalse(Files.exists(dir.resolve("target/kernel/libk.a")));
    assertEquals(List.of(), leftovers(), "no temporary file is left behind");
  }

  @ParameterizedTest
  @ValueSource(ints = {65536, 64})
  void duplicateDefinitionsAreListedRatherThanTheLinkersFirst(int payload) throws Exception {
    objects(4, payload);
    object("again_a", "twice", payload);
    object("again_b", "twice", payload);

    BuildFailureException failure = assertThrows(BuildFailureException.class, this::build);
    assertTrue(failure.getMessage().contains("1 symbol(s) defined more than once")
        && failure.getMessage().contains("again_a.o") && failure.getMessage().contains("again_b.o"),
        failure.getMessage());
    assertFalse(Files.exists(library()));
  }

  private List<Path> leftovers() throws Exception {
    List<Path> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(dir.resolve("target/kernel"))) {
      files.filter(f -> f.getFileName().toString().endsWith(".tmp")).forEach(found::add);
    }
    return found;
  }
}
