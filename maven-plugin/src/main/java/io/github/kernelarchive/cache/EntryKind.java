package io.github.kernelarchive.cache;

/**
 * The kinds of entry one cache holds, each under its own folder (locally and on the remote), so
 * keys of different kinds never meet. An entry is always one payload file and one manifest.
 */
public enum EntryKind {
  /** A validated {@code lib<name>.a}, keyed by the archive key (its members' input keys). */
  ARCHIVE("archives", "archive.a"),
  /** One compiled object, keyed by its compile key (compiler, command line, source content). */
  OBJECT("objects", "object.o"),
  /** One thin {@code ar} batch (member paths relative to the batch), keyed by its batch key. */
  BATCH("batches", "batch.a");

  private final String folder;
  private final String payloadName;

  EntryKind(String folder, String payloadName) {
    this.folder = folder;
    this.payloadName = payloadName;
  }

  /** The folder of this kind, in the local cache and in the remote's URL space. */
  public String folder() {
    return folder;
  }

  String payloadName() {
    return payloadName;
  }
}
