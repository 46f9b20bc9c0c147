package io.github.kernelarchive.bundle;

import io.github.kernelarchive.ar.ArWriter;
import io.github.kernelarchive.elf.ElfFormatException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.util.AtomicFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The host objects of a library as one more static archive ({@code lib<library>-host.a}), so a
 * bundle carries everything its library is made of: a consumer links the host glue (the API) and
 * the kernel archives privately, as the producer did.
 */
public final class HostArchive {
  private HostArchive() {}

  public static String fileName(String library) {
    return "lib" + library + "-host.a";
  }

  /** Writes the archive of {@code objects} to {@code target} (temporary name, then rename). */
  public static void write(Path target, List<Path> objects) throws IOException {
    List<ArWriter.Entry> entries = new ArrayList<>();
    for (Path object : objects) {
      entries.add(new ArWriter.Entry(object.getFileName().toString(), object, Files.size(object)));
    }
    Path temporary = AtomicFiles.temporarySibling(target);
    try {
      ArWriter.write(temporary, entries, 1, (member, bytes) -> {
        try {
          return ElfObject.parse(bytes).definedExternalSymbols();
        } catch (ElfFormatException e) {
          throw new ArWriter.RejectedMember(member, objects.get(member) + " is not an object: " + e.getMessage());
        }
      });
      AtomicFiles.publish(temporary, target);
    } catch (ArWriter.RejectedMember e) {
      throw new IOException(e.getMessage(), e);
    } finally {
      Files.deleteIfExists(temporary);
    }
  }
}
