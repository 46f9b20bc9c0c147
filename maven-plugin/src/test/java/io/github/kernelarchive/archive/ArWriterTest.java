package io.github.kernelarchive.archive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.util.Hashing;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The archive writer: members copied by several threads land where one thread puts them. */
class ArWriterTest {
  @TempDir Path dir;

  /** Odd and even sizes, empty, and members larger than the writer's 1 MiB buffer. */
  private List<ArWriter.Entry> entries() throws Exception {
    int[] sizes = {0, 1, 2, 3, (1 << 20) - 61, 1 << 20, (2 << 20) + 7, 59, 60, 61};
    Random random = new Random(7);
    List<ArWriter.Entry> entries = new ArrayList<>();
    for (int i = 0; i < sizes.length * 3; i++) {
      byte[] content = new byte[sizes[i % sizes.length]];
      random.nextBytes(content);
      Path file = Files.write(dir.resolve("m" + i + ".bin"), content);
      String name = i % 4 == 0 ? "a-member-name-longer-than-sixteen-" + i + ".o" : "m" + i + ".o";
      // Every third member comes from memory, as small objects do after inspection.
      entries.add(new ArWriter.Entry(name, content.length, List.of("symbol_" + i), i % 3 == 2
          ? new ArWriter.InMemory(content) : new ArWriter.FileRange(file, 0)));
    }
    return entries;
  }

  @Test
  void membersWrittenInParallelGiveTheSameBytes() throws Exception {
    List<ArWriter.Entry> entries = entries();
    Path serial = dir.resolve("serial.a");
    Path parallel = dir.resolve("parallel.a");
    ArWriter.Written serialWrite = ArWriter.write(serial, entries, 1);
    ArWriter.Written parallelWrite = ArWriter.write(parallel, entries, 3);
    List<String> parallelHashes = parallelWrite.hashes();
    assertArrayEquals(Files.readAllBytes(serial), Files.readAllBytes(parallel));
    assertEquals(serialWrite, parallelWrite);
    // The digest the writer takes from what it wrote is the one read from the file (as a cache
    // entry's is checked), and it covers the headers: renaming one member changes it.
    assertEquals(ArchiveDigest.of(parallel, parallelHashes), parallelWrite.digest());
    List<ArWriter.Entry> renamed = new ArrayList<>(entries);
    ArWriter.Entry first = renamed.get(1);
    renamed.set(1, new ArWriter.Entry("renamed.o", first.size(), first.symbols(), first.content()));
    ArWriter.Written renamedWrite = ArWriter.write(dir.resolve("renamed.a"), renamed, 2);
    assertEquals(parallelHashes, renamedWrite.hashes());
    assertEquals(ArchiveDigest.of(dir.resolve("renamed.a"), parallelHashes), renamedWrite.digest());
    assertTrue(!renamedWrite.digest().equals(parallelWrite.digest()), "the digest covers member names");

    ArReader.Contents contents = ArReader.read(parallel);
    assertEquals(entries.stream().map(ArWriter.Entry::name).toList(),
        contents.members().stream().map(ArMember::name).toList());
    try (FileChannel channel = FileChannel.open(parallel, StandardOpenOption.READ)) {
      for (int i = 0; i < entries.size(); i++) {
        ByteBuffer member = ArReader.map(channel, contents.members().get(i));
        byte[] bytes = new byte[member.remaining()];
        member.get(bytes);
        assertTrue(Arrays.equals(Files.readAllBytes(dir.resolve("m" + i + ".bin")), bytes), "member " + i);
        assertEquals(Hashing.of(bytes), parallelHashes.get(i), "hash of member " + i);
      }
    }
    // GNU ar reads it too, every member in order.
    assertEquals(entries.stream().map(ArWriter.Entry::name).toList(),
        NativeObjects.run(List.of("ar", "t", parallel.toString()), dir).lines().toList());
  }

  @Test
  void eachHashIsOfTheBytesWrittenAndAShortenedSourceFailsTheWrite() throws Exception {
    List<ArWriter.Entry> entries = new ArrayList<>(entries());
    ArWriter.Entry fromFile = entries.get(4); // read from its file, nearly 1 MiB
    Path source = ((ArWriter.FileRange) fromFile.content()).file();
    byte[] edited = Files.readAllBytes(source);
    edited[edited.length / 2] ^= 1; // same size, other bytes: the hash follows what is written
    Files.write(source, edited);
    List<String> hashes = ArWriter.write(dir.resolve("changed.a"), entries, 2).hashes();
    assertEquals(Hashing.of(edited), hashes.get(4));

    Files.write(source, Arrays.copyOf(edited, edited.length / 2)); // now shorter
    ArWriter.SourceChangedException e = assertThrows(ArWriter.SourceChangedException.class,
        () -> ArWriter.write(dir.resolve("short.a"), entries, 2));
    assertTrue(e.getMessage().contains(source + " ended before member '" + fromFile.name() + "'"), e.getMessage());
  }
}
