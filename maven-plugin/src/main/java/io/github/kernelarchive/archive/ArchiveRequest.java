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
   * @param inputKey what the object is made from: its compile key, or its content for prebuilt objects
   */
  public record Member(String name, Path object, String inputKey) {}

  public ArchiveRequest {
    members = List.copyOf(members);
  }
}
