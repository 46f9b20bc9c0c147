package io.github.kernelarchive.runtime;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

/**
 * Folders no other user controls. A folder the loader extracts into must be owned by this user and
 * writable by no one else, and every folder above it must be owned by this user or root and, if
 * others may write it, sticky (as {@code /tmp} is): otherwise another user could put a file of his
 * own beside the library, where its {@code RUNPATH $ORIGIN} finds it, or swap a checked file before
 * it loads. Checked with {@link LinkOption#NOFOLLOW_LINKS}, so a symlink in place of a folder fails.
 */
final class PrivateFolders {
  /** This process's file-system user ID: the owner of the files it creates. */
  static final int UID = fileSystemUid();

  /** A folder that fails the check: {@link #getMessage()} says whose it is and with what mode. */
  static final class UnsafeFolderException extends IOException {
    private static final long serialVersionUID = 1L;

    UnsafeFolderException(String message) {
      super(message);
    }
  }

  private PrivateFolders() {}

  /**
   * Makes {@code base/own...} exist as this user's private folders: each missing element created
   * with mode 0700 in one step (no window with a wider mode), each existing one checked.
   *
   * @param base the user's folder under which the loader's own begin ({@code ~/.cache}, the temp folder)
   * @param own the names of the loader's folders below it, outermost first
   * @return the innermost folder
   */
  static Path prepare(Path base, List<String> own) throws IOException {
    Path real = base.toAbsolutePath().normalize();
    if (!Files.isDirectory(real)) {
      Files.createDirectories(real, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }
    real = real.toRealPath();
    for (Path above = real; above != null; above = above.getParent()) {
      checkAbove(above);
    }
    Path folder = real;
    for (String name : own) {
      folder = folder.resolve(name);
      try {
        Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (FileAlreadyExistsException e) {
        // reused: checked below like a new one
      }
      checkOwn(folder);
    }
    return folder;
  }

  /** A folder of the loader's own: a real folder (not a link), this user's, written by no one else. */
  static void checkOwn(Path folder) throws IOException {
    Map<String, Object> attributes = Files.readAttributes(folder, "unix:uid,mode,isDirectory,isSymbolicLink",
        LinkOption.NOFOLLOW_LINKS);
    int uid = (Integer) attributes.get("uid");
    int mode = (Integer) attributes.get("mode");
    if ((Boolean) attributes.get("isSymbolicLink") || !(Boolean) attributes.get("isDirectory")) {
      throw new UnsafeFolderException(folder + " is " + ((Boolean) attributes.get("isSymbolicLink")
          ? "a symbolic link" : "not a folder") + " (owner " + owner(uid) + "), where the loader keeps a folder of its own");
    }
    if (uid != UID || (mode & 022) != 0) {
      throw new UnsafeFolderException(folder + " is owned by " + owner(uid) + " with mode " + octal(mode)
          + "; the loader uses only folders owned by " + owner(UID) + " that no one else can write");
    }
  }

  /** A folder above the loader's: this user's or root's, and sticky where others may write it. */
  private static void checkAbove(Path folder) throws IOException {
    Map<String, Object> attributes = Files.readAttributes(folder, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
    int uid = (Integer) attributes.get("uid");
    int mode = (Integer) attributes.get("mode");
    boolean sticky = (mode & 01000) != 0;
    if ((uid != UID && uid != 0) || ((mode & 022) != 0 && !sticky)) {
      throw new UnsafeFolderException(folder + ", above the loader's folder, is owned by " + owner(uid) + " with mode "
          + octal(mode) + ": its owner" + ((mode & 022) != 0 && !sticky ? " or anyone who may write it" : "")
          + " could replace the loader's files");
    }
  }

  static String octal(int mode) {
    return String.format("%04o", mode & 07777);
  }

  /** {@code uid 1001}, with the name where {@code /etc/passwd} has it. */
  static String owner(int uid) {
    try {
      for (String line : Files.readAllLines(Path.of("/etc/passwd"))) {
        String[] fields = line.split(":");
        if (fields.length > 2 && fields[2].equals(Integer.toString(uid))) {
          return fields[0] + " (uid " + uid + ")";
        }
      }
    } catch (IOException e) {
      // the number alone says it
    }
    return "uid " + uid;
  }

  /**
   * The file-system user ID from {@code /proc/self/status} (the last of its Uid line: real,
   * effective, saved, file system). Java has no call for it, and {@code user.name} can be set on the
   * command line. Where it cannot be read, -1: no folder then counts as this user's, and the loader
   * uses a fresh one of its own.
   */
  private static int fileSystemUid() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          return Integer.parseInt(line.substring(4).trim().split("\\s+")[3]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // below
    }
    return -1;
  }
}
