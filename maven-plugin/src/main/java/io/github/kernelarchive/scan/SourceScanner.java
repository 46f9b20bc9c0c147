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
    if (!Files.isDirectory(set.directory())) {
      throw new BuildFailureException("Source directory " + set.directory() + " of "
          + describe(set) + " does not exist. Create it or fix <directory> in the plugin configuration.");
    }
    List<AntPattern> includes = set.includes().stream().map(AntPattern::new).toList();
    List<AntPattern> excludes = set.excludes().stream().map(AntPattern::new).toList();
    List<SourceFile> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(set.directory())) {
      for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
        String relative = relativePath(set.directory(), file);
        Optional<Language> language = Language.ofFileName(file.getFileName().toString());
        boolean included = includes.isEmpty() ? language.isPresent() : anyMatch(includes, relative);
        if (!included || anyMatch(excludes, relative)) {
          continue;
        }
        if (language.isEmpty()) {
          throw new BuildFailureException("Included file " + file + " has no known source extension"
              + " (.c, .cc, .cpp, .cxx, .cu, .hip). Narrow the <includes> of " + describe(set) + ".");
        }
        found.add(new SourceFile(set.unit(), set.directory(), relative, language.get()));
      }
    }
    found.sort((a, b) -> a.relativePath().compareTo(b.relativePath()));
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
