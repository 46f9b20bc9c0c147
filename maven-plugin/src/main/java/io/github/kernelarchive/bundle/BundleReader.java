package io.github.kernelarchive.bundle;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;

/**
 * Unpacks a kernel bundle into a folder, refusing any entry that would land outside it (an
 * absolute name, a {@code ..} element, a link that points out) and any bundle that is truncated
 * or corrupt, naming the file. The folder is assembled under a temporary name and renamed into
 * place, so a consumer never sees half a bundle.
 */
public final class BundleReader {
  private BundleReader() {}

  /** Unpacks {@code bundle} into {@code target} (replacing what was there) and returns its metadata. */
  public static BundleMetadata unpack(Path bundle, Path target) throws IOException, BundleException {
    Path parent = target.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Path temporary = parent.resolve("." + target.getFileName() + "." + UUID.randomUUID());
    try {
      Files.createDirectories(temporary);
      extract(bundle, temporary);
      Path metadata = temporary.resolve(BundleMetadata.FILE);
      if (!Files.isRegularFile(metadata)) {
        throw new BundleException(bundle + " has no " + BundleMetadata.FILE + ": it is not a kernel bundle.");
      }
      BundleMetadata parsed = BundleMetadata.parse(Files.readAllBytes(metadata), bundle.toString());
      replace(temporary, target);
      return parsed;
    } finally {
      deleteTree(temporary);
    }
  }

  private static void extract(Path bundle, Path into) throws IOException, BundleException {
    try (InputStream file = Files.newInputStream(bundle);
        TarArchiveInputStream tar = new TarArchiveInputStream(new GzipCompressorInputStream(file))) {
      for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
        Path destination = inside(into, entry.getName(), bundle);
        if (entry.isDirectory()) {
          Files.createDirectories(destination);
        } else if (entry.isSymbolicLink()) {
          Path pointed = destination.getParent().resolve(entry.getLinkName()).normalize();
          if (!pointed.startsWith(into) || Path.of(entry.getLinkName()).isAbsolute()) {
            throw new BundleException(bundle + ": entry " + entry.getName() + " is a link to " + entry.getLinkName()
                + ", outside the bundle. Refusing to unpack it.");
          }
          Files.createDirectories(destination.getParent());
          Files.createSymbolicLink(destination, Path.of(entry.getLinkName()));
        } else if (entry.isFile()) {
          Files.createDirectories(destination.getParent());
          Files.copy(tar, destination, StandardCopyOption.REPLACE_EXISTING);
          if ((entry.getMode() & 0100) != 0) {
            destination.toFile().setExecutable(true, false);
          }
        } else {
          throw new BundleException(bundle + ": entry " + entry.getName() + " is neither a file, a folder nor a link"
              + " (a hard link or a device): refusing to unpack it.");
        }
      }
    } catch (IOException e) {
      throw new BundleException(bundle + " cannot be read: it is truncated or corrupt (" + e.getMessage() + ")."
          + " Delete it (from the local repository, if it came from there) and build or fetch it again.", e);
    }
  }

  /** Where entry {@code name} goes, refusing an absolute name or one that climbs out with {@code ..}. */
  private static Path inside(Path into, String name, Path bundle) throws BundleException {
    if (name.startsWith("/") || name.contains("\\") || Path.of(name).isAbsolute()) {
      throw new BundleException(bundle + ": entry " + name + " has an absolute name. Refusing to unpack it.");
    }
    for (String element : name.split("/")) {
      if (element.equals("..")) {
        throw new BundleException(bundle + ": entry " + name + " climbs out of the bundle (..). Refusing to unpack it.");
      }
    }
    Path destination = into.resolve(name).normalize();
    if (!destination.startsWith(into)) {
      throw new BundleException(bundle + ": entry " + name + " lies outside the bundle. Refusing to unpack it.");
    }
    return destination;
  }

  /** Swaps {@code fresh} in for {@code target}: the old folder is moved aside first, then deleted. */
  private static void replace(Path fresh, Path target) throws IOException {
    Path old = target.resolveSibling("." + target.getFileName() + ".old." + UUID.randomUUID());
    if (Files.exists(target)) {
      Files.move(target, old, StandardCopyOption.ATOMIC_MOVE);
    }
    Files.move(fresh, target, StandardCopyOption.ATOMIC_MOVE);
    deleteTree(old);
  }

  private static void deleteTree(Path path) throws IOException {
    if (!Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(path)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
