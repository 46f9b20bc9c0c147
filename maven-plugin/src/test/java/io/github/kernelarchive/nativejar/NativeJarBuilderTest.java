package io.github.kernelarchive.nativejar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.runtime.KernelLibrary;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jar goal's stage with real libraries, read back by kernel-archive-runtime, which loads them. */
class NativeJarBuilderTest {
  @Test
  void carriesTheLibraryWhatItNeedsAndAnIndexTheRuntimeLoads(@TempDir Path dir) throws Exception {
    Path out = Files.createDirectories(dir.resolve("kernel"));
    Files.writeString(dir.resolve("dep.c"), "int dep_value(void) { return 41; }\n");
    Files.writeString(dir.resolve("main.c"), "int dep_value(void);\nint main_value(void) { return dep_value() + 1; }\n");
    cc(dir, "-shared", "-fPIC", "-Wl,-soname,libdep.so", "dep.c", "-o", out.resolve("libdep.so").toString());
    cc(dir, "-shared", "-fPIC", "-Wl,-soname,libmain.so", "main.c", "-L" + out, "-l:libdep.so", "-Wl,-rpath,$ORIGIN",
        "-o", out.resolve("libmain.so").toString());
    Files.writeString(out.resolve("stray.so"), "not needed: stays out");
    Path headers = Files.createDirectories(dir.resolve("include/sub"));
    Files.writeString(headers.resolve("main.h"), "int main_value(void);\n");
    NativeJarRequest request = new NativeJarRequest(out.resolve("libmain.so"), "main", "linux-x86_64",
        dir.resolve("include"), List.of("main_*"), "none", dir.resolve("a/main.jar"),
        FileTime.fromMillis(1_700_000_000_000L), "test");
    NativeJarBuilder.Result result = NativeJarBuilder.build(request);
    assertEquals(List.of("libdep.so", "libmain.so"), result.loadOrder());

    List<String> names = new ArrayList<>();
    String index;
    try (ZipFile zip = new ZipFile(result.jar().toFile())) {
      Collections.list(zip.entries()).forEach(e -> names.add(e.getName()));
      try (InputStream in = zip.getInputStream(zip.getEntry("META-INF/native/linux-x86_64/main.index"))) {
        index = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      ZipEntry library = zip.getEntry("META-INF/native/linux-x86_64/libmain.so");
      assertEquals(1_700_000_000_000L, library.getLastModifiedTime().toMillis());
    }
    assertEquals(List.of("META-INF/MANIFEST.MF", "META-INF/native/include/sub/main.h",
        "META-INF/native/linux-x86_64/libdep.so", "META-INF/native/linux-x86_64/libmain.so",
        "META-INF/native/linux-x86_64/main.index", "META-INF/native/main.platforms"), names);
    assertTrue(index.contains("load=libdep.so libmain.so\n"), index);
    assertTrue(index.contains("soname.libdep.so=libdep.so\n") && index.contains("exports=main_*\n"), index);
    assertTrue(index.contains("sha256.libmain.so=" + io.github.kernelarchive.util.Hashing.ofFile(
        out.resolve("libmain.so")) + "\n"), index);

    // The same inputs, another place: the same bytes.
    NativeJarBuilder.build(new NativeJarRequest(request.library(), "main", "linux-x86_64", request.headers(),
        request.exports(), "none", dir.resolve("b/main.jar"), request.time(), "test"));
    assertArrayEquals(Files.readAllBytes(dir.resolve("a/main.jar")), Files.readAllBytes(dir.resolve("b/main.jar")));

    // What the runtime makes of it: dependencies first, the library last, both loaded.
    String cache = System.getProperty(KernelLibrary.CACHE_PROPERTY);
    System.setProperty(KernelLibrary.CACHE_PROPERTY, dir.resolve("cache").toString());
    try (URLClassLoader loader = new URLClassLoader(new URL[] {result.jar().toUri().toURL()}, null)) {
      List<String> loaded = new ArrayList<>();
      KernelLibrary.Loaded library = KernelLibrary.load("main", loader, path -> {
        loaded.add(Path.of(path).getFileName().toString());
        System.load(path);
      });
      assertEquals(List.of("libdep.so", "libmain.so"), loaded);
      assertEquals("libmain.so", library.library().getFileName().toString());
      assertTrue(library.folder().startsWith(dir.resolve("cache")), library.folder().toString());
    } finally {
      if (cache == null) {
        System.clearProperty(KernelLibrary.CACHE_PROPERTY);
      } else {
        System.setProperty(KernelLibrary.CACHE_PROPERTY, cache);
      }
    }
  }

  private static void cc(Path dir, String... arguments) throws Exception {
    List<String> command = new ArrayList<>(List.of("cc"));
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0, command + ": " + output);
  }
}
