package io.github.kernelarchive.archive;

import java.nio.file.Path;
import java.util.List;

/**
 * What one read of an object file tells the archive stage.
 *
 * @param name the member name it is archived under
 * @param sha256 content hash: batch keys, the manifest and later validation of the cached archive
 * @param crc32c cheap checksum of the same bytes, rechecked while the object is copied into the
 *     archive, so a file that changes after inspection never lands under a stale hash
 * @param symbols what the archive index lists for it
 */
public record InspectedObject(String name, Path object, long size, String sha256, long crc32c,
    List<String> symbols) {
  public InspectedObject {
    symbols = List.copyOf(symbols);
  }
}
