package io.github.kernelarchive.archive;

import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
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
   * @param seen how the object looked when the build found it (its size and time, before any
   *     read); {@code null}: not looked at yet
   */
  public record Member(String name, Path object, String inputKey, BasicFileAttributes seen) {
    public Member(String name, Path object, String inputKey) {
      this(name, object, inputKey, null);
    }

    /** A prebuilt object ({@code <objects>}), named by its file name, not looked at yet (bench/archive). */
    public static Member prebuilt(Path object) {
      return prebuilt(object.getFileName().toString(), object, null);
    }

    /** A prebuilt object ({@code <objects>}) named {@code name} (its file name), as the scan saw it. */
    public static Member prebuilt(String name, Path object, BasicFileAttributes seen) {
      return new Member(name, object, null, seen);
    }

    public boolean keyedByContent() {
      return inputKey == null;
    }
  }

  public ArchiveRequest {
    members = List.copyOf(members);
  }
}
