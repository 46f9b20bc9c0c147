package io.github.kernelarchive.mha.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.runtime.KernelLibrary;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * native/'s multiplatform jar on Grace's JVM: Debian's arm64 OpenJDK 17, run by qemu-user, loads
 * libmha.so through kernel-archive-runtime from the same jar this JVM uses, and gets the AArch64
 * one. Java 17 has no FFM, so the program checks what was loaded rather than calling it.
 */
class Arm64JvmTest {
  private static final Path ARM64_ROOT = Path.of("/opt/kernel-archive/arm64");
  private static final Path ARM64_JAVA = ARM64_ROOT.resolve("usr/lib/jvm/java-17-openjdk-arm64/bin/java");
  private static final String PROGRAM = """
      import io.github.kernelarchive.runtime.KernelLibrary;
      import java.io.InputStream;
      import java.nio.file.Files;
      public class LoadMha {
        public static void main(String[] args) throws Exception {
          KernelLibrary.Loaded loaded = KernelLibrary.load("mha");
          byte[] header = new byte[20];
          try (InputStream in = Files.newInputStream(loaded.library())) {
            in.readNBytes(header, 0, 20);
          }
          int machine = (header[18] & 0xff) | (header[19] & 0xff) << 8;
          System.out.println("os.arch=" + System.getProperty("os.arch") + " e_machine=" + machine);
        }
      }
      """;

  @Test
  void debiansArm64JvmLoadsTheAarch64LibraryFromTheMultiplatformJar(@TempDir Path work) throws Exception {
    Path mhaJar = jarHolding("META-INF/native/mha.platforms");
    String platforms = readEntry("META-INF/native/mha.platforms");
    skipUnless(platforms.lines().anyMatch("linux-aarch64"::equals), mhaJar.getFileName()
        + " holds no linux-aarch64 library: native/ was built without Debian's g++-aarch64-linux-gnu");
    skipUnless(Files.isExecutable(ARM64_JAVA), "no Debian arm64 OpenJDK 17 at " + ARM64_JAVA
        + " (.ci/run unpacks openjdk-17-jre-headless:arm64 there; docs/platforms.md says how)");
    Path qemu = onPath("qemu-aarch64-static");
    skipUnless(qemu != null, "no qemu-aarch64-static on PATH (Debian package qemu-user-static)");

    Path runtimeJar = Path.of(KernelLibrary.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path source = Files.writeString(work.resolve("LoadMha.java"), PROGRAM);
    Path classes = Files.createDirectories(work.resolve("classes"));
    int javac = ToolProvider.getSystemJavaCompiler().run(null, null, null, "--release", "17", "-cp",
        runtimeJar.toString(), "-d", classes.toString(), source.toString());
    assertEquals(0, javac, "javac of LoadMha.java");

    String classPath = String.join(File.pathSeparator, classes.toString(), runtimeJar.toString(), mhaJar.toString());
    ProcessBuilder builder = new ProcessBuilder(qemu.toString(), "-L", ARM64_ROOT.toString(), ARM64_JAVA.toString(),
        "-Xshare:off", "-Dkernel.native.cache=" + work.resolve("cache"), "-cp", classPath, "LoadMha");
    builder.redirectErrorStream(true);
    Process process = builder.start();
    // An emulated JVM starts in a few seconds here; two minutes means it hangs.
    boolean done = process.waitFor(120, TimeUnit.SECONDS);
    if (!done) {
      process.destroyForcibly();
    }
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(done, "the arm64 JVM did not finish in 120 s: " + output);
    assertEquals(0, process.exitValue(), output);
    // 183: EM_AARCH64.
    assertTrue(output.contains("os.arch=aarch64 e_machine=183"), output);
  }

  private static void skipUnless(boolean condition, String why) {
    if (!condition) {
      System.out.println("SKIPPED the arm64 JVM check: " + why);
    }
    Assumptions.assumeTrue(condition, why);
  }

  private static Path jarHolding(String entry) throws URISyntaxException {
    URL url = Arm64JvmTest.class.getClassLoader().getResource(entry);
    assertTrue(url != null && url.getProtocol().equals("jar"), entry + " is not in a jar on the class path: " + url);
    String spec = url.toString();
    return Path.of(new java.net.URI(spec.substring("jar:".length(), spec.indexOf("!/"))));
  }

  private static String readEntry(String entry) throws IOException {
    try (var in = Arm64JvmTest.class.getClassLoader().getResourceAsStream(entry)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static Path onPath(String tool) {
    for (String folder : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(folder, tool);
      if (!folder.isEmpty() && Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }

}
