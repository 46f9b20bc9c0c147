package io.github.kernelarchive.archive;

import java.nio.file.Path;

/** An archive failed validation; the message names the archive and the problem. */
public class ArchiveInvalidException extends Exception {
  private final String problem;

  public ArchiveInvalidException(Path archive, String problem) {
    super(archive + ": " + problem);
    this.problem = problem;
  }

  public String problem() {
    return problem;
  }
}
