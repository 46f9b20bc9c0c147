package io.github.kernelarchive.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.compile.CompileState.Dependency;
import io.github.kernelarchive.compile.CompileState.ObjectRecord;
import io.github.kernelarchive.compile.IncrementalPlanner.Plan;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.scan.SourceFile;
import io.github.kernelarchive.util.ContentHashes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The planner on its own: jobs and state are built by hand, no compiler runs. */
class IncrementalPlannerTest {
  @TempDir Path dir;
  private Path source;
  private Path header;
  private Path object;
  private CompileState state;

  @BeforeEach
  void recordAnUpToDateObject() throws Exception {
    source = Files.writeString(dir.resolve("k.cpp"), "#include \"k.h\"\nint k() { return K; }\n");
    header = Files.writeString(dir.resolve("k.h"), "#define K 1\n");
    object = Files.writeString(dir.resolve("k.cpp.o"), "object bytes");
    state = CompileState.empty();
    state.put(object, new ObjectRecord(job(List.of("c++", "-O2"), "gcc 12").key(hash(source)),
        Files.size(object), Files.getLastModifiedTime(object).toMillis(),
        List.of(new Dependency(header.toString(), hash(header)))));
  }

  private CompileJob job(List<String> argv, String identity) {
    SourceFile file = new SourceFile("host", dir, "k.cpp", Language.CXX);
    return new CompileJob(file, object, dir.resolve("k.cpp.o.d"), List.of(), argv, Map.of(), identity, dir.toString(),
        dir.resolve("obj").toString());
  }

  private static String hash(Path file) throws Exception {
    return new ContentHashes().of(file).orElseThrow();
  }

  private String reason(CompileJob job) {
    Plan plan = new IncrementalPlanner(new ContentHashes()).plan(List.of(job), state);
    return plan.toCompile().isEmpty() ? null : plan.toCompile().get(0).reason();
  }

  @Test
  void unchangedIsUpToDate() {
    assertEquals(null, reason(job(List.of("c++", "-O2"), "gcc 12")));
  }

  @Test
  void touchingWithoutChangingContentIsStillUpToDate() throws Exception {
    Files.setLastModifiedTime(header, FileTime.fromMillis(System.currentTimeMillis() + 60_000));
    Files.setLastModifiedTime(source, FileTime.fromMillis(System.currentTimeMillis() + 60_000));
    assertEquals(null, reason(job(List.of("c++", "-O2"), "gcc 12")));
  }

  @Test
  void flagCompilerOrSourceChangeRebuilds() throws Exception {
    assertEquals("source, command line or compiler changed", reason(job(List.of("c++", "-O3"), "gcc 12")));
    assertEquals("source, command line or compiler changed", reason(job(List.of("c++", "-O2"), "gcc 13")));
    Files.writeString(source, "int k() { return 2; }\n");
    assertEquals("source, command line or compiler changed", reason(job(List.of("c++", "-O2"), "gcc 12")));
  }

  @Test
  void headerEditOrRemovalRebuilds() throws Exception {
    Files.writeString(header, "#define K 2\n");
    assertEquals("header changed: " + header, reason(job(List.of("c++", "-O2"), "gcc 12")));
    Files.delete(header);
    assertEquals("header changed: " + header, reason(job(List.of("c++", "-O2"), "gcc 12")));
  }

  @Test
  void deletedOrReplacedObjectRebuilds() throws Exception {
    Files.writeString(object, "other object bytes");
    assertEquals("object replaced outside the build", reason(job(List.of("c++", "-O2"), "gcc 12")));
    Files.delete(object);
    assertEquals("object missing", reason(job(List.of("c++", "-O2"), "gcc 12")));
  }

  @Test
  void stateSurvivesSaveAndLoad() throws Exception {
    Path file = dir.resolve("state/compile.state");
    state.save(file);
    state = CompileState.load(file);
    assertEquals(null, reason(job(List.of("c++", "-O2"), "gcc 12")));
  }

  @Test
  void corruptStateMeansRebuildEverything() throws Exception {
    Path file = dir.resolve("compile.state");
    Files.writeString(file, "garbage");
    state = CompileState.load(file);
    assertTrue(reason(job(List.of("c++", "-O2"), "gcc 12")).startsWith("not built"));
  }
}
