package io.github.kernelarchive.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Puts a platform's files where they can be loaded: {@code <root>/<index sha256>/}, one folder per
 * content, so two builds never share one. A root is used only when it is this user's own
 * ({@link PrivateFolders}): then no other user can add, swap or remove a file in it, and what was
 * checked is what loads. Within a root, one lock file ({@code .lock}) orders every JVM's work:
 * holding it, a JVM removes the temporaries a killed one left, reuses a folder only when it holds
 * exactly the indexed files with their SHA-256, else writes one under a temporary name, hashing as
 * it writes, and renames it into place. Roots are tried in order: one that is not private, cannot
 * be written or is on a noexec mount is passed over; when none serves, a new folder of this JVM's
 * own in the temp folder does (removed at exit).
 */
final class Extraction {
  private static final String LOCK = ".lock";
  private static final String TEMPORARY = ".tmp-";
  private static final Set<String> REPORTED = new HashSet<>();

  /** Where the jar's files come from. */
  interface Source {
    InputStream open(String file) throws IOException;

    /** Where {@code file} is read from, for a message: the jar's URL. */
    String where(String file);
  }

  /**
   * A candidate: {@code base} is the user's folder ({@code ~/.cache}), {@code own} the loader's
   * folders below it, which it creates private or checks.
   */
  record Root(Path base, List<String> own) {
    Path folder() {
      Path folder = base;
      for (String name : own) {
        folder = folder.resolve(name);
      }
      return folder;
    }
  }

  /** @param reused whether the folder was there already (checked), or extracted now */
  record Result(Path folder, boolean reused, List<String> passedOver) {}

  /** The jar holds a file that its index does not describe: nothing any folder can mend. */
  static final class DamagedJarException extends IOException {
    private static final long serialVersionUID = 1L;

    DamagedJarException(String message) {
      super(message);
    }
  }

  private Extraction() {}

  static Result extract(NativeIndex index, Source source, List<Root> roots, Path temporaryFolder) {
    List<String> passedOver = new ArrayList<>();
    for (Root root : roots) {
      Path folder;
      try {
        folder = PrivateFolders.prepare(root.base(), root.own());
      } catch (PrivateFolders.UnsafeFolderException e) {
        report(root.folder(), e.getMessage());
        passedOver.add(e.getMessage());
        continue;
      } catch (IOException e) {
        passedOver.add(root.folder() + ": cannot be written (" + e + ")");
        continue;
      }
      Optional<String> noexec = noexec(folder);
      if (noexec.isPresent()) {
        passedOver.add(noexec.get());
        continue;
      }
      try {
        return extractUnderLock(index, source, folder, passedOver);
      } catch (DamagedJarException e) {
        throw damaged(index, e);
      } catch (IOException e) {
        passedOver.add(folder + ": cannot be written (" + e + ")");
      }
    }
    try {
      Optional<String> noexec = noexec(temporaryFolder);
      if (noexec.isEmpty()) {
        return new Result(extractFresh(index, source, temporaryFolder), false, passedOver);
      }
      passedOver.add(noexec.get());
    } catch (DamagedJarException e) {
      throw damaged(index, e);
    } catch (IOException e) {
      passedOver.add(temporaryFolder + ": no folder of this JVM's own can be made in it (" + e + ")");
    }
    throw new UnsatisfiedLinkError("No folder to extract " + index.library() + "'s native files into: "
        + String.join("; ", passedOver) + ". Set -D" + KernelLibrary.CACHE_PROPERTY + "=<a folder of your own, on a"
        + " mount without noexec>, or extract the files in advance and set -D" + KernelLibrary.DIR_PROPERTY
        + "=<that folder>.");
  }

  /** Why nothing extracted into {@code folder} could load, if its mount forbids executing. */
  private static Optional<String> noexec(Path folder) {
    return MountTable.of(folder).filter(MountTable.Mount::noexec).map(m -> folder + ": on the noexec mount " + m);
  }

  private static UnsatisfiedLinkError damaged(NativeIndex index, DamagedJarException e) {
    UnsatisfiedLinkError error = new UnsatisfiedLinkError(index.library() + " (" + index.platform() + "): "
        + e.getMessage() + ": the jar is damaged. Build or download it again.");
    error.initCause(e);
    return error;
  }

  /** A folder that is not private is said once per JVM, on stderr: someone may be attacking this user. */
  private static void report(Path folder, String why) {
    synchronized (REPORTED) {
      if (REPORTED.add(folder.toString())) {
        System.err.println("kernel-archive: not using " + folder + ": " + why);
      }
    }
  }

  // One class loader's threads wait on the monitor; another copy of this class in the same JVM
  // (a second class loader) makes lock() throw OverlappingFileLockException, so that one waits in
  // lockRoot; other JVMs wait in lock() itself.
  private static synchronized Result extractUnderLock(NativeIndex index, Source source, Path root,
      List<String> passedOver) throws IOException {
    try (FileChannel channel = FileChannel.open(root.resolve(LOCK), Set.of(StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        FileLock lock = lockRoot(channel);
        SecureDirectoryStream<Path> folder = SecureTree.open(root)) {
      removeLeftovers(folder);
      String name = index.sha256();
      if (Files.exists(root.resolve(name), LinkOption.NOFOLLOW_LINKS)) {
        if (SecureTree.attributes(folder, name).isDirectory() && holdsExactly(index, folder, name)) {
          return new Result(root.resolve(name), true, passedOver);
        }
        SecureTree.delete(folder, name); // changed, truncated, or not even a folder: extract it again
      }
      Path temporary = root.resolve(name + TEMPORARY + ProcessHandle.current().pid());
      try {
        writeAll(index, source, temporary);
        Files.move(temporary, root.resolve(name), StandardCopyOption.ATOMIC_MOVE);
      } finally {
        if (Files.exists(temporary, LinkOption.NOFOLLOW_LINKS)) {
          SecureTree.delete(folder, temporary.getFileName().toString());
        }
      }
      return new Result(root.resolve(name), false, passedOver);
    }
  }

  private static FileLock lockRoot(FileChannel channel) throws IOException {
    while (true) {
      try {
        return channel.lock();
      } catch (OverlappingFileLockException e) {
        try {
          Thread.sleep(10);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while another copy of kernel-archive-runtime in this JVM extracted", e);
        }
      }
    }
  }

  /**
   * Temporaries are made only under the root's lock, so one found while holding it was left by a
   * JVM that died mid-extraction; per-content {@code <sha256>.lock} files are what earlier runtimes
   * locked, and nothing waits on them now.
   */
  private static void removeLeftovers(SecureDirectoryStream<Path> folder) throws IOException {
    for (String name : SecureTree.names(folder)) {
      if (name.contains(TEMPORARY) || (name.endsWith(LOCK) && !name.equals(LOCK))) {
        SecureTree.delete(folder, name);
      }
    }
  }

  /** A fresh folder of this JVM's own (mode 0700, a name no one could choose before), removed at exit. */
  private static Path extractFresh(NativeIndex index, Source source, Path temporaryFolder) throws IOException {
    Path fresh = Files.createTempDirectory(temporaryFolder, "kernel-archive-",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try (SecureDirectoryStream<Path> parent = SecureTree.open(fresh.getParent())) {
        SecureTree.delete(parent, fresh.getFileName().toString());
      } catch (IOException e) {
        // the temp folder is cleaned by the system in time
      }
    }, "kernel-archive-cleanup"));
    Path folder = fresh.resolve(index.sha256());
    writeAll(index, source, folder);
    return folder;
  }

  /** Writes every indexed file into the new folder {@code target}, each hashed as it is written. */
  private static void writeAll(NativeIndex index, Source source, Path target) throws IOException {
    Files.createDirectory(target, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    for (String file : index.loadOrder()) {
      Path path = target.resolve(file);
      MessageDigest digest = Hashes.sha256();
      try (InputStream in = new DigestInputStream(source.open(file), digest);
          OutputStream out = Files.newOutputStream(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
              LinkOption.NOFOLLOW_LINKS)) {
        in.transferTo(out);
      }
      String written = HexFormat.of().formatHex(digest.digest());
      if (!written.equals(index.sha256Of(file))) {
        throw new DamagedJarException(source.where(file) + " has SHA-256 " + written + ", but its index says "
            + index.sha256Of(file));
      }
      Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("r-x------"));
    }
  }

  /**
   * The folder holds the indexed files and nothing else (the library's {@code RUNPATH $ORIGIN}
   * would load any other file from it), each a regular file, not a link, with the indexed SHA-256.
   */
  static boolean holdsExactly(NativeIndex index, SecureDirectoryStream<Path> parent, String name) throws IOException {
    if (SecureTree.writableByOthers(parent, name)) {
      return false;
    }
    try (SecureDirectoryStream<Path> folder = parent.newDirectoryStream(Path.of(name), LinkOption.NOFOLLOW_LINKS)) {
      if (!new HashSet<>(SecureTree.names(folder)).equals(new HashSet<>(index.loadOrder()))) {
        return false;
      }
      for (String file : index.loadOrder()) {
        if (!SecureTree.attributes(folder, file).isRegularFile() || SecureTree.writableByOthers(folder, file)) {
          return false;
        }
        try (SeekableByteChannel channel = folder.newByteChannel(Path.of(file), Set.of(StandardOpenOption.READ,
            LinkOption.NOFOLLOW_LINKS))) {
          if (!Hashes.sha256(Channels.newInputStream(channel)).equals(index.sha256Of(file))) {
            return false;
          }
        }
      }
      return true;
    }
  }
}
