package io.github.kernelarchive.ar;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Small reads from one file through an 8 KiB window: reading the 5,000 member headers of an
 * archive of small objects, or of a thin batch, costs a few hundred reads instead of 5,000, while
 * for large members (headers far apart) each header costs one 8 KiB read instead of 60 bytes. A
 * returned slice is valid until the next call.
 */
final class FileWindow {
  static final int SIZE = 8 << 10;

  private final FileChannel channel;
  private final long fileSize;
  private final ByteBuffer window = ByteBuffer.allocate(SIZE);
  private long start = -1;

  FileWindow(FileChannel channel, long fileSize) {
    this.channel = channel;
    this.fileSize = fileSize;
  }

  /** {@code length} (at most {@link #SIZE}) bytes at {@code position}, which must lie within the file. */
  ByteBuffer read(long position, int length) throws IOException {
    if (length > SIZE || position < 0 || position + length > fileSize) {
      throw new IllegalArgumentException("read of " + length + " bytes at " + position + " outside the window's reach");
    }
    if (start < 0 || position < start || position + length > start + window.limit()) {
      window.clear().limit((int) Math.min(SIZE, fileSize - position));
      while (window.hasRemaining()) {
        if (channel.read(window, position + window.position()) < 0) {
          throw new IOException("file shrank while it was read");
        }
      }
      start = position;
    }
    return window.slice((int) (position - start), length);
  }
}
