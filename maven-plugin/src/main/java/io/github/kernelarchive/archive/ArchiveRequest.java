package io.github.kernelarchive.archive;

import java.nio.file.Path;
import java.util.List;

/**
 * An archive to produce: its name and its members in order.
 *
 * @param members compiled objects first (sorted by source path), then prebuilt objects
 */
public record ArchiveRequest(String name, List<Member> members) {

  /**
   * @param name the member name (the object's file name)
   * @param object where the object is (or will be, once compiled)
   * @param inputKey what the object is made from: its compile key; {@code null} for a prebuilt
   *     object, keyed by its content, which is hashed only when the key is needed
   */
  public record Member(String name, Path object, String inputKey) {
    /** A prebuilt object ({@code <objects>}), named by its file name. */
    public static Member prebuilt(Path object) {
      return new Member(object.getFileName().toString(), object, null);
    }

    public boolean keyedByContent() {
      return inputKey == null;
    }
  }

  public ArchiveRequest {
    members = List.copyOf(members);
  }
}
