package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A build of an unchanged tree writes nothing but its timeline: every file under {@code
 * target/kernel} keeps its time (the host archive stays the very file it was, no tool is asked its
 * version again, the driver is not asked which files the link reads, and the states, the bundle's
 * description, the audit and the version script are not written again); a changed host source
 * writes the host archive again.
 */
class NoOpBuildTest {
  @TempDir
  Path dir;

  @Test
  void anUnchangedTreeRewritesNothingAndAChangeRewritesWhatItMust() throws Exception {
    Path project = dir.resolve("p");
    Files.createDirectories(project.resolve("host"));
    Files.createDirectories(project.resolve("kernels"));
    Files.writeString(project.resolve("kernels/k.c"), "int kernel_value(void) { return 1; }\n");
    Files.writeString(project.resolve("host/api.c"), "int kernel_value(void);\nint p_value(void) { return kernel_value(); }\n");
    build(project);
    // Hashes of files written in the last 2 s are not trusted by the next build (ContentHashes):
    // the build after this pause learns the objects' for good, and the one after it is the no-op.
    Thread.sleep(2_100);
    build(project);
    Path out = project.resolve("target/kernel");
    Path host = out.resolve("libp-host.a");
    Path versions = out.resolve("state/tool-versions.properties");
    Path inputs = out.resolve("link/libp.so.inputs");
    assertTrue(Files.isRegularFile(versions) && Files.isRegularFile(inputs), "what the first build learnt");
    List<Path> outputs = outputsBut(out, "trace.json");
    for (String name : new String[] {"state/compile.state", "state/file-hashes", "kernel.properties",
        "compile_commands.json", "audit.txt", "link/p.map"}) {
      assertTrue(outputs.contains(out.resolve(name)), name + " among the outputs checked");
    }
    // Each as it is now: a file written again has another inode (a rename) or another time.
    Map<Path, String> before = looks(outputs);

    BuildSummary again = build(project);
    assertFalse(again.relinked(), "nothing relinked");
    assertEquals(outputs, outputsBut(out, "trace.json"), "no output added or removed");
    Map<Path, String> after = looks(outputs);
    for (Path file : outputs) {
      assertEquals(before.get(file), after.get(file), file + " was written again");
    }
    FileTime hostTime = Files.getLastModifiedTime(host);

    Files.writeString(project.resolve("host/api.c"), "int kernel_value(void);\nint p_value(void) { return kernel_value() + 1; }\n");
    build(project);
    assertNotEquals(hostTime, Files.getLastModifiedTime(host), "a changed host object rewrites the host archive");
  }

  /**
   * Without {@code <exports>} the version script lists symbols a rule of the plugin finds,
   * remembered between builds: the script is among the files the link key hashes (LinkInputs), so
   * a script that comes out otherwise (here: the memo changed alone, as a plugin with another rule
   * would) relinks.
   */
  @Test
  void aVersionScriptThatComesOutOtherwiseRelinks() throws Exception {
    Path project = dir.resolve("q");
    Files.createDirectories(project.resolve("host"));
    Files.writeString(project.resolve("host/api.cpp"), "#include <string>\n"
        + "std::string q_name(unsigned long x) { return std::to_string(x); }\n");
    KernelBuildRequest request = KernelBuildRequest.builder(project, "q").host(project.resolve("host")).jobs(2).build();
    new KernelBuild(new RecordingLog(), System.getenv()).run(request);
    assertFalse(new KernelBuild(new RecordingLog(), System.getenv()).run(request).relinked(), "a no-op");

    Path memo = project.resolve("target/kernel/link/libq.so.unique");
    Files.writeString(memo, Files.readString(memo) + "_ZZ8q_markerE1m\n");
    assertTrue(new KernelBuild(new RecordingLog(), System.getenv()).run(request).relinked(), "another script");
    assertTrue(Files.readString(project.resolve("target/kernel/link/q.map")).contains("_ZZ8q_markerE1m"));
  }

  /** Every file below {@code out} but those named {@code skip}, sorted. */
  private static List<Path> outputsBut(Path out, String skip) throws Exception {
    try (Stream<Path> files = Files.walk(out)) {
      return files.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().equals(skip)).sorted().toList();
    }
  }

  private static Map<Path, String> looks(List<Path> files) throws Exception {
    Map<Path, String> looks = new HashMap<>();
    for (Path file : files) {
      looks.put(file, Files.getAttribute(file, "unix:ino") + " " + Files.getLastModifiedTime(file));
    }
    return looks;
  }

  private static BuildSummary build(Path project) throws Exception {
    KernelBuildRequest request = KernelBuildRequest.builder(project, "p").host(project.resolve("host"))
        .archive("kernels", project.resolve("kernels")).jobs(2).exports("p_*").build();
    return new KernelBuild(new RecordingLog(), System.getenv()).run(request);
  }
}
