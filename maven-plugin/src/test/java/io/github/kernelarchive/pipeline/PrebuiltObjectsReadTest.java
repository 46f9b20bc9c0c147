package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Prebuilt objects ({@code <objects>}) are hashed once per build, as the build's timeline shows: a
 * clean build without a cache hashes them only while it writes the archive (nothing at planning),
 * a no-op build reads none, and an edit of one object hashes that object at planning (to compare
 * keys) and then builds.
 */
class PrebuiltObjectsReadTest {
  @TempDir Path dir;

  /** 64 KiB objects: larger than what inspection keeps in memory, so the write reads their files. */
  private List<Path> objects(int count) throws Exception {
    Path objects = Files.createDirectories(dir.resolve("objects"));
    List<Path> made = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Path source = dir.resolve("src/p" + i + ".c");
      Files.createDirectories(source.getParent());
      Files.writeString(source, "const unsigned char payload_" + i + "[65536] = { [0] = " + (i + 1) + " };\n"
          + "int prebuilt_" + i + "(void) { return payload_" + i + "[0]; }\n");
      Path object = objects.resolve("p" + i + ".o");
      Commands.run(List.of("cc", "-c", "-fPIC", "-o", object.toString(), source.toString()), dir);
      // Older than the settle time, so the next build may trust their size and time.
      Files.setLastModifiedTime(object, FileTime.from(Instant.now().minusSeconds(3600)));
      made.add(object);
    }
    return made;
  }

  private KernelBuildRequest request() {
    return KernelBuildRequest.builder(dir, "k").archiveObjects("k", dir.resolve("objects")).jobs(2).batchSize(4)
        .build();
  }

  private List<String> slices() throws Exception {
    String trace = Files.readString(dir.resolve("target/kernel/trace.json"));
    List<String> names = new ArrayList<>();
    Matcher slice = Pattern.compile("\"name\": \"([^\"]*)\", \"cat\": \"[^\"]*\", \"ph\": \"X\"").matcher(trace);
    while (slice.find()) {
      names.add(slice.group(1));
    }
    return names;
  }

  private static boolean any(List<String> slices, String prefix) {
    return slices.stream().anyMatch(s -> s.startsWith(prefix));
  }

  @Test
  void eachPrebuiltObjectIsReadOncePerBuild() throws Exception {
    List<Path> objects = objects(6);
    RecordingLog log = new RecordingLog();
    BuildSummary clean = new KernelBuild(log, System.getenv()).run(request());
    assertEquals(1, clean.archivesBuilt());
    List<String> first = slices();
    assertFalse(any(first, "hash prebuilt objects"), "a clean build without a cache hashes nothing at planning: " + first);
    assertTrue(any(first, "combine k"), first.toString());

    BuildSummary noOp = new KernelBuild(log, System.getenv()).run(request());
    assertEquals(1, noOp.archivesUpToDate());
    List<String> second = slices();
    assertFalse(any(second, "hash prebuilt objects") || any(second, "inspect") || any(second, "combine"),
        "a no-op build reads no object: " + second);

    Files.writeString(dir.resolve("src/p2.c"), "int prebuilt_2(void) { return 42; }\n");
    Commands.run(List.of("cc", "-c", "-fPIC", "-o", objects.get(2).toString(), dir.resolve("src/p2.c").toString()),
        dir);
    BuildSummary edited = new KernelBuild(log, System.getenv()).run(request());
    assertEquals(1, edited.archivesBuilt());
    List<String> third = slices();
    assertTrue(any(third, "hash prebuilt objects of k") && any(third, "combine k"), third.toString());
    assertTrue(Commands.run(List.of("nm", dir.resolve("target/kernel/libk.a").toString()), dir)
        .contains("prebuilt_2"), "the edited object is in the archive");
  }
}
