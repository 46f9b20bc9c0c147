package io.github.kernelarchive.javabinding;

import io.github.kernelarchive.common.BuildFailureException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;

/**
 * What the bindings need from a kernel jar among a Java module's dependencies: which library it
 * carries for this platform, its export patterns (from the index) and its public headers
 * ({@code META-INF/native/include/}), unpacked for castxml.
 *
 * @param include where the headers were unpacked
 */
public record KernelJarContents(Path jar, String library, List<String> exports, Path include) {
  private static final String INCLUDE = "META-INF/native/include/";

  /**
   * @param library the library wanted; null: the one kernel jar among {@code jars}
   * @param include the folder to unpack the headers into (emptied first)
   */
  public static KernelJarContents find(List<Path> jars, String library, String platform, Path include)
      throws IOException, BuildFailureException {
    List<String> found = new ArrayList<>();
    KernelJarContents chosen = null;
    for (Path jar : jars) {
      if (Files.isDirectory(jar)) {
        KernelJarContents inFolder = fromFolder(jar, library, platform, include, found);
        if (inFolder != null) {
          requireNone(chosen, found);
          chosen = inFolder;
        }
        continue;
      }
      try (ZipFile zip = ZipFile.builder().setPath(jar).get()) {
        for (ZipArchiveEntry entry : Collections.list(zip.getEntries())) {
          String name = entry.getName();
          String prefix = "META-INF/native/" + platform + "/";
          if (!name.startsWith(prefix) || !name.endsWith(".index") || name.indexOf('/', prefix.length()) >= 0) {
            continue;
          }
          String carried = name.substring(prefix.length(), name.length() - ".index".length());
          found.add(carried + " (" + jar.getFileName() + ")");
          if (library == null || library.equals(carried)) {
            requireNone(chosen, found);
            chosen = new KernelJarContents(jar, carried, exports(zip, entry), include);
            unpackHeaders(zip, include);
          }
        }
      }
    }
    if (chosen == null) {
      throw new BuildFailureException("No kernel jar " + (library == null ? "" : "of lib" + library + ".so ") + "for "
          + platform + " among this module's dependencies" + (found.isEmpty() ? "" : " (found: " + String.join(", ",
          found) + ")") + ": add the dependency on the kernel module's jar with <classifier>" + platform
          + "</classifier>. In a reactor that builds the kernel module too, Maven hands over its target/classes"
          + " until phase package makes the jar: the kernel packaging fills it in phase compile (goal"
          + " jar-classes; a module of another packaging adds that goal beside its jar goal).");
    }
    return chosen;
  }

  private static void requireNone(KernelJarContents chosen, List<String> found) throws BuildFailureException {
    if (chosen != null) {
      throw new BuildFailureException("More than one kernel jar among the dependencies (" + String.join(", ", found)
          + "): name the one to bind in <java><library>.");
    }
  }

  /**
   * The same from a folder laid out like the jar (goal {@code jar-classes}: a reactor module's
   * {@code target/classes}); null when it holds no library of this platform (or not the one asked for).
   */
  private static KernelJarContents fromFolder(Path folder, String library, String platform, Path include,
      List<String> found) throws IOException {
    Path platformFolder = folder.resolve("META-INF/native/" + platform);
    if (!Files.isDirectory(platformFolder)) {
      return null;
    }
    KernelJarContents chosen = null;
    try (Stream<Path> files = Files.list(platformFolder)) {
      for (Path index : files.filter(f -> f.getFileName().toString().endsWith(".index")).sorted().toList()) {
        String name = index.getFileName().toString();
        String carried = name.substring(0, name.length() - ".index".length());
        found.add(carried + " (" + folder + ")");
        if (library == null || library.equals(carried)) {
          try (InputStream in = Files.newInputStream(index)) {
            chosen = new KernelJarContents(folder, carried, exports(in), include);
          }
        }
      }
    }
    if (chosen != null) {
      emptyFolder(include);
      Path headers = folder.resolve(INCLUDE);
      if (Files.isDirectory(headers)) {
        try (Stream<Path> walk = Files.walk(headers)) {
          for (Path header : walk.filter(Files::isRegularFile).toList()) {
            Path target = include.resolve(headers.relativize(header).toString());
            Files.createDirectories(target.getParent());
            Files.copy(header, target);
          }
        }
      }
    }
    return chosen;
  }

  /** {@code mha} → {@code Mha}, {@code fast_ops} → {@code FastOps}. */
  public static String className(String library) {
    return FfmClassWriter.camelCase(library, "Kernel");
  }

  private static List<String> exports(ZipFile zip, ZipArchiveEntry index) throws IOException {
    try (InputStream in = zip.getInputStream(index)) {
      return exports(in);
    }
  }

  private static List<String> exports(InputStream index) throws IOException {
    Properties properties = new Properties();
    properties.load(new ByteArrayInputStream(index.readAllBytes()));
    String exports = properties.getProperty("exports", "").trim();
    return exports.isEmpty() ? List.of() : Arrays.stream(exports.split(",")).map(String::trim).toList();
  }

  private static void unpackHeaders(ZipFile zip, Path include) throws IOException {
    emptyFolder(include);
    Path root = include.toAbsolutePath().normalize();
    for (ZipArchiveEntry entry : Collections.list(zip.getEntries())) {
      if (entry.isDirectory() || !entry.getName().startsWith(INCLUDE)) {
        continue;
      }
      Path target = root.resolve(entry.getName().substring(INCLUDE.length())).normalize();
      if (!target.startsWith(root)) {
        throw new IOException(entry.getName() + " points outside the include folder");
      }
      Files.createDirectories(target.getParent());
      try (InputStream in = zip.getInputStream(entry)) {
        Files.copy(in, target);
      }
    }
  }

  private static void emptyFolder(Path folder) throws IOException {
    if (Files.exists(folder)) {
      try (Stream<Path> walk = Files.walk(folder)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    Files.createDirectories(folder);
  }
}
