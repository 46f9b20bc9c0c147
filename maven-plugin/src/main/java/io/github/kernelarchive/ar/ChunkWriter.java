package io.github.kernelarchive.ar;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Writes filled buffers at their positions in one file, from one thread of its own, while the
 * threads that fill them go on reading and hashing. One thread does every write because writes to
 * one file take its inode lock in turn: with two threads each writing its own part, async-profiler
 * put about a third of their CPU time in the kernel spinning on that lock (ext4,
 * {@code rwsem_spin_on_owner}), time the machine's other work then lacked. A fixed set of buffers
 * circulates between the fillers and the writer, so memory stays bounded and a filler waits when
 * the writer falls behind.
 */
final class ChunkWriter implements AutoCloseable {
  private record Chunk(ByteBuffer bytes, long position) {}

  private static final Chunk END = new Chunk(ByteBuffer.allocate(0), -1);

  private final FileChannel out;
  private final BlockingQueue<ByteBuffer> empty;
  private final BlockingQueue<Chunk> filled = new LinkedBlockingQueue<>();
  private final Thread thread;
  private volatile IOException failure;

  /**
   * @param buffers how many buffers circulate: two per filling thread let each fill one while the
   *     other is written
   * @param bufferSize bytes in each
   */
  ChunkWriter(FileChannel out, int buffers, int bufferSize) {
    this.out = out;
    this.empty = new ArrayBlockingQueue<>(buffers);
    for (int i = 0; i < buffers; i++) {
      // Direct: the file reads land in it and the writes leave from it with no copy through a
      // temporary buffer, which a heap buffer would cost on every read and write.
      empty.add(ByteBuffer.allocateDirect(bufferSize));
    }
    this.thread = new Thread(this::writeUntilEnd, "kernel-ar-writer");
    thread.setDaemon(true);
    thread.start();
  }

  /** An empty buffer to fill; waits while every buffer is full or being written. */
  ByteBuffer take() throws IOException {
    rethrow();
    try {
      return empty.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for the archive writer");
    }
  }

  /**
   * Hands {@code buffer}'s contents (from 0 to its position) over to be written at
   * {@code position}; returns the position just past them.
   */
  long submit(ByteBuffer buffer, long position) throws IOException {
    rethrow();
    buffer.flip();
    long end = position + buffer.remaining();
    filled.add(new Chunk(buffer, position));
    return end;
  }

  /** Waits until everything submitted is written; throws what a write threw. */
  @Override
  public void close() throws IOException {
    filled.add(END);
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for the archive writer");
    }
    rethrow();
  }

  private void rethrow() throws IOException {
    IOException thrown = failure;
    if (thrown != null) {
      throw new IOException(thrown.getMessage(), thrown);
    }
  }

  private void writeUntilEnd() {
    while (true) {
      Chunk chunk;
      try {
        chunk = filled.take();
      } catch (InterruptedException e) {
        failure = new InterruptedIOException("archive writer interrupted");
        return;
      }
      if (chunk == END) {
        return;
      }
      // After a failure, buffers still go back (so no filler waits forever) but nothing more is written.
      if (failure == null) {
        try {
          long position = chunk.position;
          while (chunk.bytes.hasRemaining()) {
            position += out.write(chunk.bytes, position);
          }
        } catch (IOException e) {
          failure = e;
        }
      }
      chunk.bytes.clear();
      empty.add(chunk.bytes);
    }
  }
}
