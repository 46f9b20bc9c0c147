package io.github.kernelarchive.nativejar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.github.kernelarchive.jarfile.JarWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jar's content in target/classes: exactly this build's files per platform, every platform listed. */
class JarContentFolderTest {
  @TempDir Path classes;

  private static List<JarWriter.Entry> entries(String platform, String... files) {
    List<JarWriter.Entry> entries = new java.util.ArrayList<>();
    for (String file : files) {
      entries.add(JarWriter.Entry.text(file.startsWith("include/") ? "META-INF/native/" + file
          : "META-INF/native/" + platform + "/" + file, file + " of " + platform));
    }
    entries.add(JarWriter.Entry.text("META-INF/native/k.platforms", platform + "\n"));
    return entries;
  }

  private List<String> files() throws Exception {
    try (Stream<Path> walk = Files.walk(classes)) {
      return walk.filter(Files::isRegularFile).map(p -> classes.relativize(p).toString()).sorted().toList();
    }
  }

  @Test
  void aSecondBuildLeavesOnlyItsFilesAndEveryPlatformIsListed() throws Exception {
    JarContentFolder.write(classes, "k", "linux-x86_64", entries("linux-x86_64", "libk.so", "libold.so", "k.index",
        "include/k.h", "include/old.h"), Map.of());
    JarContentFolder.write(classes, "k", "linux-x86_64", entries("linux-x86_64", "libk.so", "k.index", "include/k.h"),
        Map.of());
    assertEquals(List.of("META-INF/native/include/k.h", "META-INF/native/k.platforms",
        "META-INF/native/linux-x86_64/k.index", "META-INF/native/linux-x86_64/libk.so"), files());
    JarContentFolder.write(classes, "k", "linux-aarch64", entries("linux-aarch64", "libk.so", "k.index", "include/k.h"),
        Map.of());
    assertEquals("linux-aarch64\nlinux-x86_64\n", Files.readString(classes.resolve("META-INF/native/k.platforms")));
    assertEquals("libk.so of linux-x86_64", Files.readString(classes.resolve("META-INF/native/linux-x86_64/libk.so")));
    assertFalse(files().stream().anyMatch(f -> f.endsWith(".tmp")), "a temporary was left: " + files());
  }

  @Test
  void aLibraryIsHardLinkedNotCopied(@TempDir Path build) throws Exception {
    Path library = Files.writeString(build.resolve("libk.so"), "the library");
    JarContentFolder.write(classes, "k", "linux-x86_64", entries("linux-x86_64", "libk.so", "k.index"),
        Map.of("META-INF/native/linux-x86_64/libk.so", library));
    Path laidOut = classes.resolve("META-INF/native/linux-x86_64/libk.so");
    assertEquals(Files.getAttribute(library, "unix:ino"), Files.getAttribute(laidOut, "unix:ino"), "one file, two names");
    // The build publishes a new library by renaming over the old one: the laid-out one keeps what was indexed.
    Path replacement = Files.writeString(build.resolve(".libk.so.tmp"), "a new library");
    Files.move(replacement, library, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    assertEquals("the library", Files.readString(laidOut));
  }
}
