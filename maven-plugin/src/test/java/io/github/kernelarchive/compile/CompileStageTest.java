package io.github.kernelarchive.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.pipeline.Installed;
import io.github.kernelarchive.pipeline.RecordingLog;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.scan.SourceFile;
import io.github.kernelarchive.scan.SourceScanner;
import io.github.kernelarchive.scan.SourceSet;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import io.github.kernelarchive.util.ContentHashes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The compile stage against the real gcc/g++ (and nvcc/hipcc where installed). */
class CompileStageTest {
  @TempDir Path project;
  private final RecordingLog log = new RecordingLog();

  private Path write(String relative, String content) throws Exception {
    Path file = project.resolve(relative);
    Files.createDirectories(file.getParent());
    return Files.writeString(file, content);
  }

  private CompileOptions options(List<String> defines, String cudaArchs) {
    return new CompileOptions(List.of(project.resolve("include")), defines, List.of("-O1"),
        List.of("-O1", "-std=c++17"), List.of("-O1"), List.of(), cudaArchs, false, "gfx90a", true, project);
  }

  private CompileStage.Result build(CompileOptions options) throws Exception {
    return build(options, ToolchainConfig.defaults());
  }

  private CompileStage.Result build(CompileOptions options, ToolchainConfig tools) throws Exception {
    log.clear();
    List<SourceFile> sources = new SourceScanner().scan(new SourceSet("kernels", project.resolve("src"), List.of(), List.of()));
    CompileStage stage = new CompileStage(new Toolchain(tools, System.getenv()), options,
        project.resolve("target/kernel"), project, 2, new ContentHashes(), null, log);
    return stage.compile(stage.prepare(sources), job -> true);
  }

  private Path object(String relative) {
    return project.resolve("target/kernel/obj/kernels/" + relative + ".o");
  }

  @Test
  void incrementalRebuildsExactlyWhatChanged() throws Exception {
    write("include/shared.h", "#define SHARED 1\n");
    write("include/only_a.h", "#define ONLY_A 2\n");
    write("src/a.c", "#include \"shared.h\"\n#include \"only_a.h\"\nint a(void) { return SHARED + ONLY_A; }\n");
    write("src/sub/b.cpp", "#include \"shared.h\"\nint b() { return SHARED; }\n");
    write("src/sub/c.cpp", "int c() { return 3; }\n");
    CompileOptions options = options(List.of("MODE=1"), "");

    CompileStage.Result first = build(options);
    assertEquals(3, first.compiled());
    assertTrue(Files.isRegularFile(object("sub/b.cpp")), "objects mirror the source tree");
    assertTrue(log.lines().stream().anyMatch(l -> l.matches("INFO \\[\\d/3] CXX kernels/sub/b\\.cpp")), log.text());

    CompileStage.Result second = build(options);
    assertEquals(0, second.compiled());
    assertEquals(3, second.upToDate());

    write("include/only_a.h", "#define ONLY_A 3\n");
    assertEquals(1, build(options).compiled(), "only a.c includes only_a.h");
    write("include/shared.h", "#define SHARED 2\n");
    assertEquals(2, build(options).compiled(), "a.c and b.cpp include shared.h");

    assertEquals(3, build(options(List.of("MODE=2"), "")).compiled(), "a changed define recompiles all");

    Files.delete(object("sub/c.cpp"));
    CompileStage.Result afterDelete = build(options(List.of("MODE=2"), ""));
    assertEquals(1, afterDelete.compiled());
    assertTrue(Files.isRegularFile(object("sub/c.cpp")));

    String commands = Files.readString(project.resolve("target/kernel/compile_commands.json"));
    assertTrue(commands.contains("\"file\": \"" + project.resolve("src/sub/c.cpp") + "\""), commands);
  }

  @Test
  void everyFailingSourceIsReportedWithTheCompilersMessage() throws Exception {
    write("src/bad1.c", "int a(void) {\n  return 1\n}\n");
    write("src/good.cpp", "int g() { return 1; }\n");
    write("src/dir/bad2.cpp", "int b() {\n\n  return undefined_name;\n}\n");
    BuildFailureException e = assertThrows(BuildFailureException.class, () -> build(options(List.of(), "")));
    assertTrue(e.getMessage().contains("bad1.c") && e.getMessage().contains("dir/bad2.cpp"), e.getMessage());
    String text = log.text();
    assertTrue(text.contains("bad1.c:2:"), text);
    assertTrue(text.contains("bad2.cpp:3:"), text);
    assertTrue(text.contains("FAILED"), text);
    assertTrue(Files.isRegularFile(object("good.cpp")), "the good source still compiled");
    write("src/bad1.c", "int a(void) { return 1; }\n");
    write("src/dir/bad2.cpp", "int b() { return 2; }\n");
    assertEquals(2, build(options(List.of(), "")).compiled(), "the fixed sources compile, the good one is kept");
  }

  @Test
  void namesWithSpacesQuotesAndAtSigns() throws Exception {
    write("include/dir with space/odd 'h' @x.h", "#define ODD 5\n");
    write("src/sp ace/it's @file \"q\".c", "#include \"dir with space/odd 'h' @x.h\"\nint odd(void) { return ODD; }\n");
    write("src/@at/b#c$d.cpp", "int at() { return 1; }\n");
    assertEquals(2, build(options(List.of(), "")).compiled());
    assertTrue(Files.isRegularFile(object("sp ace/it's @file \"q\".c")));
    assertEquals(0, build(options(List.of(), "")).compiled(), "depfile escapes round-trip");
    write("include/dir with space/odd 'h' @x.h", "#define ODD 6\n");
    assertEquals(1, build(options(List.of(), "")).compiled(), "header with odd name is tracked");
  }

  @Test
  void aConfiguredCompilerThatDoesNotExistNamesTheParameter() throws Exception {
    write("src/a.cpp", "int a() { return 1; }\n");
    ToolchainConfig tools = new ToolchainConfig(null, "/no/such/g++", null, null, null, null, null, Map.of());
    ToolchainException e = assertThrows(ToolchainException.class, () -> build(options(List.of(), ""), tools));
    assertTrue(e.getMessage().contains("/no/such/g++") && e.getMessage().contains("kernel.cxx"), e.getMessage());
  }

  @Test
  void aMissingLauncherNamesTheParameter() throws Exception {
    write("src/a.cpp", "int a() { return 1; }\n");
    ToolchainConfig tools = new ToolchainConfig(null, null, null, null, null, "no-such-ccache", null, Map.of());
    ToolchainException e = assertThrows(ToolchainException.class, () -> build(options(List.of(), ""), tools));
    assertTrue(e.getMessage().contains("kernel.launcher"), e.getMessage());
  }

  @Test
  void cudaSourcesNeedArchitectures() throws Exception {
    write("src/k.cu", "__global__ void k() {}\n");
    BuildFailureException e = assertThrows(BuildFailureException.class, () -> build(options(List.of(), "")));
    assertTrue(e.getMessage().contains("kernel.cuda.archs"), e.getMessage());
  }

  @Test
  void cudaAndCxxWithTheSameBaseNameBothSurvive() throws Exception {
    Installed.assumeCompiler(Language.CUDA);
    write("include/k.h", "#define K 7\n");
    write("src/fwd/k.cu", "#include \"k.h\"\n__global__ void kern(int *x) { *x = K; }\n"
        + "extern \"C\" void launch(int *x) { kern<<<1, 1>>>(x); }\n");
    write("src/fwd/k.cpp", "int host_k() { return 1; }\n");
    assertEquals(2, build(options(List.of(), "80")).compiled());
    assertTrue(Files.isRegularFile(object("fwd/k.cu")) && Files.isRegularFile(object("fwd/k.cpp")));
    assertEquals(0, build(options(List.of(), "80")).compiled(), "nvcc's depfile is understood");
    write("include/k.h", "#define K 8\n");
    assertEquals(1, build(options(List.of(), "80")).compiled());
    assertEquals(1, build(options(List.of(), "80;90a")).compiled(), "an arch change recompiles the CUDA source only");
  }

  @Test
  void hipSourcesForAmdTargets() throws Exception {
    Installed.assumeCompiler(Language.HIP);
    write("src/k.hip", "#include <hip/hip_runtime.h>\n__global__ void kern(int *x) { *x = 1; }\n");
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    List<String> before;
    try (java.util.stream.Stream<Path> list = Files.list(tmp)) {
      before = list.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("k-")).toList();
    }
    assertEquals(1, build(options(List.of(), "")).compiled());
    assertTrue(Files.size(object("k.hip")) > 0);
    // hipcc's leftovers went to the build's scratch folder, which the stage emptied, not to /tmp.
    try (java.util.stream.Stream<Path> list = Files.list(tmp)) {
      List<String> after = list.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("k-")).toList();
      assertEquals(before, after, "hipcc left folders in " + tmp);
    }
    try (java.util.stream.Stream<Path> left = Files.list(project.resolve("target/kernel/state/hip-tmp"))) {
      assertEquals(List.of(), left.toList());
    }
  }

  @Test
  void aCompileFarmLauncherNeverGetsGpuCompiles() {
    List<String> farm = List.of("/usr/bin/distcc");
    assertEquals(farm, CompileStage.launcherFor(Language.CXX, farm));
    assertEquals(List.of(), CompileStage.launcherFor(Language.CUDA, farm));
    assertEquals(List.of(), CompileStage.launcherFor(Language.HIP, List.of("/usr/bin/icecc")));
    List<String> chained = List.of("/usr/bin/ccache", "/usr/bin/distcc");
    assertEquals(chained, CompileStage.launcherFor(Language.C, chained));
    assertEquals(List.of("/usr/bin/ccache"), CompileStage.launcherFor(Language.CUDA, chained),
        "ccache, which understands nvcc, stays in front of a local nvcc");
    assertEquals(List.of("/usr/bin/sccache"), CompileStage.launcherFor(Language.CUDA, List.of("/usr/bin/sccache")));
  }
}
