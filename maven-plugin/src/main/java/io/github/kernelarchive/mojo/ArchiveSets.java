package io.github.kernelarchive.mojo;

import io.github.kernelarchive.scan.SourceSet;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.maven.plugin.MojoFailureException;

/**
 * The pom's {@code <archives>} as the engine takes them: a source set and/or an object set per
 * archive, and the names in declaration order. Each is checked first, and a bad one is named as
 * the user can find it in the pom: by its {@code <name>}, or, where that is missing, by its
 * position and first directory.
 */
final class ArchiveSets {
  /** @param names every archive, in declaration order */
  record Result(List<SourceSet> sources, List<SourceSet> objects, List<String> names) {}

  private ArchiveSets() {}

  static Result of(List<ArchiveConfig> archives, Path basedir) throws MojoFailureException {
    List<SourceSet> sources = new ArrayList<>();
    List<SourceSet> objects = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < archives.size(); i++) {
      ArchiveConfig archive = archives.get(i);
      if (archive.name == null || !archive.name.matches("[A-Za-z0-9_.+-]+")) {
        throw new MojoFailureException(unnamed(archive, i + 1, basedir) + (archive.name == null
            ? " has no <name>" : " has the <name> '" + archive.name + "'") + ": every <archive> needs a <name> of"
            + " letters, digits, '_', '.', '+' or '-' (it becomes lib<name>.a).");
      }
      if (names.contains(archive.name)) {
        throw new MojoFailureException("Two <archive> elements are named '" + archive.name + "' (the "
            + ordinal(names.indexOf(archive.name) + 1) + " and the " + ordinal(i + 1) + "). Rename one.");
      }
      if (archive.sources == null && archive.objects == null) {
        throw new MojoFailureException("<archive> '" + archive.name + "' has neither <sources> nor <objects>.");
      }
      names.add(archive.name);
      if (archive.sources != null) {
        sources.add(archive.sources.toSourceSet(archive.name, "<archive> '" + archive.name + "' <sources>"));
      }
      if (archive.objects != null) {
        objects.add(archive.objects.toSourceSet(archive.name, "<archive> '" + archive.name + "' <objects>"));
      }
    }
    return new Result(sources, objects, names);
  }

  /** {@code The 2nd <archive> (sources in src/main/kernels/bwd)}. */
  private static String unnamed(ArchiveConfig archive, int position, Path basedir) {
    SourcesConfig first = archive.sources != null ? archive.sources : archive.objects;
    File directory = first == null ? null : first.directory;
    String where = directory == null ? "" : " (" + (archive.sources != null ? "sources" : "objects") + " in "
        + relative(directory.toPath(), basedir) + ")";
    return "The " + ordinal(position) + " <archive>" + where;
  }

  private static String relative(Path directory, Path basedir) {
    Path absolute = directory.toAbsolutePath().normalize();
    return absolute.startsWith(basedir) ? basedir.relativize(absolute).toString() : absolute.toString();
  }

  private static String ordinal(int n) {
    String suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : switch (n % 10) {
      case 1 -> "st";
      case 2 -> "nd";
      case 3 -> "rd";
      default -> "th";
    };
    return n + suffix;
  }
}
