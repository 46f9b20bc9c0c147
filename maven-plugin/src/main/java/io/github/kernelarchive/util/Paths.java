package io.github.kernelarchive.util;

import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * Path containment decided on path elements, never on string prefixes: {@code /w/proj-sdk/lib}
 * is not inside {@code /w/proj}, {@code /w/proj/../proj/x} is. Where both exist, links are
 * resolved too, so a checkout reached through a symbolic link is recognised.
 */
public final class Paths {
  private Paths() {}

  public static boolean inside(String path, Path directory) {
    try {
      return inside(Path.of(path), directory);
    } catch (InvalidPathException e) {
      return false; // e.g. $ORIGIN/../lib is not a path of this machine
    }
  }

  /**
   * The file's absolute, normal path as text, normalized only when it has a "." or ".." element:
   * tens of thousands of object paths go through this, nearly all normal already, and {@link
   * Path#normalize} looks at every element of each.
   */
  public static String absoluteText(Path file) {
    Path absolute = file.toAbsolutePath();
    String text = absolute.toString();
    return text.contains("/.") ? absolute.normalize().toString() : text;
  }

  public static boolean inside(Path path, Path directory) {
    if (!path.isAbsolute()) {
      return false;
    }
    Path dir = directory.toAbsolutePath().normalize();
    if (path.normalize().startsWith(dir)) {
      return true;
    }
    try {
      return path.toRealPath().startsWith(dir.toRealPath());
    } catch (IOException e) {
      return false; // one of them does not exist: the lexical answer stands
    }
  }
}
