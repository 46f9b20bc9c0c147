package io.github.kernelarchive.util;

import io.github.kernelarchive.common.BuildFailureException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.text.Normalizer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The files of a project folder as a package (wheel, jar) holds them, under the names the project
 * gives them. A package goes into other people's processes, so it holds only the project's own
 * files: a symbolic link is packed as its target's content (a file) or its target's files (a folder)
 * when that target is inside the project, and fails the build naming it when it is outside (a link
 * to {@code /etc/passwd} would ship that file). Names a package cannot hold as they are fail before
 * anything is written: a backslash (zip readers take it for a separator), a control character (a
 * newline breaks RECORD's lines), and two names the same after Unicode normalisation (NFC).
 */
public final class ProjectTree {
  private ProjectTree() {}

  /**
   * Every file under {@code folder}, by its name in the package ({@code prefix} + the relative
   * path, '/'-separated), sorted; empty where the folder does not exist.
   *
   * @param project the project's folder: links may point anywhere inside it (or inside {@code folder})
   * @param what the package's kind for messages ({@code wheel}, {@code jar})
   * @param skip names (relative, '/'-separated) left out, e.g. Python's caches
   * @return package name to the file to read (a link's target)
   */
  public static TreeMap<String, Path> files(Path folder, Path project, String prefix, String what,
      Predicate<String> skip) throws BuildFailureException, IOException {
    TreeMap<String, Path> files = new TreeMap<>();
    if (!Files.isDirectory(folder)) {
      return files;
    }
    Walk walk = new Walk(project.toRealPath(), folder.toRealPath(), what, skip, files);
    walk.folder(folder, "", new ArrayDeque<>());
    Map<String, String> normalised = new HashMap<>();
    for (String name : files.keySet()) {
      String other = normalised.put(Normalizer.normalize(name, Normalizer.Form.NFC), name);
      if (other != null) {
        throw new BuildFailureException("The " + what + " would hold two files named alike: '" + other + "' and '"
            + name + "' are the same name in Unicode's normal form (NFC), and installers may write them to one"
            + " path. Rename one of them.");
      }
    }
    if (!prefix.isEmpty()) {
      TreeMap<String, Path> prefixed = new TreeMap<>();
      files.forEach((name, path) -> prefixed.put(prefix + name, path));
      return prefixed;
    }
    return files;
  }

  private record Walk(Path project, Path root, String what, Predicate<String> skip, Map<String, Path> files) {
    void folder(Path folder, String relative, Deque<Path> open) throws BuildFailureException, IOException {
      Path real = folder.toRealPath();
      if (open.contains(real)) {
        throw new BuildFailureException(folder + " is a symbolic link to " + real + ", a folder that holds the link:"
            + " the " + what + " would never end. Remove the link.");
      }
      open.push(real);
      TreeSet<Path> entries = new TreeSet<>();
      try (DirectoryStream<Path> list = Files.newDirectoryStream(folder)) {
        list.forEach(entries::add);
      }
      for (Path entry : entries) {
        String name = entry.getFileName().toString();
        checkName(entry, name);
        String path = relative + name;
        if (skip.test(path)) {
          continue;
        }
        BasicFileAttributes own = Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        Path target = entry;
        if (own.isSymbolicLink()) {
          target = linkTarget(entry);
        }
        BasicFileAttributes attributes = Files.readAttributes(target, BasicFileAttributes.class);
        if (attributes.isDirectory()) {
          folder(target, path + "/", open);
        } else if (attributes.isRegularFile()) {
          files.put(path, target);
        } else {
          throw new BuildFailureException(entry + " is neither a file nor a folder: a " + what + " cannot hold it."
              + " Remove it from " + root + ".");
        }
      }
      open.pop();
    }

    private Path linkTarget(Path link) throws BuildFailureException, IOException {
      Path target;
      try {
        target = link.toRealPath();
      } catch (IOException e) {
        throw new BuildFailureException(link + " is a symbolic link to " + Files.readSymbolicLink(link)
            + ", which does not exist: the " + what + " cannot hold it. Remove the link or make its target.");
      }
      if (!target.startsWith(project) && !target.startsWith(root)) {
        throw new BuildFailureException(link + " is a symbolic link to " + target + ", outside the project " + project
            + ": a " + what + " holds only the project's own files. Copy the file into the project, or remove the"
            + " link.");
      }
      return target;
    }

    private void checkName(Path entry, String name) throws BuildFailureException {
      for (int i = 0; i < name.length(); i++) {
        char c = name.charAt(i);
        if (c == '\\' || Character.isISOControl(c)) {
          String shown = name.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t");
          throw new BuildFailureException("'" + entry.getParent() + "/" + shown + "' has " + (c == '\\' ? "a backslash"
              : "a control character (" + String.format("U+%04X", (int) c) + ")") + " in its name: a " + what
              + " cannot hold it as it is (" + (c == '\\' ? "zip readers take a backslash for a folder separator"
              : "installers' lists of files break at it") + "). Rename the file.");
        }
      }
    }
  }
}
