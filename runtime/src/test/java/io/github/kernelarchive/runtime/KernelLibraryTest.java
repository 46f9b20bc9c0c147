package io.github.kernelarchive.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The loader with real JVMs, a real JNI library built by gcc, and real files and mounts. */
class KernelLibraryTest {
  @TempDir
  static Path shared;
  static Path jar;

  @BeforeAll
  static void buildJar() throws Exception {
    boolean linux = PLATFORM_IS_LINUX;
    if (!linux) {
      System.out.println("SKIPPED: KernelLibraryTest builds and loads Linux shared libraries");
    }
    assumeTrue(linux);
    boolean cc = java.util.Arrays.stream(System.getenv().getOrDefault("PATH", "").split(":"))
        .anyMatch(d -> Files.isExecutable(Path.of(d, "cc")));
    if (!cc) {
      System.out.println("SKIPPED: KernelLibraryTest builds its JNI library with cc, which is not installed"
          + " (apt-get install build-essential)");
    }
    assumeTrue(cc, "no cc");
    jar = KernelJar.build(shared, 1, KernelJar.PLATFORM);
  }

  static final boolean PLATFORM_IS_LINUX = KernelJar.PLATFORM.startsWith("linux-");

  @Test
  void eightJvmsAtOnceExtractOnceAndAllAnswer(@TempDir Path dir) throws Exception {
    List<Process> jvms = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      jvms.add(KernelJar.jvm(jar, List.of(), Map.of("XDG_CACHE_HOME", dir.toString()), List.of())
          .redirectErrorStream(true).start());
    }
    int extracted = 0;
    int reused = 0;
    for (Process jvm : jvms) {
      KernelJar.Outcome outcome = KernelJar.finish(jvm);
      assertEquals(0, outcome.status(), outcome.output());
      assertTrue(outcome.output().contains("version=1"), outcome.output());
      extracted += outcome.output().contains("kernel-archive: extracted ver into ") ? 1 : 0;
      reused += outcome.output().contains("kernel-archive: reused ver into ") ? 1 : 0;
    }
    assertEquals(1, extracted, "one extraction");
    assertEquals(7, reused);
    Path root = dir.resolve("kernel-archive/native");
    try (Stream<Path> entries = Files.list(root)) {
      List<String> names = entries.map(p -> p.getFileName().toString()).sorted().toList();
      assertEquals(2, names.size(), "the folder and its lock, no temporary left: " + names);
    }
  }

  @Test
  void anUnwritableCacheFallsBackToTheTempFolder(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("a-file"), "not a folder");
    Path tmp = Files.createDirectories(dir.resolve("tmp"));
    KernelJar.Outcome outcome = KernelJar.run(KernelJar.jvm(jar, List.of("-Djava.io.tmpdir=" + tmp),
        Map.of("XDG_CACHE_HOME", file.resolve("cache").toString()), List.of()));
    assertEquals(0, outcome.status(), outcome.output());
    assertTrue(outcome.output().contains("version=1"), outcome.output());
    assertTrue(outcome.output().contains("extracted ver into " + tmp.resolve("kernel-archive-"
        + System.getProperty("user.name") + "/native")), outcome.output());
    assertTrue(outcome.output().contains("passed over: " + file.resolve("cache/kernel-archive/native")
        + ": cannot be written"), outcome.output());
  }

  @Test
  void aNoexecMountIsPassedOverOrNamedWithTheProperty(@TempDir Path dir) throws Exception {
    List<String> unshare = privateMountNamespace();
    Path mount = Files.createDirectories(dir.resolve("noexec"));
    Path tmp = Files.createDirectories(dir.resolve("tmp"));
    // The cache on a noexec tmpfs, the temp folder not: loaded from the temp folder.
    KernelJar.Outcome fallback = underNoexec(unshare, mount, List.of("-Djava.io.tmpdir=" + tmp),
        mount.resolve("cache"));
    assertEquals(0, fallback.status(), fallback.output());
    assertTrue(fallback.output().contains("version=1"), fallback.output());
    assertTrue(fallback.output().contains("on the noexec mount " + mount + " (tmpfs"), fallback.output());
    // Both on it: the error names the mount and the property that moves the folder.
    KernelJar.Outcome refused = underNoexec(unshare, mount, List.of("-Djava.io.tmpdir=" + mount.resolve("tmp")),
        mount.resolve("cache"));
    assertTrue(refused.status() != 0, refused.output());
    assertTrue(refused.output().contains("on the noexec mount " + mount + " (tmpfs"), refused.output());
    assertTrue(refused.output().contains("-Dkernel.native.cache=<a folder of your own, on a mount without noexec>"),
        refused.output());
  }

  private static KernelJar.Outcome underNoexec(List<String> unshare, Path mount, List<String> properties, Path cache)
      throws Exception {
    // sh mounts, then execs the JVM in the new namespace: "$@" is the java command.
    List<String> wrapper = new ArrayList<>(unshare);
    wrapper.addAll(List.of("sh", "-c", "mount -t tmpfs -o noexec,size=64m kernel-archive-test \"$0\" && exec \"$@\"",
        mount.toString()));
    return KernelJar.run(KernelJar.jvm(jar, properties, Map.of("XDG_CACHE_HOME", cache.toString()), wrapper));
  }

  /** {@code unshare -m} as root, else in a user namespace; skipped, saying why, where neither works. */
  private static List<String> privateMountNamespace() throws Exception {
    for (List<String> candidate : List.of(List.of("unshare", "-m", "--propagation", "private"),
        List.of("unshare", "-U", "-r", "-m", "--propagation", "private"))) {
      List<String> probe = new ArrayList<>(candidate);
      probe.addAll(List.of("sh", "-c", "mount -t tmpfs none /mnt"));
      try {
        if (KernelJar.run(new ProcessBuilder(probe)).status() == 0) {
          return candidate;
        }
      } catch (java.io.IOException e) {
        break; // no unshare (util-linux)
      }
    }
    System.out.println("SKIPPED: KernelLibraryTest's noexec case: neither 'unshare -m' nor a user namespace may mount"
        + " a tmpfs here (util-linux, and root or unprivileged user namespaces)");
    assumeTrue(false, "no private mount namespace");
    return List.of();
  }

  @Test
  void aCorruptedCachedFileIsExtractedAgain(@TempDir Path dir) throws Exception {
    Map<String, String> environment = Map.of("XDG_CACHE_HOME", dir.toString());
    KernelJar.Outcome first = KernelJar.run(KernelJar.jvm(jar, List.of(), environment, List.of()));
    Matcher folder = Pattern.compile("extracted ver into (\\S+)").matcher(first.output());
    assertTrue(folder.find(), first.output());
    Path library = Path.of(folder.group(1), "libver.so");
    byte[] bytes = Files.readAllBytes(library);
    bytes[bytes.length / 2] ^= 0x5a;
    KernelJar.overwrite(library, bytes);
    KernelJar.Outcome second = KernelJar.run(KernelJar.jvm(jar, List.of(), environment, List.of()));
    assertEquals(0, second.status(), second.output());
    assertTrue(second.output().contains("extracted ver into " + folder.group(1)), second.output());
    assertTrue(second.output().contains("version=1"), second.output());
    assertFalse(java.util.Arrays.equals(bytes, Files.readAllBytes(library)), "the file was written again");
  }

  @Test
  void aFolderExtractedInAdvanceOrAPathIsUsedAsItIs(@TempDir Path dir) throws Exception {
    Path prepared = Files.createDirectories(dir.resolve("prepared"));
    Files.copy(KernelJar.library(Files.createDirectories(dir.resolve("v3")), 3), prepared.resolve("libver.so"));
    Path cache = dir.resolve("cache");
    KernelJar.Outcome outcome = KernelJar.run(KernelJar.jvm(jar, List.of("-Dkernel.native.dir=" + prepared),
        Map.of("XDG_CACHE_HOME", cache.toString()), List.of()));
    // Its own build (version 3), not the jar's, and nothing extracted.
    assertTrue(outcome.output().contains("version=3"), outcome.output());
    assertFalse(Files.exists(cache.resolve("kernel-archive")), "no extraction");
    KernelJar.Outcome byPath = KernelJar.run(KernelJar.jvm(jar,
        List.of("-Dkernel.native.ver.path=" + prepared.resolve("libver.so")), Map.of("XDG_CACHE_HOME",
            cache.toString()), List.of()));
    assertTrue(byPath.output().contains("version=3"), byPath.output());
    KernelJar.Outcome empty = KernelJar.run(KernelJar.jvm(jar, List.of("-Dkernel.native.dir=" + dir.resolve("v3/..")
        + "/nothing"), Map.of("XDG_CACHE_HOME", cache.toString()), List.of()));
    assertTrue(empty.output().contains("-Dkernel.native.dir=") && empty.output().contains("holds no libver.so"),
        empty.output());
  }

  @Test
  void aJarWithoutThisPlatformListsWhatItHolds(@TempDir Path dir) throws Exception {
    String other = KernelJar.PLATFORM.endsWith("x86_64") ? "linux-aarch64" : "linux-x86_64";
    Path foreign = KernelJar.build(dir, 1, other);
    KernelJar.Outcome outcome = KernelJar.run(KernelJar.jvm(foreign, List.of(), Map.of("XDG_CACHE_HOME",
        dir.toString()), List.of()));
    assertTrue(outcome.status() != 0, outcome.output());
    assertTrue(outcome.output().contains("The class path holds ver for " + other + ", not for this platform, "
        + KernelJar.PLATFORM + ": add the jar with classifier " + KernelJar.PLATFORM), outcome.output());
  }

  @Test
  void twoVersionsInTwoClassLoadersEachAnswerTheirOwn(@TempDir Path dir) throws Exception {
    Path second = KernelJar.build(dir, 2, KernelJar.PLATFORM);
    String cache = dir.resolve("cache").toString();
    String before = System.getProperty(KernelLibrary.CACHE_PROPERTY);
    System.setProperty(KernelLibrary.CACHE_PROPERTY, cache);
    try (URLClassLoader one = new URLClassLoader(new URL[] {jar.toUri().toURL()}, KernelLibrary.class.getClassLoader());
        URLClassLoader two = new URLClassLoader(new URL[] {second.toUri().toURL()},
            KernelLibrary.class.getClassLoader())) {
      Class<?> first = Class.forName("t.Ver", true, one);
      Class<?> other = Class.forName("t.Ver", true, two);
      assertEquals(1, first.getMethod("version").invoke(null));
      assertEquals(2, other.getMethod("version").invoke(null));
      assertEquals(1, first.getMethod("version").invoke(null), "the first still answers with its own");
    } finally {
      if (before == null) {
        System.clearProperty(KernelLibrary.CACHE_PROPERTY);
      } else {
        System.setProperty(KernelLibrary.CACHE_PROPERTY, before);
      }
    }
  }

  @Test
  void aLibraryForANewerGlibcSaysWhichItNeedsAndWhichThisSystemHas(@TempDir Path dir) throws Exception {
    // A stand-in libc.so.6 that defines GLIBC_2.99 to link against; the real one lacks it.
    Path stub = Files.createDirectories(dir.resolve("stub"));
    Files.writeString(stub.resolve("future.s"), "\t.text\n\t.globl f\n\t.type f, @function\nf:\n\tret\n"
        + "\t.symver f, future_call@GLIBC_2.99\n\t.section .note.GNU-stack,\"\",@progbits\n");
    Files.writeString(stub.resolve("future.map"), "GLIBC_2.99 { };\n");
    KernelJar.run(List.of("cc", "-shared", "-nostdlib", "-Wl,-soname,libc.so.6", "-Wl,--version-script="
        + stub.resolve("future.map"), stub.resolve("future.s").toString(), "-o", stub.resolve("libc.so.6").toString()),
        Map.of());
    Files.writeString(dir.resolve("needs.c"), "extern int future_call(void);\n"
        + "__asm__(\".symver future_call, future_call@GLIBC_2.99\");\nint call(void) { return future_call(); }\n");
    Path library = dir.resolve("libneeds.so");
    KernelJar.run(List.of("cc", "-shared", "-fPIC", dir.resolve("needs.c").toString(), stub.resolve("libc.so.6").toString(),
        "-o", library.toString()), Map.of());
    NativeIndex index = NativeIndex.parse(KernelJar.indexText(List.of("format=1", "library=needs",
        "platform=" + KernelJar.PLATFORM, "glibc=2.99", "load=libneeds.so", "sha256.libneeds.so=0"))
        .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), "test");
    UnsatisfiedLinkError error = null;
    try {
      System.load(library.toString());
    } catch (UnsatisfiedLinkError e) {
      error = LoadErrors.explain(e, library, index);
    }
    assertTrue(error != null, "the real loader refused it");
    String glibc = LoadErrors.systemGlibc();
    assertTrue(glibc.startsWith("glibc 2."), glibc);
    assertTrue(error.getMessage().contains("libneeds.so needs glibc 2.99 (GLIBC_2.99); this system has " + glibc
        + " and the jar's index gives its floor as glibc 2.99. Use a build of needs linked for this system or older"
        + " (the plugin's kernel.glibc, e.g. 2.17)"), error.getMessage());
  }
}
