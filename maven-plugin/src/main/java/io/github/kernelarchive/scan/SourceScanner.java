package io.github.kernelarchive.scan;

import io.github.kernelarchive.common.BuildFailureException;
import java.io.File;
import java.io.IOException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;

/**
 * Finds the sources of a {@link SourceSet}. The order is the sorted relative path, so plans,
 * object lists and archives come out the same on every machine. Maven's default excludes
 * (version-control folders such as {@code .git}, editor backups and locks such as {@code k.cu~}
 * and {@code .#k.cu}) are never selected, as in Maven's own plugins; their folders are not walked.
 */
public final class SourceScanner {
  /**
   * A regular file a scan selected, as it was looked at: later stages need not look again.
   *
   * @param relative its path below the set's directory, with {@code /} separators
   */
  public record Found(Path file, String relative, BasicFileAttributes attributes) {
    /** Its file name, taken from the relative path (Path.getFileName per file showed in profiles at 50,000). */
    public String name() {
      return relative.substring(relative.lastIndexOf('/') + 1);
    }
  }

  public List<SourceFile> scan(SourceSet set) throws IOException, BuildFailureException {
    List<SourceFile> found = new ArrayList<>();
    for (Found file : matching(set, name -> Language.ofFileName(name).isPresent())) {
      String relative = file.relative();
      Optional<Language> language = Language.ofFileName(file.name());
      if (language.isEmpty()) {
        throw new BuildFailureException("Included file " + set.directory().resolve(relative) + " has no known"
            + " source extension (.c, .cc, .cpp, .cxx, .cu, .hip). Narrow the <includes> of " + describe(set) + ".");
      }
      found.add(new SourceFile(set.unit(), set.directory(), relative, language.get()));
    }
    return found;
  }

  /**
   * Prebuilt objects of an archive ({@code <objects>}): by default every {@code .o} below the
   * directory, each with the size and time the scan saw.
   */
  public List<Found> scanObjects(SourceSet set) throws IOException, BuildFailureException {
    return matching(set, name -> name.endsWith(".o"));
  }

  /** The files below the set's directory, sorted by relative path, that its includes (or the default) select. */
  private List<Found> matching(SourceSet set, java.util.function.Predicate<String> byDefault)
      throws IOException, BuildFailureException {
    if (!Files.isDirectory(set.directory())) {
      throw new BuildFailureException("Directory " + set.directory() + " of " + describe(set)
          + " does not exist. Create it or fix <directory> in the plugin configuration.");
    }
    AntPatterns includes = AntPatterns.of(set.includes());
    AntPatterns excludes = AntPatterns.of(set.excludes());
    List<Found> found = new ArrayList<>();
    for (Found file : regularFiles(set, excludes)) {
      String relative = file.relative();
      String name = file.name();
      boolean included = includes.isEmpty() ? byDefault.test(name) : includes.matches(relative);
      // Default excludes are all "**/name" or "**/name/**": folders were pruned, the file's name is enough.
      if (included && !excludes.matches(relative) && !AntPatterns.DEFAULT_EXCLUDES.matchesName(name)) {
        found.add(file);
      }
    }
    found.sort(BY_RELATIVE_PATH);
    return found;
  }

  private static final Comparator<Found> BY_RELATIVE_PATH = (a, b) -> a.relative().compareTo(b.relative());

  /**
   * Every regular file below the set's directory, following symbolic links (CI checkouts and
   * scratch build folders are often links, and so are folders inside them); a link that leads
   * back to one of its own parents is reported instead of followed forever. A folder the user's
   * excludes remove whole ({@code sub/loop/**}) is not entered, so an excluded cycle is no error.
   */
  private List<Found> regularFiles(SourceSet set, AntPatterns excludes) throws IOException, BuildFailureException {
    String prefix = prefixOf(set.directory());
    List<Found> files = new ArrayList<>();
    List<Path> cycles = new ArrayList<>();
    Files.walkFileTree(set.directory(), EnumSet.of(FileVisitOption.FOLLOW_LINKS), Integer.MAX_VALUE,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path directory, BasicFileAttributes attributes) {
            if (directory.equals(set.directory())) {
              return FileVisitResult.CONTINUE;
            }
            boolean excluded = AntPatterns.DEFAULT_EXCLUDES.matchesName(directory.getFileName().toString())
                || excludedWhole(directory);
            return excluded ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
          }

          /**
           * Whether a file directly in the folder and one deeper down would both be excluded (NUL
           * is in no real name, so only a pattern that ends in ** matches both).
           */
          private boolean excludedWhole(Path directory) {
            String relative = relativePath(prefix, set.directory(), directory);
            return excludes.matches(relative + "/\0") && excludes.matches(relative + "/\0/\0");
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
            if (attributes.isRegularFile()) {
              files.add(new Found(file, relativePath(prefix, set.directory(), file), attributes));
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            if (e instanceof FileSystemLoopException) {
              if (!excludedWhole(file)) {
                cycles.add(file);
              }
              return FileVisitResult.CONTINUE;
            }
            if (Files.isSymbolicLink(file) && !Files.exists(file)) {
              return FileVisitResult.CONTINUE; // a dangling link selects nothing, as a missing file would not
            }
            throw e;
          }
        });
    if (!cycles.isEmpty()) {
      throw new BuildFailureException("Symbolic link " + cycles.get(0) + " below " + set.directory() + " of "
          + describe(set) + " leads back to one of its own parent folders (a cycle). Remove the link or exclude"
          + " its folder whole with an <exclude> pattern ending in /** (e.g. <exclude>"
          + relativePath(prefix, set.directory(), cycles.get(0)) + "/**</exclude>).");
    }
    return files;
  }

  /** What every path the walk gives starts with: the set's directory and a separator. */
  private static String prefixOf(Path root) {
    String directory = root.toString();
    return directory.endsWith(File.separator) ? directory : directory + File.separator;
  }

  /**
   * The walk resolves every file onto the set's directory, so its path starts with {@code prefix}:
   * cutting that off spares thousands of Path.relativize calls (costly, and so is compiling them
   * when they run hot).
   */
  private static String relativePath(String prefix, Path root, Path file) {
    String path = file.toString();
    String relative = path.startsWith(prefix) ? path.substring(prefix.length()) : root.relativize(file).toString();
    return File.separatorChar == '/' ? relative : relative.replace(File.separatorChar, '/');
  }

  private static String describe(SourceSet set) {
    return set.isHost() ? "<sources>" : "archive '" + set.unit() + "'";
  }
}
