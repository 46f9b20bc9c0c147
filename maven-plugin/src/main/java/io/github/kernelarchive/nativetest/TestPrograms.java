package io.github.kernelarchive.nativetest;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.scan.SourceFile;
import io.github.kernelarchive.scan.SourceScanner;
import io.github.kernelarchive.scan.SourceSet;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The test programs of a folder: every source directly in it is a program with its own
 * {@code main}; the sources under its {@code support/} folder are compiled into every program.
 *
 * @param programs in name order
 * @param support shared by every program
 */
public record TestPrograms(List<TestProgram> programs, List<SourceFile> support) {
  /** The object unit of test programs, apart from the library's host sources and archives. */
  static final String UNIT = "test";
  static final String SUPPORT_UNIT = "test-support";
  static final String SUPPORT_FOLDER = "support";

  /** No test folder: nothing to build or run. */
  public static TestPrograms none() {
    return new TestPrograms(List.of(), List.of());
  }

  /**
   * The programs of {@code folder}.
   *
   * @throws BuildFailureException two programs with one name
   */
  public static TestPrograms scan(Path folder) throws IOException, BuildFailureException {
    if (!Files.isDirectory(folder)) {
      return none();
    }
    Map<String, TestProgram> byName = new LinkedHashMap<>();
    List<Path> files;
    try (Stream<Path> listed = Files.list(folder)) {
      files = listed.filter(Files::isRegularFile).sorted().toList();
    }
    for (Path file : files) {
      String fileName = file.getFileName().toString();
      Optional<Language> language = Language.ofFileName(fileName);
      if (language.isEmpty()) {
        continue;
      }
      String name = fileName.substring(0, fileName.lastIndexOf('.'));
      TestProgram program = new TestProgram(name, new SourceFile(UNIT, folder, fileName, language.get()));
      TestProgram clash = byName.putIfAbsent(name, program);
      if (clash != null) {
        throw new BuildFailureException("Test programs " + folder.resolve(clash.main().relativePath()) + " and "
            + file + " would both be named '" + name + "'. Rename one of them.");
      }
    }
    List<TestProgram> programs = new ArrayList<>(byName.values());
    Path supportFolder = folder.resolve(SUPPORT_FOLDER);
    List<SourceFile> support = Files.isDirectory(supportFolder)
        ? new SourceScanner().scan(new SourceSet(SUPPORT_UNIT, supportFolder, List.of(), List.of()))
        : List.of();
    return new TestPrograms(programs, support);
  }

  /**
   * The programs whose name matches {@code filter} ({@code *} and {@code ?} as in a file name glob;
   * {@code null}: all). Every program is still built: the next run may want the others.
   *
   * @throws BuildFailureException a filter that matches none
   */
  public List<TestProgram> select(String filter, Path folder) throws BuildFailureException {
    if (filter == null || filter.isBlank()) {
      return programs;
    }
    PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + filter.trim());
    List<TestProgram> selected = programs.stream().filter(p -> matcher.matches(Path.of(p.name()))).toList();
    if (selected.isEmpty()) {
      throw new BuildFailureException("kernel.test=" + filter + " matches none of the test programs in " + folder
          + " (" + String.join(", ", programs.stream().map(TestProgram::name).toList())
          + "). Give a program name or a glob such as 'test_*'.");
    }
    return selected;
  }

  /** Every source to compile: the programs' and the support sources. */
  public List<SourceFile> sources() {
    List<SourceFile> all = new ArrayList<>(support);
    programs.forEach(p -> all.add(p.main()));
    return all;
  }
}
