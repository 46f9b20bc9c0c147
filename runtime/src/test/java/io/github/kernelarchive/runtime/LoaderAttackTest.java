package io.github.kernelarchive.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The attacks of a second user on the loader, each with two real users: {@code kaprobe1}, the
 * attacker, prepares the shared temp folder; {@code kaprobe2}, the victim, whose cache cannot be
 * written, loads a kernel jar. The victim's library NEEDs {@code libgomp.so.1} and has
 * {@code RUNPATH $ORIGIN}, and every file the attacker plants runs a constructor that leaves a mark
 * with its user ID: a mark means the attacker's code ran as the victim. Needs root (to make the
 * users and switch to them); skipped, saying so, otherwise.
 */
class LoaderAttackTest {
  static final String ATTACKER = "kaprobe1";
  static final String VICTIM = "kaprobe2";
  static Path shared;
  static Path jar;
  static Path genuine;
  static Path evil;
  static String folderName;
  Path tmp;
  Path marks;
  Path victimData;

  @BeforeAll
  static void usersAndFiles() throws Exception {
    boolean root = PrivateFolders.UID == 0;
    if (!root) {
      System.out.println("SKIPPED: LoaderAttackTest makes two users and runs JVMs as them: it needs root");
    }
    assumeTrue(root, "not root");
    boolean tools = onPath("useradd") && onPath("setpriv") && onPath("cc");
    if (!tools) {
      System.out.println("SKIPPED: LoaderAttackTest needs useradd (passwd), setpriv (util-linux) and cc"
          + " (build-essential)");
    }
    assumeTrue(tools, "no useradd, setpriv or cc");
    for (String user : List.of(ATTACKER, VICTIM)) {
      if (new ProcessBuilder("id", user).start().waitFor() != 0) {
        KernelJar.run(List.of("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user), Map.of());
      }
    }
    shared = Files.createTempDirectory("kernel-archive-attack");
    open(shared);
    // The runtime's classes where both users can read them (the build folder may not be).
    Path classes = shared.resolve("runtime-classes");
    try (Stream<Path> walk = Files.walk(KernelJar.runtimeClasses())) {
      for (Path p : walk.toList()) {
        Files.copy(p, classes.resolve(KernelJar.runtimeClasses().relativize(p).toString()));
      }
    }
    jar = KernelJar.build(shared, 1, KernelJar.PLATFORM, List.of("-Wl,--no-as-needed", "-lgomp",
        "-Wl,--enable-new-dtags,-rpath,$ORIGIN"));
    genuine = shared.resolve("build-1-" + KernelJar.PLATFORM + "/libver.so");
    folderName = KernelJar.indexSha256(jar, KernelJar.PLATFORM);
    // The attacker's library: answers 666 in place of libver.so, and as libgomp.so.1 it need only load.
    Path source = shared.resolve("evil.c");
    String home = System.getProperty("java.home");
    Files.writeString(source, """
        #include <jni.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <unistd.h>
        __attribute__((constructor)) static void mark(void) {
          char path[4096];
          snprintf(path, sizeof path, "%s/ran-as-%d", getenv("ATTACK_MARKS"), (int) getuid());
          FILE *f = fopen(path, "w");
          if (f) fclose(f);
        }
        JNIEXPORT jint JNICALL Java_t_Ver_version(JNIEnv *env, jclass type) { return 666; }
        """);
    evil = shared.resolve("evil.so");
    KernelJar.run(List.of("cc", "-shared", "-fPIC", "-I" + home + "/include", "-I" + home + "/include/linux",
        source.toString(), "-o", evil.toString()), Map.of());
    try (Stream<Path> walk = Files.walk(shared)) {
      for (Path p : walk.toList()) {
        open(p);
      }
    }
  }

  @AfterAll
  static void removeShared() throws IOException {
    if (shared != null) {
      try (Stream<Path> walk = Files.walk(shared)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  @BeforeEach
  void scene() throws Exception {
    Path scene = Files.createTempDirectory(shared, "scene");
    open(scene);
    tmp = Files.createDirectory(scene.resolve("tmp"));
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxrwxrwx"));
    KernelJar.run(List.of("chmod", "1777", tmp.toString()), Map.of()); // sticky, as /tmp is
    marks = Files.createDirectory(scene.resolve("marks"));
    KernelJar.run(List.of("chmod", "1777", marks.toString()), Map.of());
    victimData = Files.createDirectory(scene.resolve("victim-data"));
    Files.writeString(victimData.resolve("keep"), "the victim's own file\n");
    KernelJar.run(List.of("chown", "-R", VICTIM + ":" + VICTIM, victimData.toString()), Map.of());
    // The attacker may name what is inside, as he could name a path he learnt; not write into it.
    Files.setPosixFilePermissions(victimData, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** The folder the victim's loader falls back to, which the attacker makes first. */
  private Path victimsFallback() {
    return tmp.resolve("kernel-archive-" + VICTIM).resolve("native");
  }

  @Test
  void anUnlistedFileBesideTheLibraryIsNeverLoaded() throws Exception {
    Path folder = victimsFallback().resolve(folderName);
    attacker("mkdir -p -m 777 " + folder + " && chmod 777 " + folder.getParent() + " " + folder.getParent().getParent()
        + " && cp " + genuine + " " + folder + "/libver.so && cp " + evil + " " + folder + "/libgomp.so.1"
        + " && chmod -R 777 " + folder);
    KernelJar.Outcome outcome = victim();
    assertLoadedItsOwn(outcome);
    assertTrue(outcome.output().contains("kernel-archive: not using " + tmp.resolve("kernel-archive-" + VICTIM
        + "/native") + ": " + tmp.resolve("kernel-archive-" + VICTIM) + " is owned by " + ATTACKER), outcome.output());
    assertTrue(outcome.output().contains("with mode 0777"), outcome.output());
  }

  @Test
  void aSwapBetweenCheckAndLoadNeverReachesTheVictim() throws Exception {
    Path folder = victimsFallback().resolve(folderName);
    attacker("mkdir -p -m 777 " + folder + " && chmod 777 " + folder.getParent() + " " + folder.getParent().getParent()
        + " && cp " + genuine + " " + folder + "/libver.so && chmod 777 " + folder + "/libver.so");
    // Swaps the genuine library for his own and back, as fast as he can, while the victim loads.
    Process swapper = attackerInBackground("while :; do cp " + evil + " " + folder + "/.e && mv -f " + folder + "/.e "
        + folder + "/libver.so; cp " + genuine + " " + folder + "/.g && mv -f " + folder + "/.g " + folder
        + "/libver.so; done");
    try {
      for (int run = 0; run < 5; run++) {
        assertLoadedItsOwn(victim());
      }
    } finally {
      swapper.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aFolderSwappedForALinkNeverLeadsADeleteOutOfTheCache() throws Exception {
    Path folder = victimsFallback().resolve(folderName);
    // A stale folder (wrong content) the loader would delete, and a subfolder the attacker swaps for a
    // link to the victim's data while the delete runs.
    attacker("mkdir -p -m 777 " + folder + "/sub && chmod 777 " + folder.getParent() + " "
        + folder.getParent().getParent() + " && echo stale > " + folder + "/libver.so && chmod -R 777 " + folder);
    Process swapper = attackerInBackground("while :; do rm -rf " + folder + "/sub; ln -sfn " + victimData + " "
        + folder + "/sub; rm -f " + folder + "/sub; mkdir -p " + folder + "/sub; touch " + folder + "/sub/x; done");
    try {
      for (int run = 0; run < 3; run++) {
        assertLoadedItsOwn(victim());
      }
    } finally {
      swapper.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    assertTrue(Files.isRegularFile(victimData.resolve("keep")), "the victim's file is still there");
  }

  @Test
  void aLockFileLinkedElsewhereCreatesNothingThere() throws Exception {
    Path native_ = victimsFallback();
    attacker("mkdir -p -m 777 " + native_ + " && chmod 777 " + native_.getParent() + " && ln -s " + victimData
        + "/created " + native_ + "/" + folderName + ".lock && ln -s " + victimData + "/created-root " + native_
        + "/.lock");
    assertLoadedItsOwn(victim());
    assertFalse(Files.exists(victimData.resolve("created")), "no file where the attacker's link points");
    assertFalse(Files.exists(victimData.resolve("created-root")), "no file where the attacker's link points");
  }

  @Test
  void aPlantedReadOnlyFileDoesNotBlockTheLoadAndIsNamed() throws Exception {
    Path native_ = victimsFallback();
    attacker("mkdir -p -m 755 " + native_ + " && chmod 755 " + native_.getParent() + " && touch " + native_ + "/"
        + folderName + ".lock " + native_ + "/.lock && chmod 444 " + native_ + "/*.lock " + native_ + "/.lock");
    KernelJar.Outcome outcome = victim();
    assertLoadedItsOwn(outcome);
    assertTrue(outcome.output().contains("not using " + native_ + ": " + native_.getParent() + " is owned by "
        + ATTACKER), outcome.output());
  }

  @Test
  void theVictimsOwnFolderIsReusedAndTheAttackerCannotEnterIt() throws Exception {
    KernelJar.Outcome first = victim();
    assertLoadedItsOwn(first);
    assertTrue(first.output().contains("extracted ver into " + victimsFallback().resolve(folderName)), first.output());
    // Made private: the attacker can neither list it nor plant a file in it.
    String tried = attacker("ls " + victimsFallback() + " 2>&1; cp " + evil + " " + victimsFallback().resolve(folderName)
        + "/libgomp.so.1 2>&1; true");
    assertTrue(tried.contains("Permission denied"), tried);
    KernelJar.Outcome second = victim();
    assertLoadedItsOwn(second);
    assertTrue(second.output().contains("reused ver into " + victimsFallback().resolve(folderName)), second.output());
  }

  private void assertLoadedItsOwn(KernelJar.Outcome outcome) throws IOException {
    try (Stream<Path> list = Files.list(marks)) {
      List<String> ran = list.map(p -> p.getFileName().toString()).toList();
      assertEquals(List.of(), ran, "the attacker's code ran: " + outcome.output());
    }
    assertEquals(0, outcome.status(), outcome.output());
    assertTrue(outcome.output().contains("version=1"), outcome.output());
  }

  /** The victim's JVM: its cache cannot be written (a file is in the way), so it falls back to {@link #tmp}. */
  private KernelJar.Outcome victim() throws Exception {
    List<String> command = new ArrayList<>(List.of("setpriv", "--reuid=" + VICTIM, "--regid=" + VICTIM,
        "--clear-groups", Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Djava.io.tmpdir=" + tmp, "-Dkernel.native.debug=true", "-cp",
        shared.resolve("runtime-classes") + File.pathSeparator + jar, "t.Ver"));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("XDG_CACHE_HOME", shared.resolve("evil.c").resolve("cache").toString());
    builder.environment().put("ATTACK_MARKS", marks.toString());
    return KernelJar.run(builder);
  }

  private String attacker(String script) throws Exception {
    return KernelJar.run(List.of("setpriv", "--reuid=" + ATTACKER, "--regid=" + ATTACKER, "--clear-groups", "sh", "-c",
        script), Map.of());
  }

  private Process attackerInBackground(String script) throws IOException {
    return new ProcessBuilder("setpriv", "--reuid=" + ATTACKER, "--regid=" + ATTACKER, "--clear-groups", "sh", "-c",
        script).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
  }

  private static void open(Path p) throws IOException {
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private static boolean onPath(String tool) {
    String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin";
    return java.util.Arrays.stream(path.split(":")).anyMatch(d -> Files.isExecutable(Path.of(d, tool)));
  }
}
