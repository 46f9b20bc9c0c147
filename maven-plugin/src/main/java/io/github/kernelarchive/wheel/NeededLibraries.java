package io.github.kernelarchive.wheel;

import io.github.kernelarchive.elf.ElfObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a linked library needs and where the link found it: its NEEDED entries, and its RPATH or
 * RUNPATH folders ({@code $ORIGIN} read as the library's own folder) to look each one up in.
 */
record NeededLibraries(Path library, List<String> needed, List<Path> searchPath) {
  static NeededLibraries of(Path library, ElfObject elf) {
    String origin = library.toAbsolutePath().getParent().toString();
    List<String> needed = new ArrayList<>();
    List<Path> searchPath = new ArrayList<>();
    for (ElfObject.DynamicEntry entry : elf.dynamicEntries()) {
      if (entry.tag() == ElfObject.DT_NEEDED) {
        needed.add(entry.value());
      } else if (entry.tag() == ElfObject.DT_RPATH || entry.tag() == ElfObject.DT_RUNPATH) {
        for (String dir : entry.value().split(":")) {
          if (!dir.isEmpty()) {
            searchPath.add(Path.of(dir.replace("${ORIGIN}", origin).replace("$ORIGIN", origin)));
          }
        }
      }
    }
    return new NeededLibraries(library, List.copyOf(needed), List.copyOf(searchPath));
  }

  /** The file the library loads for {@code soname} from its own search path, if there is one. */
  Optional<Path> locate(String soname) {
    return searchPath.stream().map(d -> d.resolve(soname)).filter(Files::isRegularFile).findFirst();
  }
}
