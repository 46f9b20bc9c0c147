package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The library's GNU build ID is the link key's (the linker does not hash the library it wrote): 20
 * bytes that every linker writes, the same for the same inputs in another checkout, and new when a
 * source, or a static library named only in {@code <linkFlags>}, changes.
 */
class BuildIdTest {
  private static final Pattern BUILD_ID = Pattern.compile("Build ID: ([0-9a-f]+)");

  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"bfd", "gold", "lld", "mold"})
  void everyLinkerWritesTheKeysBuildId(String linker) throws Exception {
    Installed.assumeOnPath("ld." + linker, "its build ID");
    Path project = project("p", 1);

    BuildSummary summary = build(project, linker, List.of());

    String key = Files.readString(project.resolve("target/kernel/link/libp.so.key"));
    assertEquals(key.substring(0, 40), buildId(summary.library()));
    assertTrue(Files.readString(project.resolve("target/kernel/audit.txt")).contains("BUILD_ID " + key.substring(0, 40)),
        "audit.txt names the build ID");
  }

  @Test
  void sameInputsInAnotherCheckoutGiveTheSameBuildIdAndBytes() throws Exception {
    Path one = build(project("one/p", 1), "auto", List.of()).library();
    Path two = build(project("two/p", 1), "auto", List.of()).library();

    assertEquals(buildId(one), buildId(two));
    assertArrayEquals(Files.readAllBytes(one), Files.readAllBytes(two));
  }

  @Test
  void aChangedSourceGivesANewBuildId() throws Exception {
    Path project = project("p", 1);
    String before = buildId(build(project, "auto", List.of()).library());
    Files.writeString(project.resolve("kernels/answer.c"), "int kernel_answer(void) { return 7; }\n");

    BuildSummary after = build(project, "auto", List.of());

    assertTrue(after.relinked());
    assertNotEquals(before, buildId(after.library()));
  }

  @Test
  void aStaticLibraryNamedOnlyInLinkFlagsRelinksWhenItChanges() throws Exception {
    Path project = project("p", 1);
    Path external = Files.createDirectories(dir.resolve("external"));
    List<String> flags = List.of("-L" + external, "-lextra");
    extraLibrary(external, 1);
    String before = buildId(build(project, "auto", flags).library());
    assertFalse(build(project, "auto", flags).relinked(), "nothing changed");

    extraLibrary(external, 2); // same size, same name: only its content says it changed
    BuildSummary changed = build(project, "auto", flags);

    assertTrue(changed.relinked(), "libextra.a changed: the library must be linked again");
    assertNotEquals(before, buildId(changed.library()));
  }

  @Test
  void aBuildIdInLinkFlagsWins() throws Exception {
    Path project = project("p", 1);
    BuildSummary summary = build(project, "auto", List.of("-Wl,--build-id=0x0123456789abcdef"));

    assertEquals("0123456789abcdef", buildId(summary.library()));
  }

  /** A static library with one function, {@code extra_answer}, whose answer is {@code value}. */
  private void extraLibrary(Path folder, int value) throws Exception {
    Path source = Files.writeString(folder.resolve("extra.c"), "int extra_answer(void) { return " + value + "; }\n");
    Commands.run(List.of("cc", "-c", "-fPIC", "-o", "extra.o", source.toString()), folder);
    Files.deleteIfExists(folder.resolve("libextra.a"));
    Commands.run(List.of("ar", "qcD", "libextra.a", "extra.o"), folder);
  }

  private Path project(String name, int variant) throws Exception {
    Path project = dir.resolve(name);
    Files.createDirectories(project.resolve("kernels"));
    Files.createDirectories(project.resolve("host"));
    Files.writeString(project.resolve("kernels/answer.c"), "int kernel_answer(void) { return " + variant + "; }\n");
    Files.writeString(project.resolve("host/api.c"),
        "int kernel_answer(void);\nint p_answer(void) { return kernel_answer(); }\n");
    return project;
  }

  private BuildSummary build(Path project, String linker, List<String> linkFlags) throws Exception {
    KernelBuildRequest request = KernelBuildRequest.builder(project, "p").host(project.resolve("host"))
        .archive("kernels", project.resolve("kernels")).cFlags("-O1").cxxFlags("-O1").linker(linker).jobs(2)
        .batchSize(400).exports("p_*").linkFlags(linkFlags.toArray(String[]::new)).build();
    RecordingLog log = new RecordingLog();
    return new KernelBuild(log, System.getenv()).run(request);
  }

  private String buildId(Path library) throws Exception {
    Matcher id = BUILD_ID.matcher(Commands.run(List.of("readelf", "-n", library.toString()), dir));
    assertTrue(id.find(), library + " has no build ID note");
    return id.group(1);
  }
}
