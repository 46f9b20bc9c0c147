package io.github.kernelarchive.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Puts a platform's files where they can be loaded: {@code <root>/<index sha256>/}, one folder per
 * content, so two builds never share one and a reused one is what the jar holds. Written under a
 * temporary name and renamed, under a file lock that covers other JVMs; every file's SHA-256 is
 * checked before a folder is used, and a folder that fails is extracted again. Roots are tried in
 * order: one that cannot be written or is mounted noexec is passed over, and if none serves, the
 * error lists each with its reason.
 */
final class Extraction {
  /** Where the jar's files come from. */
  @FunctionalInterface
  interface Source {
    InputStream open(String file) throws IOException;
  }

  /** @param reused whether the folder was there already (checked), or extracted now */
  record Result(Path folder, boolean reused, List<String> passedOver) {}

  private Extraction() {}

  static Result extract(NativeIndex index, Source source, List<Path> roots) {
    List<String> passedOver = new ArrayList<>();
    for (Path root : roots) {
      try {
        Files.createDirectories(root);
      } catch (IOException e) {
        passedOver.add(root + ": cannot be written (" + e + ")");
        continue;
      }
      Optional<MountTable.Mount> mount = MountTable.of(root);
      if (mount.isPresent() && mount.get().noexec()) {
        passedOver.add(root + ": on the noexec mount " + mount.get());
        continue;
      }
      try {
        return extractUnderLock(index, source, root, passedOver);
      } catch (IOException e) {
        passedOver.add(root + ": cannot be written (" + e + ")");
      }
    }
    throw new UnsatisfiedLinkError("No folder to extract " + index.library() + "'s native files into: "
        + String.join("; ", passedOver) + ". Set -D" + KernelLibrary.CACHE_PROPERTY + "=<a writable folder on a"
        + " mount without noexec>, or extract the files in advance and set -D" + KernelLibrary.DIR_PROPERTY
        + "=<that folder>.");
  }

  // One JVM's threads wait here; FileLock covers other JVMs (it would throw within one).
  private static synchronized Result extractUnderLock(NativeIndex index, Source source, Path root,
      List<String> passedOver) throws IOException {
    Path folder = root.resolve(index.sha256());
    try (FileChannel channel = FileChannel.open(root.resolve(index.sha256() + ".lock"), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
      if (Files.isDirectory(folder)) {
        if (intact(index, folder)) {
          return new Result(folder, true, passedOver);
        }
        deleteTree(folder); // changed or truncated since: extract it again
      }
      Path temporary = root.resolve(index.sha256() + ".tmp-" + ProcessHandle.current().pid());
      deleteTree(temporary);
      Files.createDirectories(temporary);
      try {
        for (String file : index.loadOrder()) {
          write(index, source, file, temporary.resolve(file));
        }
        Files.move(temporary, folder, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        deleteTree(temporary);
      }
      return new Result(folder, false, passedOver);
    }
  }

  private static void write(NativeIndex index, Source source, String file, Path target) throws IOException {
    MessageDigest digest = Hashes.sha256();
    try (InputStream in = source.open(file);
        OutputStream out = new DigestOutputStream(Files.newOutputStream(target), digest)) {
      in.transferTo(out);
    }
    String written = HexFormat.of().formatHex(digest.digest());
    if (!written.equals(index.sha256Of(file))) {
      throw new IOException(file + " in the jar has SHA-256 " + written + ", its index says " + index.sha256Of(file)
          + ": the jar is damaged");
    }
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("r-xr-xr-x"));
  }

  /** Every file present with the content the index names. */
  static boolean intact(NativeIndex index, Path folder) throws IOException {
    for (String file : index.loadOrder()) {
      Path path = folder.resolve(file);
      if (!Files.isRegularFile(path) || !Hashes.sha256(path).equals(index.sha256Of(file))) {
        return false;
      }
    }
    return true;
  }

  private static void deleteTree(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(path)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        p.toFile().setWritable(true);
        Files.deleteIfExists(p);
      }
    }
  }
}
