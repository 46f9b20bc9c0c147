package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.cache.CacheEntry;
import io.github.kernelarchive.cache.ContentManifest;
import io.github.kernelarchive.cache.EntryKind;
import io.github.kernelarchive.cache.FaultServer;
import io.github.kernelarchive.cache.LocalCache;
import io.github.kernelarchive.cache.RemoteCache;
import io.github.kernelarchive.pipeline.SharedCacheProject.Runner;
import io.github.kernelarchive.util.Hashing;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every way a remote cache fails, against a fault server holding runner A's real entries: runner
 * B's clean build succeeds with the same archive, the warning names the cause, and nothing from
 * the bad response is used or kept in B's local cache.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RemoteCacheFaultsTest {
  private static final int SOURCES = 16;

  @TempDir static Path dir;
  private FaultServer server;
  private Path tools;
  private byte[] archiveOfA;

  @BeforeAll
  void runnerAPushes() throws Exception {
    server = new FaultServer();
    tools = dir.resolve("tools");
    SharedCacheProject.writeWrappers(tools);
    Runner a = SharedCacheProject.runner(dir, "runner-a");
    SharedCacheProject.generate(a.project(), SOURCES, false);
    BuildSummary pushed = build(a, server.url(), new RecordingLog());
    assertEquals(0, pushed.cache().remoteFailures());
    assertTrue(server.stored() > SOURCES, "runner A's entries are on the server");
    archiveOfA = Files.readAllBytes(a.project().resolve("target/kernel/libk.a"));
  }

  @AfterAll
  void stop() throws Exception {
    server.close();
  }

  private BuildSummary build(Runner runner, String url, RecordingLog log) throws Exception {
    RemoteCache.Settings remote = SharedCacheProject.remote(url, null, true);
    return new KernelBuild(log, System.getenv()).run(SharedCacheProject.request(runner, tools, remote, 4, false));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "STALL        | no answer for 2 s (kernel.cache.remote.readTimeout)",
      "ERROR_500    | HTTP 500 (server error)",
      "UNAUTHORIZED | HTTP 401 Unauthorized: check the credentials of the test's credentials",
      "FORBIDDEN    | HTTP 403 Forbidden",
      "TRUNCATE     | transfer failed",
      "POISON       | the entry does not verify",
      "REFUSED      | connection refused",
      "UNKNOWN_HOST | unknown host kernel-cache.invalid"})
  void aFaultCostsAWarningNeverTheBuild(String fault, String cause) throws Exception {
    String url = switch (fault) {
      case "REFUSED" -> "http://127.0.0.1:" + closedPort() + "/cache";
      case "UNKNOWN_HOST" -> "http://kernel-cache.invalid:8080/cache";
      default -> {
        server.mode(FaultServer.Mode.valueOf(fault));
        yield server.url();
      }
    };
    Runner b = SharedCacheProject.runner(dir, "runner-b-" + fault.toLowerCase());
    SharedCacheProject.generate(b.project(), SOURCES, false);
    RecordingLog log = new RecordingLog();
    BuildSummary summary;
    try {
      summary = build(b, url, log);
    } finally {
      server.mode(FaultServer.Mode.STORE);
    }

    assertTrue(log.lines().stream().anyMatch(l -> l.startsWith("WARN Remote cache ") && l.contains(cause)),
        "a warning names the cause '" + cause + "':\n" + log.text());
    assertTrue(log.lines().stream().anyMatch(l -> l.contains("switched off for the rest of this build")), log.text());
    assertEquals(0, summary.cache().remoteHits(), "nothing from the bad responses was used");
    assertEquals(SOURCES + 2, summary.compiled(), "built locally instead");
    assertArrayEquals(archiveOfA, Files.readAllBytes(b.project().resolve("target/kernel/libk.a")),
        "the right archive all the same");
    assertOnlyOwnValidEntries(b);
  }

  /** Every entry in B's local cache holds what its manifest says, i.e. what B itself stored. */
  private static void assertOnlyOwnValidEntries(Runner b) throws Exception {
    LocalCache cache = new LocalCache(b.localCache(), Long.MAX_VALUE);
    for (EntryKind kind : new EntryKind[] {EntryKind.OBJECT, EntryKind.BATCH}) {
      for (CacheEntry entry : cache.entries(kind)) {
        assertEquals(ContentManifest.read(entry.manifest()).sha256(), Hashing.ofFile(entry.payload()), entry.toString());
      }
    }
    assertEquals(SOURCES + 2, cache.entries(EntryKind.OBJECT).size(), "one object entry per source, B's own");
    try (var leftovers = Files.list(b.localCache().resolve("v3/tmp"))) {
      assertEquals(0, leftovers.count(), "no staged response left behind");
    }
  }

  private static int closedPort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
