package io.github.kernelarchive.nativejar;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.elf.VersionFloor;
import io.github.kernelarchive.jarfile.JarWriter;
import io.github.kernelarchive.util.Hashing;
import io.github.kernelarchive.util.NeededPaths;
import io.github.kernelarchive.util.ProjectTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A jar that carries the library to Java: {@code META-INF/native/<platform>/} holds
 * {@code lib<name>.so}, the libraries it NEEDs from its own folder (kernel dependencies linked
 * shared), nothing else, and {@code <name>.index} (file names, SHA-256, SONAME, glibc floor, CUDA
 * runtime, load order), which kernel-archive-runtime's {@code KernelLibrary} reads;
 * {@code META-INF/native/<name>.platforms} lists the platforms, so a jar without this one can say
 * which it holds; {@code META-INF/native/include/} carries the public headers and the index the
 * exports, for the Java bindings generator.
 */
public final class NativeJarBuilder {
  /** The index format kernel-archive-runtime reads. */
  public static final int INDEX_FORMAT = 1;

  /** @param loadOrder file names, dependencies first; @param glibc the floor, empty without a GLIBC need */
  public record Result(Path jar, List<String> loadOrder, String glibc) {}

  private NativeJarBuilder() {}

  public static Result build(NativeJarRequest request) throws BuildFailureException, IOException {
    Content content = content(request);
    JarWriter.write(request.jar(), content.entries(), request.time(), request.createdBy());
    return content.result();
  }

  /**
   * The jar's content as files under {@code classes} instead ({@link JarContentFolder}): what a
   * module of the same reactor gets for the jar before the package phase makes it.
   */
  public static Result layOut(NativeJarRequest request, Path classes) throws BuildFailureException, IOException {
    Content content = content(request);
    JarContentFolder.write(classes, request.name(), request.platform(), content.entries(), content.libraries());
    return content.result();
  }

  /** @param libraries the library files among the entries, by entry name */
  private record Content(List<JarWriter.Entry> entries, Map<String, Path> libraries, Result result) {}

  private static Content content(NativeJarRequest request) throws BuildFailureException, IOException {
    ElfObject library = ElfObject.read(request.library());
    Path folder = request.library().getParent();
    String fileName = request.library().getFileName().toString();
    List<String> loadOrder = new ArrayList<>();
    for (ElfObject.DynamicEntry entry : library.dynamicEntries()) {
      if (entry.tag() == ElfObject.DT_NEEDED) {
        NeededPaths.requireName(fileName, entry.value(), "jar");
        if (Files.isRegularFile(folder.resolve(entry.value()))) {
          loadOrder.add(entry.value());
        }
      } else if (entry.tag() == ElfObject.DT_RPATH || entry.tag() == ElfObject.DT_RUNPATH) {
        requireOwnFolder(fileName, entry);
      }
    }
    loadOrder.add(fileName);
    String glibc = VersionFloor.of(library).stream().filter(f -> f.family().equals("GLIBC")).map(VersionFloor::version)
        .findFirst().orElse("");
    if (!request.glibcTarget().isEmpty() && VersionFloor.VERSION_ORDER.compare(glibc.isEmpty() ? "0" : glibc,
        request.glibcTarget()) < 0) {
      glibc = request.glibcTarget(); // checked against the target, not against anything older
    }
    String base = "META-INF/native/" + request.platform() + "/";
    TreeMap<String, String> index = new TreeMap<>();
    index.put("format", String.valueOf(INDEX_FORMAT));
    index.put("library", request.name());
    index.put("platform", request.platform());
    index.put("glibc", glibc);
    index.put("cuda", request.cudaRuntime());
    index.put("exports", String.join(",", request.exports()));
    index.put("load", String.join(" ", loadOrder));
    List<JarWriter.Entry> entries = new ArrayList<>();
    Map<String, Path> libraries = new TreeMap<>();
    for (String file : loadOrder) {
      Path path = folder.resolve(file);
      index.put("sha256." + file, Hashing.ofFile(path));
      index.put("soname." + file, soname(path.equals(request.library()) ? library : ElfObject.read(path), file));
      entries.add(JarWriter.Entry.of(base + file, path, true));
      libraries.put(base + file, path);
    }
    StringBuilder text = new StringBuilder("# kernel-archive native index: what kernel-archive-runtime loads\n");
    index.forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
    entries.add(JarWriter.Entry.text(base + request.name() + ".index", text.toString()));
    entries.add(JarWriter.Entry.text("META-INF/native/" + request.name() + ".platforms", request.platform() + "\n"));
    if (request.headers() != null) {
      ProjectTree.files(request.headers(), request.project(), "META-INF/native/include/", "jar", p -> false)
          .forEach((name, header) -> entries.add(JarWriter.Entry.of(name, header, false)));
    }
    return new Content(entries, libraries, new Result(request.jar(), loadOrder, glibc));
  }

  /**
   * The jar's files are extracted into one folder of their own, so the only search path that
   * reaches them is {@code $ORIGIN}; any other names a folder of the build machine (or above the
   * extracted one), which on a user's machine may hold anything.
   */
  private static void requireOwnFolder(String library, ElfObject.DynamicEntry entry) throws BuildFailureException {
    for (String folder : entry.value().split(":")) {
      if (!folder.equals("$ORIGIN") && !folder.equals("${ORIGIN}")) {
        throw new BuildFailureException(library + " has " + (entry.tag() == ElfObject.DT_RPATH ? "RPATH" : "RUNPATH")
            + " entry '" + folder + "', a folder outside the jar's: on a user's machine the loader would search it"
            + " for the libraries " + library + " needs. Link without it (a -Wl,-rpath in <linkFlags>), ship the"
            + " library it was for beside " + library + " in the jar, or declare it as a <dependency> with"
            + " <linkage>stub</linkage>.");
      }
    }
  }

  private static String soname(ElfObject elf, String fallback) {
    return elf.dynamicEntries().stream().filter(e -> e.tag() == ElfObject.DT_SONAME).map(ElfObject.DynamicEntry::value)
        .findFirst().orElse(fallback);
  }
}
