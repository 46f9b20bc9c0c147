package io.github.kernelarchive.scan;

import io.github.kernelarchive.common.BuildFailureException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

/**
 * Finds the sources of a {@link SourceSet}. The order is the sorted relative path, so plans,
 * object lists and archives come out the same on every machine. Maven's default excludes
 * (version-control folders such as {@code .git}, editor backups and locks such as {@code k.cu~}
 * and {@code .#k.cu}) are never selected, as in Maven's own plugins; their folders are not walked.
 */
public final class SourceScanner {
  /** Every regular file walked, as it was looked at: later stages need not look again. */
  private final Map<Path, BasicFileAttributes> seen = new ConcurrentHashMap<>();

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
    // On all cores: tens of thousands of prebuilt objects are matched against the patterns.
    List<String> found = regularFiles(set, excludes).parallelStream().map(file -> {
      String relative = relativePath(set.directory(), file);
      boolean included = includes.isEmpty() ? byDefault.test(file.getFileName().toString()) : includes.matches(relative);
      // Default excludes are all "**/name" or "**/name/**": folders were pruned, the file's name is enough.
      return included && !excludes.matches(relative)
          && !AntPatterns.DEFAULT_EXCLUDES.matches(file.getFileName().toString()) ? relative : null;
    }).filter(Objects::nonNull).sorted().toList();
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
    BasicFileAttributes root = Files.readAttributes(set.directory(), BasicFileAttributes.class);
    walk(set, excludes, set.directory(), new ArrayList<>(List.of(folderKey(set.directory(), root))), files, cycles);
    if (!cycles.isEmpty()) {
      throw new BuildFailureException("Symbolic link " + cycles.get(0) + " below " + set.directory() + " of "
          + describe(set) + " leads back to one of its own parent folders (a cycle). Remove the link or exclude"
          + " its folder whole with an <exclude> pattern ending in /** (e.g. <exclude>"
          + relativePath(set.directory(), cycles.get(0)) + "/**</exclude>).");
    }
    return files;
  }

  /**
   * One folder: its entries listed, then looked at (following links) on all cores, since a stat
   * per file is most of a scan's time (50,000 objects: 0.11 s on one core); then its folders, in
   * turn. {@code ancestors}: the keys of the folders on the way here, to tell a cycle.
   */
  private void walk(SourceSet set, AntPatterns excludes, Path folder, List<Object> ancestors, List<Path> files,
      List<Path> cycles) throws IOException {
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> listing = Files.newDirectoryStream(folder)) {
      listing.forEach(entries::add);
    }
    Object[] looks = new Object[entries.size()];
    IntStream.range(0, entries.size()).parallel().forEach(i -> {
      try {
        looks[i] = Files.readAttributes(entries.get(i), BasicFileAttributes.class);
      } catch (IOException e) {
        looks[i] = e;
      }
    });
    for (int i = 0; i < entries.size(); i++) {
      Path entry = entries.get(i);
      if (looks[i] instanceof IOException failure) {
        if (Files.isSymbolicLink(entry) && !Files.exists(entry)) {
          continue; // a dangling link selects nothing, as a missing file would not
        }
        throw failure;
      }
      BasicFileAttributes attributes = (BasicFileAttributes) looks[i];
      if (attributes.isRegularFile()) {
        files.add(entry);
        seen.put(entry, attributes);
      } else if (attributes.isDirectory()) {
        if (AntPatterns.DEFAULT_EXCLUDES.matches(entry.getFileName().toString()) || excludedWhole(set, excludes, entry)) {
          continue;
        }
        Object key = folderKey(entry, attributes);
        if (ancestors.contains(key)) {
          cycles.add(entry);
          continue;
        }
        ancestors.add(key);
        walk(set, excludes, entry, ancestors, files, cycles);
        ancestors.remove(ancestors.size() - 1);
      }
    }
  }

  /** What tells a folder from every other: its device and inode, else (where the file system gives none) its real path. */
  private static Object folderKey(Path folder, BasicFileAttributes attributes) throws IOException {
    return attributes.fileKey() != null ? attributes.fileKey() : folder.toRealPath();
  }

  /**
   * Whether a file directly in the folder and one deeper down would both be excluded (NUL is in
   * no real name, so only a pattern that ends in ** matches both).
   */
  private static boolean excludedWhole(SourceSet set, AntPatterns excludes, Path folder) {
    String relative = relativePath(set.directory(), folder);
    return excludes.matches(relative + "/\0") && excludes.matches(relative + "/\0/\0");
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
