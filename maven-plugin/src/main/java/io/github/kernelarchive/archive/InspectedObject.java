package io.github.kernelarchive.archive;

import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

/**
 * An object as it went into an archive.
 *
 * @param name the member name it is archived under
 * @param modified the object file's modification time when it was inspected (its hash is kept for
 *     the next build while size and time still match)
 * @param sha256 hash of the bytes archived: batch keys, the manifest and later validation of the
 *     cached archive
 * @param symbols what the archive index lists for it
 * @param strongDefinitions the symbols it defines strongly (for the duplicate check before the link)
 */
public record InspectedObject(String name, Path object, long size, FileTime modified, String sha256,
    List<String> symbols, List<String> strongDefinitions) {
  public InspectedObject {
    symbols = List.copyOf(symbols);
    strongDefinitions = List.copyOf(strongDefinitions);
  }
}
