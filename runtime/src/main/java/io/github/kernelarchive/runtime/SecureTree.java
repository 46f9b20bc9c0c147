package io.github.kernelarchive.runtime;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Deletes inside a folder through a {@link SecureDirectoryStream}: every step is relative to an
 * open folder and follows no link, so a folder swapped for a symbolic link while the delete runs
 * loses the link, never what it points at (deleting by path walks into the link's target).
 */
final class SecureTree {
  private SecureTree() {}

  /** Opens {@code folder} (not following a link) for relative operations. */
  static SecureDirectoryStream<Path> open(Path folder) throws IOException {
    DirectoryStream<Path> stream = Files.newDirectoryStream(folder);
    if (stream instanceof SecureDirectoryStream<Path> secure) {
      return secure;
    }
    stream.close();
    throw new IOException("this platform offers no SecureDirectoryStream for " + folder
        + ", so the loader cannot delete in it without following links");
  }

  /** The names of a folder's entries. */
  static List<String> names(SecureDirectoryStream<Path> folder) {
    List<String> names = new ArrayList<>();
    for (Path entry : folder) {
      names.add(entry.getFileName().toString());
    }
    return names;
  }

  /** The entry's own attributes: a link is a link, not its target. */
  static BasicFileAttributes attributes(SecureDirectoryStream<Path> folder, String name) throws IOException {
    return folder.getFileAttributeView(Path.of(name), BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
        .readAttributes();
  }

  /** Whether group or others may write the entry (a link counts as its own entry). */
  static boolean writableByOthers(SecureDirectoryStream<Path> folder, String name) throws IOException {
    Set<PosixFilePermission> permissions = folder.getFileAttributeView(Path.of(name), PosixFileAttributeView.class,
        LinkOption.NOFOLLOW_LINKS).readAttributes().permissions();
    return permissions.contains(PosixFilePermission.GROUP_WRITE) || permissions.contains(PosixFilePermission.OTHERS_WRITE);
  }

  /** Deletes entry {@code name} of {@code folder}, and everything under it if it is a real folder. */
  static void delete(SecureDirectoryStream<Path> folder, String name) throws IOException {
    Path entry = Path.of(name);
    if (!attributes(folder, name).isDirectory()) {
      folder.deleteFile(entry); // a file, or a link: the link itself goes
      return;
    }
    try (SecureDirectoryStream<Path> inner = folder.newDirectoryStream(entry, LinkOption.NOFOLLOW_LINKS)) {
      for (String child : names(inner)) {
        delete(inner, child);
      }
    }
    folder.deleteDirectory(entry);
  }
}
