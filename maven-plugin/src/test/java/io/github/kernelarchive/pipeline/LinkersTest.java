package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * RTLD_GLOBAL into one process in both orders, each answer with their own kernels; and two builds
 * of one library (same name, same exports), whose exported functions call each other and are
 * called from the archive, each answer with their own version. A linker that is not installed is
 * skipped with a printed reason.
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
      "  if (!a || !b) { fprintf(stderr, \"%s\\n\", dlerror()); return 1; }",
      "  printf(\"%s=%d %s=%d\\n\", argv[2], a(), argv[4], b());",
      "  return 0;",
      "}", "");

  /** kv's API: {@code kv_report} calls the exported {@code kv_version}, and so does the archive's kernel. */
  private static final String KV_API_C = "int kv_kernel(void);\nint kv_version(void) { return VARIANT; }\n"
      + "int kv_report(void) { return kv_version() * 100 + kv_kernel(); }\n";
  private static final String KV_KERNEL_C = "int kv_version(void);\nint kv_kernel(void) { return kv_version() * 10; }\n";

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"bfd", "gold", "lld", "mold"})
  void eachCopyKeepsItsOwnKernels(String linker) throws Exception {
    Installed.assumeOnPath("ld." + linker, "the " + linker + " link");

    Path a = library("a", "a", 1, linker, Map.of("answer.c", KERNEL_C, "statics.cpp", STATICS_CPP), API_C);
    Path b = library("b", "b", 2, linker, Map.of("answer.c", KERNEL_C, "statics.cpp", STATICS_CPP), API_C);
    assertEquals("a_answer=110 b_answer=220", loadBoth(a, "a_answer", b, "b_answer"));
    assertEquals("b_answer=220 a_answer=110", loadBoth(b, "b_answer", a, "a_answer"));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"bfd", "gold", "lld", "mold"})
  void twoVersionsOfOneLibraryEachCallTheirOwnApi(String linker) throws Exception {
    Installed.assumeOnPath("ld." + linker, "the " + linker + " link");

    Path v1 = library("v1", "kv", 1, linker, Map.of("kernel.c", KV_KERNEL_C), KV_API_C);
    Path v2 = library("v2", "kv", 2, linker, Map.of("kernel.c", KV_KERNEL_C), KV_API_C);
    assertEquals("kv_report=110 kv_report=220", loadBoth(v1, "kv_report", v2, "kv_report"));
    assertEquals("kv_report=220 kv_report=110", loadBoth(v2, "kv_report", v1, "kv_report"));
    String audit = Files.readString(dir.resolve("v2/target/kernel/audit.txt"));
    assertTrue(audit.contains("exports 2\n  kv_report@@KV\n  kv_version@@KV\n"), audit);
  }

  private String loadBoth(Path first, String firstSymbol, Path second, String secondSymbol) throws Exception {
    Path loader = dir.resolve("load-both");
    if (!Files.exists(loader)) {
      Commands.run(List.of("cc", "-o", loader.toString(), Files.writeString(dir.resolve("load.c"), LOADER).toString(),
          "-ldl"), dir);
    }
    return Commands.run(List.of(loader.toString(), first.toString(), firstSymbol, second.toString(), secondSymbol),
        dir).strip();
  }

  /** {@code lib<name>.so} in {@code dir/<folder>}: {@code kernels} in its archive, {@code api} its host source. */
  private Path library(String folder, String name, int variant, String linker, Map<String, String> kernels, String api)
      throws Exception {
    Path project = dir.resolve(folder);
    Files.createDirectories(project.resolve("kernels"));
    Files.createDirectories(project.resolve("host"));
    for (Map.Entry<String, String> kernel : kernels.entrySet()) {
      Files.writeString(project.resolve("kernels").resolve(kernel.getKey()), kernel.getValue());
    }
    Files.writeString(project.resolve("host/api.c"), api);
    KernelBuildRequest request = KernelBuildRequest.builder(project, name).host(project.resolve("host"))
        .archive("kernels", project.resolve("kernels")).defines("VARIANT=" + variant, "API_NAME=" + name + "_answer")
        .cFlags("-O1").cxxFlags("-O1").linker(linker).jobs(2).batchSize(400).exports(name + "_*").build();
    RecordingLog log = new RecordingLog();
    BuildSummary summary = new KernelBuild(log, System.getenv()).run(request);
    assertEquals(linker, summary.linker(), log.text());
    assertTrue(log.text().contains("(linked with " + linker + ")"), log.text());
    return summary.library();
  }
}
