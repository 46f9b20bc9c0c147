package io.github.kernelarchive.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.ToolProvider;

/**
 * Builds what the loader tests load: a real JNI library ({@code libver.so}, gcc against this JDK's
 * headers) that answers its version, the class {@code t.Ver} whose native method it implements,
 * and a jar holding both as the plugin's jar goal lays them out.
 */
final class KernelJar {
  static final String PLATFORM = Platform.current();

  private KernelJar() {}

  /** A jar with t.Ver and libver.so answering {@code version}, for {@code platform}. */
  static Path build(Path dir, int version, String platform) throws Exception {
    return build(dir, version, platform, List.of());
  }

  /** The same, with {@code linkFlags} added to the library's link (e.g. a NEEDED and RUNPATH $ORIGIN). */
  static Path build(Path dir, int version, String platform, List<String> linkFlags) throws Exception {
    Path work = Files.createDirectories(dir.resolve("build-" + version + "-" + platform));
    Path library = library(work, version, linkFlags);
    Path classes = compileVer(work);
    byte[] so = Files.readAllBytes(library);
    String index = indexText(List.of("format=1", "library=ver", "platform=" + platform, "glibc=2.17",
        "cuda=none", "load=libver.so", "sha256.libver.so=" + Hashes.sha256(so), "soname.libver.so=libver.so"));
    Path jar = dir.resolve("ver-" + version + "-" + platform + ".jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      put(out, "t/Ver.class", Files.readAllBytes(classes.resolve("t/Ver.class")));
      put(out, "META-INF/native/ver.platforms", (platform + "\n").getBytes(StandardCharsets.UTF_8));
      put(out, "META-INF/native/" + platform + "/ver.index", index.getBytes(StandardCharsets.ISO_8859_1));
      put(out, "META-INF/native/" + platform + "/libver.so", so);
    }
    return jar;
  }

  static Path library(Path work, int version) throws Exception {
    return library(work, version, List.of());
  }

  static Path library(Path work, int version, List<String> linkFlags) throws Exception {
    Path source = work.resolve("ver.c");
    Files.writeString(source, """
        #include <jni.h>
        JNIEXPORT jint JNICALL Java_t_Ver_version(JNIEnv *env, jclass type) { return VERSION; }
        """);
    Path library = work.resolve("libver.so");
    String home = System.getProperty("java.home");
    List<String> command = new ArrayList<>(List.of("cc", "-shared", "-fPIC", "-O2", "-DVERSION=" + version,
        "-I" + home + "/include", "-I" + home + "/include/linux", "-Wl,-soname,libver.so", source.toString()));
    command.addAll(linkFlags);
    command.addAll(List.of("-o", library.toString()));
    run(command, Map.of());
    return library;
  }

  /** The SHA-256 of the jar's index: the name of the folder the loader extracts it into. */
  static String indexSha256(Path jar, String platform) throws IOException {
    try (java.util.jar.JarFile file = new java.util.jar.JarFile(jar.toFile())) {
      return Hashes.sha256(file.getInputStream(file.getEntry("META-INF/native/" + platform + "/ver.index")));
    }
  }

  private static Path compileVer(Path work) throws IOException {
    Path source = Files.createDirectories(work.resolve("src/t")).resolve("Ver.java");
    Files.writeString(source, """
        package t;

        public class Ver {
          static {
            io.github.kernelarchive.runtime.KernelLibrary.load("ver", System::load);
          }

          public static native int version();

          public static void main(String[] args) {
            System.out.println("version=" + version());
          }
        }
        """);
    Path classes = Files.createDirectories(work.resolve("classes"));
    int status = ToolProvider.getSystemJavaCompiler().run(null, null, null, "--release", "17", "-cp",
        runtimeClasses().toString(), "-d", classes.toString(), source.toString());
    assertEquals(0, status, "javac t/Ver.java");
    return classes;
  }

  /** An index file's text: one key=value a line. */
  static String indexText(List<String> lines) {
    return String.join("\n", lines) + "\n";
  }

  private static void put(JarOutputStream out, String name, byte[] bytes) throws IOException {
    out.putNextEntry(new JarEntry(name));
    out.write(bytes);
    out.closeEntry();
  }

  /** Where the loader's own classes are (target/classes). */
  static Path runtimeClasses() {
    try {
      return Path.of(KernelLibrary.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code java -cp <runtime>:<jar> <properties> t.Ver}, prefixed by {@code wrapper} (e.g. unshare). */
  static ProcessBuilder jvm(Path jar, List<String> properties, Map<String, String> environment, List<String> wrapper) {
    List<String> command = new ArrayList<>(wrapper);
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(properties);
    command.addAll(List.of("-Dkernel.native.debug=true", "-cp", runtimeClasses() + File.pathSeparator + jar, "t.Ver"));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(environment);
    return builder;
  }

  /** Output (stdout and stderr together) and exit status of a finished process. */
  record Outcome(int status, String output) {}

  static Outcome finish(Process process) throws Exception {
    byte[] output = process.getInputStream().readAllBytes();
    assertTrue(process.waitFor(120, TimeUnit.SECONDS), "finished");
    return new Outcome(process.exitValue(), new String(output, StandardCharsets.UTF_8));
  }

  static Outcome run(ProcessBuilder builder) throws Exception {
    return finish(builder.redirectErrorStream(true).start());
  }

  static String run(List<String> command, Map<String, String> environment) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(environment);
    Outcome outcome = run(builder);
    assertEquals(0, outcome.status(), command + ": " + outcome.output());
    return outcome.output();
  }

  static void overwrite(Path file, byte[] bytes) throws IOException {
    file.toFile().setWritable(true);
    try (OutputStream out = Files.newOutputStream(file)) {
      out.write(bytes);
    }
  }
}
