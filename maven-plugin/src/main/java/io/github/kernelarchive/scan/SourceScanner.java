package io.github.kernelarchive.scan;

import io.github.kernelarchive.common.BuildFailureException;
import java.io.IOException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the sources of a {@link SourceSet}. The order is the sorted relative path, so plans,
 * object lists and archives come out the same on every machine. Maven's default excludes
 * (version-control folders such as {@code .git}, editor backups and locks such as {@code k.cu~}
 * and {@code .#k.cu}) are never selected, as in Maven's own plugins; their folders are not walked.
 */
public final class SourceScanner {
  /** Every regular file walked, as it was looked at: later stages need not look again. */
  private final Map<Path, BasicFileAttributes> seen = new HashMap<>();

  /** How {@code file}, which a scan returned, looked when it was scanned; empty for another file. */
  public Optional<BasicFileAttributes> seen(Path file) {
    return Optional.ofNullable(seen.get(file));
  }

  public List<SourceFile> scan(SourceSet set) throws IOException, BuildFailureException {
    List<SourceFile> found = new ArrayList<>();
    for (String relative : matching(set, name -> Language.ofFileName(name).isPresent())) {
      Optional<Language> language = Language.ofFileName(relative.substring(relative.lastIndexOf('/') + 1));
      if (language.isEmpty()) {
        throw new BuildFailureException("Included file " + set.directory().resolve(relative) + " has no known"
            + " source extension (.c, .cc, .cpp, .cxx, .cu, .hip). Narrow the <includes> of " + describe(set) + ".");
      }
      found.add(new SourceFile(set.unit(), set.directory(), relative, language.get()));
    }
    return found;
  }

  /** Prebuilt objects of an archive ({@code <objects>}): by default every {@code .o} below the directory. */
  public List<Path> scanObjects(SourceSet set) throws IOException, BuildFailureException {
    List<Path> found = new ArrayList<>();
    for (String relative : matching(set, name -> name.endsWith(".o"))) {
      found.add(set.directory().resolve(relative));
    }
    return found;
  }

  /** Relative paths below the set's directory, sorted, that its includes (or the default) select. */
  private List<String> matching(SourceSet set, java.util.function.Predicate<String> byDefault)
      throws IOException, BuildFailureException {
    if (!Files.isDirectory(set.directory())) {
      throw new BuildFailureException("Directory " + set.directory() + " of " + describe(set)
          + " does not exist. Create it or fix <directory> in the plugin configuration.");
    }
    AntPatterns includes = AntPatterns.of(set.includes());
    AntPatterns excludes = AntPatterns.of(set.excludes());
    List<String> found = new ArrayList<>();
    for (Path file : regularFiles(set, excludes)) {
      String relative = relativePath(set.directory(), file);
      boolean included = includes.isEmpty() ? byDefault.test(file.getFileName().toString()) : includes.matches(relative);
      // Default excludes are all "**/name" or "**/name/**": folders were pruned, the file's name is enough.
      if (included && !excludes.matches(relative)
          && !AntPatterns.DEFAULT_EXCLUDES.matches(file.getFileName().toString())) {
        found.add(relative);
      }
    }
    found.sort(null);
    return found;
  }

  /**
   * Every regular file below the set's directory, following symbolic links (CI checkouts and
   * scratch build folders are often links, and so are folders inside them); a link that leads
   * back to one of its own parents is reported instead of followed forever. A folder the user's
   * excludes remove whole ({@code sub/loop/**}) is not entered, so an excluded cycle is no error.
   */
  private List<Path> regularFiles(SourceSet set, AntPatterns excludes) throws IOException, BuildFailureException {
    List<Path> files = new ArrayList<>();
    List<Path> cycles = new ArrayList<>();
    Files.walkFileTree(set.directory(), EnumSet.of(FileVisitOption.FOLLOW_LINKS), Integer.MAX_VALUE,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path directory, BasicFileAttributes attributes) {
            if (directory.equals(set.directory())) {
              return FileVisitResult.CONTINUE;
            }
            boolean excluded = AntPatterns.DEFAULT_EXCLUDES.matches(directory.getFileName().toString())
                || excludedWhole(directory);
            return excluded ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
          }

          /**
           * Whether a file directly in the folder and one deeper down would both be excluded (NUL
           * is in no real name, so only a pattern that ends in ** matches both).
           */
          private boolean excludedWhole(Path directory) {
            String relative = relativePath(set.directory(), directory);
            return excludes.matches(relative + "/\0") && excludes.matches(relative + "/\0/\0");
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
            if (attributes.isRegularFile()) {
              files.add(file);
              seen.put(file, attributes);
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
          + relativePath(set.directory(), cycles.get(0)) + "/**</exclude>).");
    }
    return files;
  }

  /**
   * The walk resolves every file onto the set's directory, so its path starts with the directory's:
   * cutting that prefix off spares thousands of Path.relativize calls (costly, and so is compiling
   * them when they run hot).
   */
  private static String relativePath(Path root, Path file) {
    String prefix = root.toString().endsWith(java.io.File.separator) ? root.toString()
        : root + java.io.File.separator;
    String path = file.toString();
    String relative = path.startsWith(prefix) ? path.substring(prefix.length()) : root.relativize(file).toString();
    return relative.replace(java.io.File.separatorChar, '/');
  }

  private static String describe(SourceSet set) {
    return set.isHost() ? "<sources>" : "archive '" + set.unit() + "'";
  }
}
