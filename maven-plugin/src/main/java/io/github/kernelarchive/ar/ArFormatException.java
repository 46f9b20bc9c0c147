package io.github.kernelarchive.ar;

/** An archive that is not a well-formed System V/GNU {@code ar} file; the message says where. */
public class ArFormatException extends Exception {
  public ArFormatException(String message) {
    super(message);
  }
}
