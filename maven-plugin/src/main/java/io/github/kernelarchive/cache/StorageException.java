package io.github.kernelarchive.cache;

/** A store failed; the store has reported it already, and the build goes on without it. */
public final class StorageException extends Exception {
  public StorageException(String message) {
    super(message);
  }

  public StorageException(String message, Throwable cause) {
    super(message, cause);
  }
}
