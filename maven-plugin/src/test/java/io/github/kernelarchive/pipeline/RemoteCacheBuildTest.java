package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.kernelarchive.cache.EntryKind;
import io.github.kernelarchive.cache.LocalCache;
import io.github.kernelarchive.cache.NginxServer;
import io.github.kernelarchive.cache.RemoteCache;
import io.github.kernelarchive.pipeline.SharedCacheProject.Runner;
import io.github.kernelarchive.scan.Language;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two CI runners sharing only a real nginx WebDAV server on 127.0.0.1: each has its own checkout
 * (in another directory) and an empty local cache, as fresh CI machines do.
 */
class RemoteCacheBuildTest {
  private static final String USER = "ci";
  private static final String PASSWORD = "s3cret-pa55";

  @TempDir Path dir;
  private NginxServer nginx;
  private Path tools;
  private final RecordingLog log = new RecordingLog();

  @BeforeEach
  void startServer() throws Exception {
    if (NginxServer.executable() == null) {
      System.out.println("SKIPPED: nginx is not installed (" + Installed.howToInstall("nginx") + "); remote cache tests"
          + " skipped");
    }
    assumeTrue(NginxServer.executable() != null, "nginx is not installed");
    nginx = new NginxServer(dir.resolve("nginx"), USER, PASSWORD);
    tools = dir.resolve("tools");
    SharedCacheProject.writeWrappers(tools);
  }

  @AfterEach
  void stopServer() throws Exception {
    if (nginx != null) {
      nginx.close();
    }
  }

  private static String basic(String user, String password) {
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  private BuildSummary build(Runner runner, RemoteCache.Settings remote, int batchSize, boolean cuda) throws Exception {
    log.clear();
    runner.resetCounts();
    return new KernelBuild(log, System.getenv()).run(SharedCacheProject.request(runner, tools, remote, batchSize, cuda));
  }

  private RemoteCache.Settings pushing() {
    return SharedCacheProject.remote(nginx.url(), basic(USER, PASSWORD), true);
  }

  private static byte[] archiveOf(Runner runner) throws Exception {
    return Files.readAllBytes(runner.project().resolve("target/kernel/libk.a"));
  }

  /** Loads the library in a fresh process and returns what {@code ka_answer()} says. */
  private int answer(Runner runner) throws Exception {
    Path loader = dir.resolve("loader");
    if (!Files.exists(loader)) {
      Path source = Files.writeString(dir.resolve("loader.c"), String.join("\n",
          "#include <dlfcn.h>", "#include <stdio.h>",
          "int main(int argc, char** argv) {",
          "  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);",
          "  if (!lib) { fprintf(stderr, \"%s\\n\", dlerror()); return 2; }",
          "  int (*answer)(void) = (int (*)(void)) dlsym(lib, \"ka_answer\");",
          "  if (!answer) { fprintf(stderr, \"no ka_answer\\n\"); return 3; }",
          "  printf(\"%d\\n\", answer());",
          "  return 0;",
          "}", ""));
      Commands.run(List.of("cc", "-o", loader.toString(), source.toString(), "-ldl"), dir);
    }
    return Integer.parseInt(Commands.run(List.of(loader.toString(),
        runner.project().resolve("target/kernel/libshared.so").toString()), dir).strip());
  }

  @Test
  void aCleanBuildOnAnotherRunnerRunsNoCompilerAndNoAr() throws Exception {
    boolean cuda = hasNvcc();
    Runner a = SharedCacheProject.runner(dir, "runner-a");
    Runner b = SharedCacheProject.runner(dir, "runner-b");
    SharedCacheProject.generate(a.project(), 300, cuda);
    SharedCacheProject.generate(b.project(), 300, cuda);

    BuildSummary first = build(a, pushing(), 50, cuda);
    assertEquals(300 + 2 + (cuda ? 1 : 0), first.compiled());
    assertTrue(first.cache().uploaded() > 300, "objects, batches and the archive are pushed: " + first.cache());
    assertEquals(0, first.cache().remoteFailures(), log.text());
    assertTrue(nginx.count("PUT") > 300, "the server saw the uploads");
    assertEquals(SharedCacheProject.expectedAnswer(300, cuda), answer(a));

    BuildSummary clean = build(b, pushing(), 50, cuda);
    assertEquals(List.of(), b.compilerCalls(), "runner B ran no compiler:\n" + log.text());
    assertEquals(List.of(), b.archiverCalls(), "runner B ran no ar:\n" + log.text());
    assertEquals(0, clean.compiled());
    assertEquals(1, clean.archivesFromCache());
    assertEquals(2, clean.objectsFromCache(), "the host objects come from object entries");
    assertTrue(clean.cache().remoteHits() >= 3, clean.cache().toString());
    assertArrayEquals(archiveOf(a), archiveOf(b), "runner B's archive is byte-identical to runner A's");
    assertEquals(SharedCacheProject.expectedAnswer(300, cuda), answer(b), "runner B's library loads and answers");
    assertTrue(log.lines().stream().anyMatch(l -> l.matches("INFO   cache .* remote hits .*")), log.text());
    assertFalse(log.text().contains(PASSWORD), "the password never reaches the log");
  }

  @Test
  void anEditOnlyOneRunnerHasCompilesThatSourceAndRunsArForItsBatchOnly() throws Exception {
    Runner a = SharedCacheProject.runner(dir, "runner-a");
    Runner b = SharedCacheProject.runner(dir, "runner-b");
    SharedCacheProject.generate(a.project(), 300, false);
    SharedCacheProject.generate(b.project(), 300, false);
    build(a, pushing(), 50, false);

    // Runner B's branch changes one kernel: only that source compiles, only its batch (3 of 6) runs ar.
    Path edited = Path.of("kernels/d2/k137.c");
    String text = Files.readString(b.project().resolve(edited)).replace("GROUP + 137", "GROUP + 1370");
    Files.writeString(b.project().resolve(edited), text);
    BuildSummary branch = build(b, pushing(), 50, false);
    assertEquals(1, branch.compiled(), log.text());
    assertEquals(2 + 299, branch.objectsFromCache());
    assertEquals(1, b.compilerCalls().size(), b.compilerCalls().toString());
    assertTrue(b.compilerCalls().get(0).contains("k137.c"), b.compilerCalls().toString());
    assertEquals(1, b.archiverCalls().size(), "ar ran for the edited source's batch only: " + b.archiverCalls());
    assertEquals(1, branch.batchesRun());

    // The same edit on runner A (incremental there) gives the same bytes as runner B's cached assembly.
    Files.writeString(a.project().resolve(edited), text);
    build(a, pushing(), 50, false);
    assertArrayEquals(archiveOf(a), archiveOf(b));
  }

  @Test
  void aReadOnlyBuildSendsNoPutAndAWrongPasswordCostsAWarning() throws Exception {
    Runner a = SharedCacheProject.runner(dir, "runner-a");
    SharedCacheProject.generate(a.project(), 12, false);
    BuildSummary readOnly = build(a, SharedCacheProject.remote(nginx.url(), basic(USER, PASSWORD), false), 400, false);
    assertEquals(0, nginx.count("PUT"), "push=false: no PUT in the server's access log");
    assertTrue(nginx.count("GET") > 0, "but it did look");
    assertEquals(0, readOnly.cache().uploaded());

    Runner b = SharedCacheProject.runner(dir, "runner-b");
    SharedCacheProject.generate(b.project(), 12, false);
    BuildSummary denied = build(b, SharedCacheProject.remote(nginx.url(), basic(USER, "wrong"), true), 400, false);
    assertEquals(12 + 2, denied.compiled(), "the build went on locally");
    assertTrue(log.lines().stream().anyMatch(l -> l.startsWith("WARN Remote cache " + nginx.url())
        && l.contains("HTTP 401 Unauthorized: check the credentials of the test's credentials")), log.text());
    assertTrue(log.lines().stream().anyMatch(l -> l.contains("switched off for the rest of this build")), log.text());
    assertEquals(SharedCacheProject.expectedAnswer(12, false), answer(b));
    assertEquals(0, nginx.count("PUT"));
    assertFalse(log.text().contains("wrong"), log.text());
    assertFalse(new LocalCache(b.localCache(), Long.MAX_VALUE).entries(EntryKind.ARCHIVE).isEmpty(),
        "the local tier still works");
  }

  private static boolean hasNvcc() throws Exception {
    try {
      Installed.assumeCompiler(Language.CUDA);
      return true;
    } catch (org.opentest4j.TestAbortedException e) {
      System.out.println("(the shared-cache test runs without a CUDA source)");
      return false;
    }
  }
}
