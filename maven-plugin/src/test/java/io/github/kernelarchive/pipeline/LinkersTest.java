package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.compile.CompileOptions;
import io.github.kernelarchive.scan.SourceSet;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The two-copies guarantee with every linker: two libraries whose archives define the same C
 * function, C++ inline-function static and template static with different answers, loaded
 * RTLD_GLOBAL into one process in both orders, each answer with their own kernels. A linker that
 * is not installed is skipped with a printed reason.
 */
class LinkersTest {
  @TempDir Path dir;

  private static final String KERNEL_C = "int kernel_answer(void) { return VARIANT * 100; }\n";
  private static final String STATICS_CPP = String.join("\n",
      "inline int &calls() { static int n = 0; return n; }",
      "template <int N> struct Tag { static int value; };",
      "template <int N> int Tag<N>::value = N + VARIANT;",
      "extern \"C\" int kernel_statics(void) { return (++calls() > 0 ? 1 : 0) * Tag<0>::value * 10; }", "");
  private static final String API_C = "int kernel_answer(void);\nint kernel_statics(void);\n"
      + "int API_NAME(void) { return kernel_answer() + kernel_statics(); }\n";
  private static final String LOADER = String.join("\n",
      "#include <dlfcn.h>", "#include <stdio.h>",
      "int main(int argc, char **argv) {",
      "  void *first = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);",
      "  void *second = dlopen(argv[3], RTLD_NOW | RTLD_GLOBAL);",
      "  if (!first || !second) { fprintf(stderr, \"%s\\n\", dlerror()); return 1; }",
      "  int (*a)(void) = (int (*)(void)) dlsym(first, argv[2]);",
      "  int (*b)(void) = (int (*)(void)) dlsym(second, argv[4]);",
      "  printf(\"%s=%d %s=%d\\n\", argv[2], a(), argv[4], b());",
      "  return 0;",
      "}", "");

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"bfd", "gold", "lld", "mold"})
  void eachCopyKeepsItsOwnKernels(String linker) throws Exception {
    Installed.assumeOnPath("ld." + linker, "the " + linker + " link");

    Path a = library("a", 1, linker);
    Path b = library("b", 2, linker);
    Path loader = dir.resolve("load-both");
    Commands.run(List.of("cc", "-o", loader.toString(), Files.writeString(dir.resolve("load.c"), LOADER).toString(),
        "-ldl"), dir);
    assertEquals("a_answer=110 b_answer=220", Commands.run(List.of(loader.toString(), a.toString(), "a_answer",
        b.toString(), "b_answer"), dir).strip());
    assertEquals("b_answer=220 a_answer=110", Commands.run(List.of(loader.toString(), b.toString(), "b_answer",
        a.toString(), "a_answer"), dir).strip());
  }

  private Path library(String copy, int variant, String linker) throws Exception {
    Path project = dir.resolve(copy);
    Files.createDirectories(project.resolve("kernels"));
    Files.createDirectories(project.resolve("host"));
    Files.writeString(project.resolve("kernels/answer.c"), KERNEL_C);
    Files.writeString(project.resolve("kernels/statics.cpp"), STATICS_CPP);
    Files.writeString(project.resolve("host/api.c"), API_C);
    CompileOptions options = new CompileOptions(List.of(), List.of("VARIANT=" + variant, "API_NAME=" + copy + "_answer"),
        List.of("-O1"), List.of("-O1"), List.of(), List.of(), "", false, "", true, project);
    ToolchainConfig tools = new ToolchainConfig(null, null, null, null, null, null, linker, Map.of());
    KernelBuildRequest request = new KernelBuildRequest(project, project.resolve("target/kernel"), copy,
        List.of(new SourceSet(SourceSet.HOST, project.resolve("host"), List.of(), List.of()),
            new SourceSet("kernels", project.resolve("kernels"), List.of(), List.of())),
        List.of(), List.of("kernels"), options, tools, List.of(copy + "_*"), List.of(), 2, 400, null, 0, null,
        true, List.of(), Path.of("/"), List.of());
    RecordingLog log = new RecordingLog();
    BuildSummary summary = new KernelBuild(log, System.getenv()).run(request);
    assertEquals(linker, summary.linker(), log.text());
    assertTrue(log.text().contains("(linked with " + linker + ")"), log.text());
    return summary.library();
  }
}
