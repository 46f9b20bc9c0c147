package io.github.kernelarchive.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Extraction into a folder of this user's, in this JVM: leftovers, links, damaged jars, index errors. */
class ExtractionTest {
  private static final byte[] CONTENT = "a library's bytes".getBytes(StandardCharsets.UTF_8);

  /** An index of one file, {@code libx.so}, whose SHA-256 is that of {@code indexed}. */
  private static NativeIndex index(byte[] indexed) throws IOException {
    return NativeIndex.parse(KernelJar.indexText(List.of("format=1", "library=x", "platform=linux-test",
        "load=libx.so", "sha256.libx.so=" + Hashes.sha256(new ByteArrayInputStream(indexed))))
        .getBytes(StandardCharsets.ISO_8859_1), "test.index");
  }

  private static Extraction.Source serving(byte[] bytes) {
    return new Extraction.Source() {
      @Override
      public InputStream open(String file) {
        return new ByteArrayInputStream(bytes);
      }

      @Override
      public String where(String file) {
        return "jar:file:/x.jar!/" + file;
      }
    };
  }

  private static Extraction.Result extract(Path cache, byte[] served, Path tmp) throws IOException {
    return Extraction.extract(index(CONTENT), serving(served), List.of(new Extraction.Root(cache,
        List.of("kernel-archive", "native"))), tmp);
  }

  private static List<String> names(Path folder) throws IOException {
    try (Stream<Path> list = Files.list(folder)) {
      return list.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void leftoversOfAKilledJvmAreRemoved(@TempDir Path dir) throws Exception {
    Path root = Files.createDirectories(dir.resolve("kernel-archive/native"));
    String sha = index(CONTENT).sha256();
    Files.createDirectories(root.resolve(sha + ".tmp-999999/deeper"));
    Files.write(root.resolve(sha + ".tmp-999999/deeper/libx.so"), new byte[1 << 20]);
    Files.createDirectories(root.resolve("0123.tmp-42"));
    Files.writeString(root.resolve(sha + ".lock"), "");
    Extraction.Result result = extract(dir, CONTENT, dir);
    assertEquals(root.resolve(sha), result.folder());
    assertEquals(List.of(".lock", sha), names(root), "temporaries and per-content locks removed");
  }

  @Test
  void aFileWhereTheFolderShouldBeIsReplacedInTheCache(@TempDir Path dir) throws Exception {
    Path root = Files.createDirectories(dir.resolve("kernel-archive/native"));
    String sha = index(CONTENT).sha256();
    Files.writeString(root.resolve(sha), "in the way");
    Extraction.Result result = extract(dir, CONTENT, dir);
    assertEquals(root.resolve(sha), result.folder(), "the cache, not the temp folder");
    assertFalse(result.reused());
    assertTrue(result.passedOver().isEmpty(), result.passedOver().toString());
    assertEquals(List.of("libx.so"), names(result.folder()));
  }

  @Test
  void linksInTheCacheAreRemovedNeverFollowed(@TempDir Path dir) throws Exception {
    Path root = Files.createDirectories(dir.resolve("kernel-archive/native"));
    String sha = index(CONTENT).sha256();
    // The folder itself a link to one holding the right file; the content is right, the link is not.
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Files.write(elsewhere.resolve("libx.so"), CONTENT);
    Files.createSymbolicLink(root.resolve(sha), elsewhere);
    Extraction.Result result = extract(dir, CONTENT, dir);
    assertFalse(result.reused(), "a link is not a folder of the loader's");
    assertFalse(Files.isSymbolicLink(result.folder()));
    assertEquals(List.of("libx.so"), names(elsewhere), "the link's target untouched");
    // An extra entry (a link to a folder of the user's) makes it extracted again; the delete takes the link only.
    Path data = Files.createDirectories(dir.resolve("data"));
    Files.writeString(data.resolve("keep"), "keep");
    Files.createSymbolicLink(result.folder().resolve("sub"), data);
    Extraction.Result again = extract(dir, CONTENT, dir);
    assertFalse(again.reused(), "a folder with an unlisted entry is never reused");
    assertEquals(List.of("libx.so"), names(again.folder()));
    assertEquals(List.of("keep"), names(data));
    assertTrue(extract(dir, CONTENT, dir).reused(), "exactly the indexed files: reused");
  }

  @Test
  void aFolderOthersMayWriteIsNamedWithOwnerAndModeAndPassedOver(@TempDir Path dir) throws Exception {
    Path root = Files.createDirectories(dir.resolve("kernel-archive/native"));
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path tmp = Files.createDirectories(dir.resolve("tmp"));
    Extraction.Result result = extract(dir, CONTENT, tmp);
    assertTrue(result.folder().startsWith(tmp), result.folder().toString());
    assertEquals(List.of(root + " is owned by " + PrivateFolders.owner(PrivateFolders.UID)
        + " with mode 0777; the loader uses only folders owned by " + PrivateFolders.owner(PrivateFolders.UID)
        + " that no one else can write"), result.passedOver());
    assertEquals(List.of(), names(root), "nothing written into it");
  }

  @Test
  void aDamagedJarIsCalledDamagedWithNoAdviceThatCannotHelp(@TempDir Path dir) throws Exception {
    UnsatisfiedLinkError error = assertThrows(UnsatisfiedLinkError.class,
        () -> extract(dir, "other bytes".getBytes(StandardCharsets.UTF_8), dir));
    assertTrue(error.getMessage().startsWith("x (linux-test): jar:file:/x.jar!/libx.so has SHA-256 "),
        error.getMessage());
    assertTrue(error.getMessage().endsWith(": the jar is damaged. Build or download it again."), error.getMessage());
    assertFalse(error.getMessage().contains("kernel.native"), error.getMessage());
    assertInstanceOf(Extraction.DamagedJarException.class, error.getCause());
    assertEquals(List.of(".lock"), names(dir.resolve("kernel-archive/native")), "no folder, no temporary");
  }

  @Test
  void namesAnIndexCannotList() {
    IOException twice = assertThrows(IOException.class, () -> NativeIndex.parse(KernelJar.indexText(List.of(
        "format=1", "library=x", "platform=p", "load=liba.so liba.so", "sha256.liba.so=0")).getBytes(
        StandardCharsets.ISO_8859_1), "x.index"));
    assertEquals("x.index lists liba.so twice to load", twice.getMessage());
    for (String name : List.of("lib\\u0000a.so", "../liba.so", ".hidden", "a\\\\b.so", "lib\\u001ba.so")) {
      IOException bad = assertThrows(IOException.class, () -> NativeIndex.parse(KernelJar.indexText(List.of(
          "format=1", "library=x", "platform=p", "load=" + name, "sha256." + name + "=0")).getBytes(
          StandardCharsets.ISO_8859_1), "x.index"), name);
      assertTrue(bad.getMessage().startsWith("x.index lists '") && bad.getMessage().endsWith("' to load, which is no"
          + " plain file name (no '/', no leading '.', printable characters only)"), bad.getMessage());
    }
  }

  @Test
  void anIndexErrorReachesTheCallerAsUnsatisfiedLinkErrorWithItsCause(@TempDir Path dir) throws Exception {
    Path jar = dir.resolve("bad.jar");
    try (java.util.jar.JarOutputStream out = new java.util.jar.JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new java.util.jar.JarEntry("META-INF/native/" + KernelJar.PLATFORM + "/bad.index"));
      out.write(KernelJar.indexText(List.of("format=1", "library=bad", "platform=" + KernelJar.PLATFORM,
          "load=lib\\u0000bad.so", "sha256.lib\\u0000bad.so=0")).getBytes(StandardCharsets.ISO_8859_1));
    }
    try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
      UnsatisfiedLinkError error = assertThrows(UnsatisfiedLinkError.class,
          () -> KernelLibrary.load("bad", loader, file -> { }));
      assertTrue(error.getMessage().startsWith("The kernel jar's index of bad cannot be used: jar:file:"),
          error.getMessage());
      assertTrue(error.getMessage().contains("lists 'lib?bad.so' to load"), error.getMessage());
      assertInstanceOf(IOException.class, error.getCause());
    }
  }

  /**
   * Two copies of the runtime in one JVM (two class loaders, each with the runtime and a kernel
   * jar) share the cache's lock file; the JVM refuses a second lock on a file it holds
   * (OverlappingFileLockException), so the copies must wait for each other instead. This test's own
   * copy holds the lock while both start.
   */
  @Test
  void twoRuntimesInOneJvmWaitForEachOther(@TempDir Path dir) throws Exception {
    boolean cc = java.util.Arrays.stream(System.getenv().getOrDefault("PATH", "").split(":"))
        .anyMatch(d -> Files.isExecutable(Path.of(d, "cc")));
    if (!cc) {
      System.out.println("SKIPPED: ExtractionTest's two runtimes build their JNI libraries with cc, which is not"
          + " installed (apt-get install build-essential)");
    }
    org.junit.jupiter.api.Assumptions.assumeTrue(cc, "no cc");
    Path jar1 = KernelJar.build(dir, 11, KernelJar.PLATFORM);
    Path jar2 = KernelJar.build(dir, 12, KernelJar.PLATFORM);
    Path cache = dir.resolve("cache");
    Path root = PrivateFolders.prepare(dir, List.of("cache"));
    String before = System.getProperty(KernelLibrary.CACHE_PROPERTY);
    System.setProperty(KernelLibrary.CACHE_PROPERTY, cache.toString());
    List<URLClassLoader> loaders = new ArrayList<>();
    try (FileChannel channel = FileChannel.open(root.resolve(".lock"), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE)) {
      Map<Integer, CompletableFuture<Object>> answers = new LinkedHashMap<>();
      try (FileLock held = channel.lock()) {
        for (Path jar : List.of(jar1, jar2)) {
          URLClassLoader loader = new URLClassLoader(new URL[] {KernelJar.runtimeClasses().toUri().toURL(),
              jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
          loaders.add(loader);
          answers.put(loaders.size(), CompletableFuture.supplyAsync(() -> {
            try {
              return Class.forName("t.Ver", true, loader).getMethod("version").invoke(null);
            } catch (ReflectiveOperationException | LinkageError e) {
              return e;
            }
          }));
        }
        Thread.sleep(300); // both reach the lock while this copy holds it
        assertFalse(answers.values().stream().anyMatch(CompletableFuture::isDone), "both wait: " + answers);
      }
      assertEquals(11, answers.get(1).get(60, TimeUnit.SECONDS));
      assertEquals(12, answers.get(2).get(60, TimeUnit.SECONDS));
    } finally {
      for (URLClassLoader loader : loaders) {
        loader.close();
      }
      if (before == null) {
        System.clearProperty(KernelLibrary.CACHE_PROPERTY);
      } else {
        System.setProperty(KernelLibrary.CACHE_PROPERTY, before);
      }
    }
  }
}
