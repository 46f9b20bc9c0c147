package io.github.kernelarchive.nativejar;

import io.github.kernelarchive.jarfile.JarWriter;
import io.github.kernelarchive.util.AtomicFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * A kernel jar's content laid out as files in a module's {@code target/classes}. Maven hands a
 * module of the same reactor that folder for a dependency on the jar until the package phase has
 * made the jar, so {@code mvn test} in a reactor gets the headers for {@code java-bindings} and a
 * class path from which kernel-archive-runtime loads the library. Each file is written beside its
 * place and renamed into it, so a reader sees the old file or the new one, never half of one; the
 * platform's folder and the headers hold exactly this build's files afterwards.
 */
final class JarContentFolder {
  private static final String NATIVE = "META-INF/native/";

  private JarContentFolder() {}

  /**
   * @param libraries entries that are library files, by name: hard-linked rather than copied where
   *     the file system allows, so a library of hundreds of megabytes costs neither the copy nor
   *     the space (the build replaces a library by renaming a new file over it, never by writing
   *     into it, so the link keeps the bytes that were indexed)
   */
  static void write(Path classes, String library, String platform, List<JarWriter.Entry> entries,
      Map<String, Path> libraries) throws IOException {
    Path root = classes.resolve(NATIVE);
    clear(root.resolve(platform));
    clear(root.resolve("include"));
    String platformsEntry = NATIVE + library + ".platforms";
    for (JarWriter.Entry entry : entries) {
      if (entry.name().equals(platformsEntry)) {
        continue;
      }
      Path target = classes.resolve(entry.name());
      Files.createDirectories(target.getParent());
      Path temporary = AtomicFiles.temporarySibling(target);
      try {
        if (!linked(libraries.get(entry.name()), temporary)) {
          try (InputStream in = entry.source().open()) {
            Files.copy(in, temporary, StandardCopyOption.REPLACE_EXISTING);
          }
        }
        Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(temporary);
      }
    }
    // Every platform laid out here so far (one execution per platform writes one folder each).
    TreeSet<String> platforms = new TreeSet<>();
    try (Stream<Path> folders = Files.list(root)) {
      for (Path folder : folders.toList()) {
        if (Files.isRegularFile(folder.resolve(library + ".index"))) {
          platforms.add(folder.getFileName().toString());
        }
      }
    }
    Path list = classes.resolve(platformsEntry);
    Path temporary = AtomicFiles.temporarySibling(list);
    try {
      Files.writeString(temporary, String.join("\n", platforms) + "\n", StandardCharsets.UTF_8);
      Files.move(temporary, list, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(temporary);
    }
  }

  /** Whether {@code file} (null: none) could be hard-linked at {@code link}; another file system cannot. */
  private static boolean linked(Path file, Path link) {
    if (file == null) {
      return false;
    }
    try {
      Files.createLink(link, file);
      return true;
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }

  /** Removes {@code folder} and what it holds, links included (never followed). */
  private static void clear(Path folder) throws IOException {
    if (!Files.exists(folder, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    List<Path> paths = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(folder)) {
      walk.forEach(paths::add);
    }
    paths.sort(Comparator.reverseOrder());
    for (Path path : paths) {
      Files.delete(path);
    }
  }
}
