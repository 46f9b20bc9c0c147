package io.github.kernelarchive.link;

import io.github.kernelarchive.archive.MemberSymbols;
import io.github.kernelarchive.common.BuildFailureException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * What goes into the shared library.
 *
 * @param libraryName {@code mha} gives {@code libmha.so}
 * @param objects host objects in link order
 * @param archives kernel archives, linked whole
 * @param privateArchives hide every archive symbol ({@code --exclude-libs,ALL}): the static
 *     layout; false when an archive becomes a plain shared library of its own
 * @param sharedLibraries this project's other libraries the library depends on (by SONAME, found
 *     through {@code $ORIGIN})
 * @param exports symbol patterns of the public API; empty exports every visible symbol
 * @param symbolVersion the version node of the exports ({@link SymbolVersion}); null leaves them
 *     unversioned (the plain layout)
 * @param linkFlags extra flags from the user, after the objects
 * @param cudaLibraryDirectory where {@code libcudart_static.a} lives, when CUDA objects are linked
 */
public record LinkRequest(String libraryName, List<Path> objects, List<Archive> archives, boolean privateArchives,
    List<Path> sharedLibraries, List<String> exports, String symbolVersion, List<String> linkFlags,
    Path cudaLibraryDirectory) {

  /**
   * An archive, linked whole. Either it is published at {@code file} and checked, or it is still
   * being written: {@code contents} waits until it is written (a link may read it from then on),
   * {@code checks} until it is also checked (before a library made from it is published), and
   * {@code standIns} (its thin {@code ar} batches, which list the same members in the same order;
   * empty when there are none) can be linked before it is written. Its contents are its hash (from
   * its manifest or its writer, so the link key need not re-read it) and what its members define
   * strongly when this run inspected them ({@code null} otherwise: the duplicate check then reads
   * the archive).
   */
  public record Archive(Path file, List<Path> standIns, Contents contents, Checks checks) {
    public Archive {
      standIns = List.copyOf(standIns);
    }

    public Archive(Path file, String sha256, List<MemberSymbols> definitions) {
      this(file, List.of(), () -> new Checked(sha256, definitions), () -> {});
    }
  }

  /** Waits until an archive is written; throws what made it fail. */
  @FunctionalInterface
  public interface Contents {
    Checked await() throws IOException, BuildFailureException;
  }

  /** Waits until an archive is checked; throws what it failed. */
  @FunctionalInterface
  public interface Checks {
    void await() throws IOException, BuildFailureException;
  }

  /** What the link needs of an archive once it is written: its digest and its members' strong definitions. */
  public record Checked(String sha256, List<MemberSymbols> definitions) {}

  public LinkRequest {
    objects = List.copyOf(objects);
    archives = List.copyOf(archives);
    sharedLibraries = List.copyOf(sharedLibraries);
    exports = List.copyOf(exports);
    linkFlags = List.copyOf(linkFlags);
  }
}
