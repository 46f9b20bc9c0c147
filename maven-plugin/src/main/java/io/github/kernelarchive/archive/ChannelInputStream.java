package io.github.kernelarchive.archive;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * An input stream over a file channel for Commons Compress's archive reader: reads go through a
 * small buffer, and a member's content is passed over without reading it, so listing the members
 * of a 300 MB archive reads its headers only. Skipping alone would not do that: Commons Compress
 * skips a member with commons-io's {@code IOUtils.skip}, which reads the bytes into a scratch
 * buffer (it never calls {@link #skip}), so the reader marks each member's content with
 * {@link #passOver} and reads inside it only move the position. Reads are positional and leave the
 * channel's own position alone.
 */
final class ChannelInputStream extends InputStream {
  /** A failure of the file itself, told apart from the reader's complaints about the format. */
  static final class ReadFailure extends IOException {
    ReadFailure(IOException cause) {
      super(cause.getMessage(), cause);
    }
  }

  private final FileChannel channel;
  private final long size;
  private final ByteBuffer buffer = ByteBuffer.allocate(8 << 10).limit(0);
  private long position; // of the buffer's next byte in the file
  private final byte[] one = new byte[1];
  private long passFrom;
  private long passTo; // [passFrom, passTo): content nobody looks at

  ChannelInputStream(FileChannel channel, long size) {
    this.channel = channel;
    this.size = size;
  }

  @Override
  public int read() throws IOException {
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] into, int offset, int length) throws IOException {
    if (length == 0) {
      return 0;
    }
    if (position >= passFrom && position < passTo) {
      // Only ever read to be thrown away: count it, leave the caller's array as it is.
      long passed = skip(Math.min(length, passTo - position));
      return passed == 0 ? -1 : (int) passed;
    }
    if (!buffer.hasRemaining() && !fill()) {
      return -1;
    }
    int n = Math.min(length, buffer.remaining());
    buffer.get(into, offset, n);
    position += n;
    return n;
  }

  /**
   * Declares {@code length} bytes from {@code from} to be content the caller will not look at
   * through this stream: reads there return their count without reading the file.
   */
  void passOver(long from, long length) {
    passFrom = from;
    passTo = from + length;
  }

  @Override
  public long skip(long count) {
    long skipped = Math.max(0, Math.min(count, size - position));
    if (skipped <= buffer.remaining()) {
      buffer.position(buffer.position() + (int) skipped);
    } else {
      buffer.limit(0);
    }
    position += skipped;
    return skipped;
  }

  private boolean fill() throws IOException {
    if (position >= size) {
      return false;
    }
    buffer.clear().limit((int) Math.min(buffer.capacity(), size - position));
    try {
      while (buffer.hasRemaining()) {
        if (channel.read(buffer, position + buffer.position()) < 0) {
          break; // shorter than when it was opened: what is there is all there is
        }
      }
    } catch (IOException e) {
      throw new ReadFailure(e);
    }
    buffer.flip();
    return buffer.hasRemaining();
  }
}
