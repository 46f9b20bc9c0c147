package io.github.kernelarchive.archive;

import io.github.kernelarchive.pipeline.Commands;
import io.github.kernelarchive.pipeline.Installed;
import io.github.kernelarchive.util.ContentHashes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Test helpers: real objects from gcc, and real tools run with their output checked. */
public final class NativeObjects {
  private NativeObjects() {}

  /** Compiles {@code source} with gcc into {@code object}. */
  public static Path compile(Path object, String source) throws Exception {
    Files.createDirectories(object.getParent());
    Path c = object.resolveSibling(object.getFileName() + ".src.c");
    Files.writeString(c, source);
    run(List.of("cc", "-c", "-fPIC", "-o", object.toString(), c.toString()), object.getParent());
    Files.delete(c);
    return object;
  }

  /** {@code count} objects, each defining {@code prefix_i}, named as {@code name(i)} says. */
  public static List<PlannedMember> members(Path dir, int count, java.util.function.IntFunction<String> name) throws Exception {
    List<PlannedMember> members = new ArrayList<>();
    ContentHashes hashes = new ContentHashes();
    for (int i = 0; i < count; i++) {
      Path object = compile(dir.resolve(name.apply(i)), "int member_" + i + "(void) { return " + i + "; }\nint shared_data_" + i + " = " + i + ";\n");
      members.add(new PlannedMember(object.getFileName().toString(), object, hashes.of(object).orElseThrow()));
    }
    return members;
  }

  /**
   * What the builder takes: each planned member's name and object, keyed as a compiled member is
   * (its planned hash stands for the compile key: a changed object changes its batch's key).
   */
  public static List<ArchiveBuilder.Input> inputs(List<PlannedMember> members) {
    return members.stream().map(m -> new ArchiveBuilder.Input(m.name(), m.object(), "object " + m.sha256())).toList();
  }

  public static String run(List<String> argv, Path dir) throws Exception {
    return Commands.run(argv, dir);
  }

  /** Whether {@code tool} is on the PATH; when not, says so with the package to install. */
  public static boolean installed(String tool) {
    boolean present = Installed.onPath(tool);
    if (!present) {
      System.out.println("SKIPPED: " + tool + " is not installed (" + Installed.howToInstall(tool) + "); tests that"
          + " need it are skipped");
    }
    return present;
  }
}
