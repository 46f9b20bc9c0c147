package io.github.kernelarchive.scan;

import io.github.kernelarchive.build.BuildFailureException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds the sources of a {@link SourceSet}. The order is the sorted relative path, so plans,
 * object lists and archives come out the same on every machine.
 */
public final class SourceScanner {

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
    List<AntPattern> includes = set.includes().stream().map(AntPattern::new).toList();
    List<AntPattern> excludes = set.excludes().stream().map(AntPattern::new).toList();
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(set.directory())) {
      for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        String relative = relativePath(set.directory(), file);
        boolean included = includes.isEmpty() ? byDefault.test(file.getFileName().toString()) : anyMatch(includes, relative);
        if (included && !anyMatch(excludes, relative)) {
          found.add(relative);
        }
      }
    }
    found.sort(null);
    return found;
  }

  private static String relativePath(Path root, Path file) {
    return root.relativize(file).toString().replace(java.io.File.separatorChar, '/');
  }

  private static boolean anyMatch(List<AntPattern> patterns, String relative) {
    for (AntPattern pattern : patterns) {
      if (pattern.matches(relative)) {
        return true;
      }
    }
    return false;
  }

  private static String describe(SourceSet set) {
    return set.isHost() ? "<sources>" : "archive '" + set.unit() + "'";
  }
}
