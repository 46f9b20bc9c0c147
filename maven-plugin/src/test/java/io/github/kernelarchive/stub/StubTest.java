package io.github.kernelarchive.stub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.deps.NativeDependency;
import io.github.kernelarchive.pipeline.Commands;
import io.github.kernelarchive.pipeline.KernelBuild;
import io.github.kernelarchive.pipeline.KernelBuildRequest;
import io.github.kernelarchive.pipeline.RecordingLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two fake runtimes with SONAMEs libfakert.so.12 and .13 (same functions, different answers), and
 * a library that reaches them through a generated stub: whichever major is present answers, a copy
 * the process already loaded is reused, nothing present means every call returns missingResult
 * with one line on stderr, 16 threads racing the first call load once.
 */
class StubTest {
  private static final String RUNTIME = String.join("\n",
      "#include <stdio.h>",
      "int fake_version(void) { return VERSION; }",
      "double fake_scale(double x, int n) { return x * n + VERSION; }",
      "long fake_sum(long a, long b, long c, long d, long e, long f, long g, long h)",
      "{ return a + b + c + d + e + f + g + h + VERSION; }",
      "int fake_global = VERSION;",
      "__attribute__((constructor)) static void loaded(void) { fprintf(stderr, \"fakert %d loaded\\n\", VERSION); }", "");
  private static final String API = String.join("\n",
      "int fake_version(void);",
      "double fake_scale(double, int);",
      "long fake_sum(long, long, long, long, long, long, long, long);",
      "int use_version(void) { return fake_version(); }",
      "double use_scale(double x) { return fake_scale(x, 2); }",
      "long use_sum(void) { return fake_sum(1, 2, 3, 4, 5, 6, 7, 8); }", "");
  private static final String PROBE = String.join("\n",
      "#include <dlfcn.h>", "#include <pthread.h>", "#include <stdio.h>", "#include <string.h>",
      "static int (*version)(void);",
      "static int results[16];",
      "static pthread_barrier_t barrier;",
      "static void *racer(void *slot) { pthread_barrier_wait(&barrier); *(int *) slot = version(); return 0; }",
      "int main(int argc, char **argv) {",
      "  if (argc > 2) dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL); /* the process loaded a runtime already */",
      "  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);",
      "  if (!lib) { fprintf(stderr, \"%s\\n\", dlerror()); return 2; }",
      "  version = (int (*)(void)) dlsym(lib, \"use_version\");",
      "  double (*scale)(double) = (double (*)(double)) dlsym(lib, \"use_scale\");",
      "  long (*sum)(void) = (long (*)(void)) dlsym(lib, \"use_sum\");",
      "  pthread_t threads[16];",
      "  pthread_barrier_init(&barrier, 0, 16);",
      "  for (int i = 0; i < 16; i++) pthread_create(&threads[i], 0, racer, &results[i]);",
      "  for (int i = 0; i < 16; i++) pthread_join(threads[i], 0);",
      "  for (int i = 1; i < 16; i++) if (results[i] != results[0]) { printf(\"threads disagree\\n\"); return 3; }",
      "  printf(\"version=%d scale=%g sum=%ld\\n\", results[0], scale(1.5), sum());",
      "  return 0;",
      "}", "");

  @TempDir Path dir;
  private Path rt12;
  private Path rt13;
  private Path probe;

  @BeforeEach
  void runtimes() throws Exception {
    Path source = Files.writeString(dir.resolve("fakert.c"), RUNTIME);
    rt12 = runtime(source, 12);
    rt13 = runtime(source, 13);
    probe = dir.resolve("probe");
    Commands.run(List.of("cc", "-o", probe.toString(), Files.writeString(dir.resolve("probe.c"), PROBE).toString(),
        "-ldl", "-lpthread"), dir);
  }

  private Path runtime(Path source, int major) throws Exception {
    Path folder = Files.createDirectories(dir.resolve("rt" + major));
    Commands.run(List.of("cc", "-shared", "-fPIC", "-DVERSION=" + major, "-Wl,-soname,libfakert.so." + major,
        "-o", folder.resolve("libfakert.so." + major).toString(), source.toString()), dir);
    return folder;
  }

  private Path build(String api, List<String> incompatible) throws Exception {
    Path project = dir.resolve("project");
    Files.createDirectories(project.resolve("src"));
    Files.writeString(project.resolve("src/api.c"), api);
    // Built against the .13 runtime's symbol table; at run time 13, else 12.
    NativeDependency fakert = new NativeDependency("fakert", List.of("fakert"), List.of(), List.of(), false, List.of(),
        List.of(dir), List.of(rt13), new NativeDependency.Stub(List.of("libfakert.so.13", "libfakert.so.12"), -7L,
            incompatible));
    KernelBuildRequest request = KernelBuildRequest.builder(project, "use").host(project.resolve("src")).cFlags("-O1")
        .jobs(2).batchSize(400).exports("use_*").dependencies(fakert).build();
    RecordingLog log = new RecordingLog();
    new KernelBuild(log, System.getenv()).run(request);
    assertTrue(log.text().contains("Stub fakert: 3 functions, loaded on first use from libfakert.so.13 or libfakert.so.12"),
        log.text());
    return project.resolve("target/kernel/libuse.so");
  }

  /** Runs the probe with these runtime folders on LD_LIBRARY_PATH; returns {stdout+stderr}. */
  private String probe(Path library, String preload, Path... folders) throws Exception {
    List<String> argv = preload == null ? List.of(probe.toString(), library.toString())
        : List.of(probe.toString(), library.toString(), preload);
    ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
    builder.environment().put("LD_LIBRARY_PATH", String.join(":", java.util.Arrays.stream(folders).map(Path::toString).toList()));
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, process.waitFor(), output);
    return output;
  }

  @Test
  void whicheverMajorIsPresentAnswersAndNothingPresentReturnsTheMissingResult() throws Exception {
    Path library = build(API, List.of());
    String dynamic = Commands.run(List.of("readelf", "-d", "--dyn-syms", "-W", library.toString()), dir);
    assertFalse(dynamic.contains("libfakert"), "no NEEDED on the runtime:\n" + dynamic);
    assertFalse(dynamic.contains("fake_version"), "the stub's symbols stay private:\n" + dynamic);
    assertEquals("fake_scale\nfake_sum\nfake_version\n",
        Files.readString(library.resolveSibling("stubs-fakert.txt")));

    assertEquals("fakert 12 loaded\nversion=12 scale=15 sum=48\n", probe(library, null, rt12));
    assertEquals("fakert 13 loaded\nversion=13 scale=16 sum=49\n", probe(library, null, rt13));
    assertEquals("fakert 13 loaded\nversion=13 scale=16 sum=49\n", probe(library, null, rt12, rt13),
        "both present: the first SONAME listed wins, loaded once although 16 threads raced");
    String none = probe(library, null);
    assertTrue(none.endsWith("version=-7 scale=-7 sum=-7\n"), "integer and floating-point results alike:\n" + none);
    assertEquals(1, none.lines().filter(l -> l.startsWith("kernel-archive stub: could not load any of"
        + " libfakert.so.13 libfakert.so.12")).count(), "one diagnostic line:\n" + none);
  }

  @Test
  void aCopyTheProcessAlreadyLoadedIsReused() throws Exception {
    Path library = build(API, List.of());
    // .12 loaded by the process first (as PyTorch loads its runtime); .13 is on the path too.
    String output = probe(library, rt12.resolve("libfakert.so.12").toString(), rt12, rt13);
    assertEquals("fakert 12 loaded\nversion=12 scale=15 sum=48\n", output);
  }

  @Test
  void dataSymbolsAndIncompatibleFunctionsFailTheBuildNamingThem() throws Exception {
    BuildFailureException data = assertThrows(BuildFailureException.class,
        () -> build("extern int fake_global;\nint use_global(void) { return fake_global; }\n", List.of()));
    assertTrue(data.getMessage().contains("data symbol(s) fake_global"), data.getMessage());
    BuildFailureException marked = assertThrows(BuildFailureException.class, () -> build(API, List.of("fake_scale")));
    assertTrue(marked.getMessage().contains("calls fake_scale") && marked.getMessage().contains("<incompatible>"),
        marked.getMessage());
  }

  @Test
  void aLoadedRuntimeThatLacksANeededFunctionIsPassedOverForACompleteOne() throws Exception {
    Path library = build(API, List.of());
    // An older .12 without fake_sum is already in the process; the complete .13 on the path serves.
    Path old = Files.createDirectories(dir.resolve("old12"));
    Path source = Files.writeString(dir.resolve("old.c"), RUNTIME.replace("long fake_sum", "static long fake_sum"));
    Commands.run(List.of("cc", "-shared", "-fPIC", "-DVERSION=12", "-Wl,-soname,libfakert.so.12",
        "-o", old.resolve("libfakert.so.12").toString(), source.toString()), dir);
    String output = probe(library, old.resolve("libfakert.so.12").toString(), old, rt13);
    assertEquals("fakert 12 loaded\nfakert 13 loaded\nversion=13 scale=16 sum=49\n", output);
    // Alone, the incomplete runtime is used for what it has; the missing function returns missingResult.
    assertTrue(probe(library, null, old).endsWith("version=12 scale=15 sum=-7\n"));
  }
}
