package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second build of an unchanged tree writes nothing it wrote before: the host archive stays the
 * file it was, no tool is asked its version again, and the driver is not asked which files the
 * link reads; a changed host source writes the host archive again.
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
    Path out = project.resolve("target/kernel");
    Path host = out.resolve("libp-host.a");
    Path versions = out.resolve("state/tool-versions.properties");
    Path inputs = out.resolve("link/libp.so.inputs");
    assertTrue(Files.isRegularFile(versions) && Files.isRegularFile(inputs), "what the first build learnt");
    FileTime old = FileTime.fromMillis(1_000_000_000_000L);
    for (Path file : new Path[] {host, versions, inputs}) {
      Files.setLastModifiedTime(file, old);
    }
    long inode = inode(host);

    BuildSummary again = build(project);
    assertFalse(again.relinked(), "nothing relinked");
    for (Path file : new Path[] {host, versions, inputs}) {
      assertEquals(old, Files.getLastModifiedTime(file), file + " was written again");
    }
    assertEquals(inode, inode(host));

    Files.writeString(project.resolve("host/api.c"), "int kernel_value(void);\nint p_value(void) { return kernel_value() + 1; }\n");
    build(project);
    assertNotEquals(old, Files.getLastModifiedTime(host), "a changed host object rewrites the host archive");
  }

  private static long inode(Path file) throws Exception {
    return ((Number) Files.getAttribute(file, "unix:ino")).longValue();
  }

  private static BuildSummary build(Path project) throws Exception {
    KernelBuildRequest request = KernelBuildRequest.builder(project, "p").host(project.resolve("host"))
        .archive("kernels", project.resolve("kernels")).jobs(2).exports("p_*").build();
    return new KernelBuild(new RecordingLog(), System.getenv()).run(request);
  }
}
