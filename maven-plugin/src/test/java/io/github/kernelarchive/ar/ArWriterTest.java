package io.github.kernelarchive.ar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.archive.NativeObjects;
import io.github.kernelarchive.elf.ElfFormatException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.util.Hashing;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
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
      entries.add(new ArWriter.Entry(name, file, 0, content.length, List.of("symbol_" + i)));
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

  /**
   * A batch that holds its members is mapped while they are read: cut short by another process
   * meanwhile, the member being read fails the write with the batch's name, whether that happens
   * while the index's room is sized (the first call) or while members are copied (after the
   * sample), rather than as the JVM's fault on the vanished pages.
   */
  @Test
  void aBatchCutShortWhileItIsReadFailsTheWriteNamingIt() throws Exception {
    int count = ArWriter.SAMPLE + 8;
    List<ArWriter.Entry> plain = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Path file = Files.write(dir.resolve("k" + i + ".o"), new byte[8192 + i]); // past the first page
      plain.add(new ArWriter.Entry("k" + i + ".o", file, 0, 8192 + i, List.of()));
    }
    for (int truncatedAtCall : new int[] {1, ArWriter.SAMPLE + 1}) {
      Path batch = dir.resolve("batch-" + truncatedAtCall + ".a");
      ArWriter.write(batch, plain);
      List<ArWriter.Entry> fromBatch = new ArrayList<>();
      for (ArMember member : ArReader.read(batch).members()) {
        fromBatch.add(new ArWriter.Entry(member.name(), member.size(), List.of(),
            new ArWriter.FileRange(batch, member.dataOffset(), member.name())));
      }
      int[] calls = {0};
      ArWriter.Inspector cutting = (member, bytes) -> {
        if (++calls[0] == truncatedAtCall) {
          try (FileChannel channel = FileChannel.open(batch, StandardOpenOption.WRITE)) {
            channel.truncate(0);
          } catch (java.io.IOException e) {
            throw new AssertionError(e);
          }
        }
        return List.of();
      };
      ArWriter.SourceChangedException e = assertThrows(ArWriter.SourceChangedException.class,
          () -> ArWriter.write(dir.resolve("out.a"), fromBatch, 1, cutting));
      assertTrue(e.getMessage().startsWith(batch + " was cut short while member 'k"), e.getMessage());
    }
  }

  /** The symbols an archive index lists for an object, from its bytes. */
  private static List<String> elfSymbols(ByteBuffer bytes) {
    try {
      return ElfObject.parse(bytes).definedExternalSymbols();
    } catch (ElfFormatException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * More members than the sample that sizes the index's room, of sizes read through the reused
   * buffer (growing and shrinking) and mapped: each gets its own symbols, the room the index
   * leaves is the long-name table's padding, and every tool reads the result, index included.
   */
  @Test
  void anInspectorFindsEachMembersSymbolsAsItIsCopied() throws Exception {
    int count = ArWriter.SAMPLE + 8;
    List<ArWriter.Entry> entries = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int table = i == 33 ? ArWriter.REUSE_LIMIT + 1 : i % 5 == 0 ? 200_000 : i % 5 == 1 ? 20_000 : 16;
      Path object = NativeObjects.compile(dir.resolve("obj/k" + i + ".o"), "const unsigned char table_" + i + "["
          + table + "] = { 1 };\nint kernel_" + i + "(void) { return table_" + i + "[0]; }\n");
      String name = i % 7 == 0 ? "a-member-name-longer-than-sixteen-" + i + ".o" : "k" + i + ".o";
      entries.add(new ArWriter.Entry(name, object, Files.size(object)));
    }
    Path serial = dir.resolve("serial.a");
    Path parallel = dir.resolve("parallel.a");
    ArWriter.Written one = ArWriter.write(serial, entries, 1, (member, bytes) -> elfSymbols(bytes));
    ArWriter.Written three = ArWriter.write(parallel, entries, 3, (member, bytes) -> elfSymbols(bytes));
    assertArrayEquals(Files.readAllBytes(serial), Files.readAllBytes(parallel), "deterministic for any thread count");
    assertEquals(one, three);
    for (int i = 0; i < count; i++) {
      assertEquals(List.of("kernel_" + i, "table_" + i), three.symbols().get(i).stream().sorted().toList(), "member " + i);
    }
    assertEquals(ArchiveDigest.of(parallel, three.hashes()), three.digest());

    ArReader.Contents contents = ArReader.read(parallel);
    assertEquals(entries.stream().map(ArWriter.Entry::name).toList(),
        contents.members().stream().map(ArMember::name).toList());
    assertEquals(NativeObjects.run(List.of("ar", "t", parallel.toString()), dir).lines().toList(),
        entries.stream().map(ArWriter.Entry::name).toList());
    String index = NativeObjects.run(List.of("nm", "-s", parallel.toString()), dir);
    assertTrue(index.contains("kernel_39 in k39.o") && index.contains("table_35 in a-member-name-longer-than-sixteen-35.o"),
        index);
    // The room the sample kept and the index did not use pads the long-name table, as GNU ar pads it.
    byte[] bytes = Files.readAllBytes(parallel);
    int indexSize = Integer.parseInt(new String(bytes, 8 + 48, 10, StandardCharsets.US_ASCII).strip());
    int longNamesAt = 8 + 60 + indexSize + (indexSize & 1);
    assertEquals("//", new String(bytes, longNamesAt, 16, StandardCharsets.US_ASCII).strip());
    int longNamesSize = Integer.parseInt(new String(bytes, longNamesAt + 48, 10, StandardCharsets.US_ASCII).strip());
    String table = new String(bytes, longNamesAt + 60, longNamesSize, StandardCharsets.US_ASCII);
    assertEquals(contents.members().get(0).headerOffset(), longNamesAt + 60 + longNamesSize, "members follow the room");
    assertTrue(table.startsWith("a-member-name-longer-than-sixteen-0.o/\n") && table.endsWith("\n\n\n\n")
        && table.strip().lines().count() == 6, table.strip());

    // A program takes a kernel from it through the index, with each linker there is.
    Path main = Files.writeString(dir.resolve("main.c"), "int kernel_39(void);\nint main(void) { return kernel_39() - 1; }\n");
    for (String linker : List.of("bfd", "gold", "lld", "mold")) {
      if (NativeObjects.installed("ld." + linker)) {
        Path program = dir.resolve("main-" + linker);
        NativeObjects.run(List.of("cc", "-fuse-ld=" + linker, "-o", program.toString(), main.toString(), parallel.toString()),
            dir);
        NativeObjects.run(List.of(program.toString()), dir); // exits 0: table_39[0] is 1
      }
    }
  }

  /**
   * Writes {@code SAMPLE + 4} members of {@code size} bytes with symbols from an inspector (the last
   * four defining {@code lastSymbols} each) and with the same symbols known up front, and checks
   * that both give the same archive. Returns the symbols of the last member as the index lists them.
   */
  private List<String> sameAsWithSymbolsKnown(int size, int lastSymbols) throws Exception {
    List<ArWriter.Entry> inspected = new ArrayList<>();
    List<ArWriter.Entry> known = new ArrayList<>();
    List<List<String>> symbols = new ArrayList<>();
    for (int i = 0; i < ArWriter.SAMPLE + 4; i++) {
      List<String> defined = new ArrayList<>();
      for (int s = 0; s < (i < ArWriter.SAMPLE ? 1 : lastSymbols); s++) {
        defined.add("a_rather_long_kernel_name_of_member_" + i + "_number_" + s);
      }
      symbols.add(defined);
      byte[] content = Arrays.copyOf(("member " + i).getBytes(StandardCharsets.US_ASCII), size + i);
      Path file = Files.write(dir.resolve(size + "-m" + i + ".bin"), content);
      inspected.add(new ArWriter.Entry("m" + i + ".o", file, content.length));
      known.add(new ArWriter.Entry("m" + i + ".o", file, 0, content.length, defined));
    }
    Path fromInspector = dir.resolve(size + "-inspected.a");
    Path fromKnown = dir.resolve(size + "-known.a");
    ArWriter.Written inspectedWrite = ArWriter.write(fromInspector, inspected, 2, (member, bytes) -> symbols.get(member));
    ArWriter.Written knownWrite = ArWriter.write(fromKnown, known, 2);
    assertArrayEquals(Files.readAllBytes(fromKnown), Files.readAllBytes(fromInspector));
    assertEquals(knownWrite, inspectedWrite);
    ArReader.Contents contents = ArReader.read(fromInspector);
    long last = contents.members().get(ArWriter.SAMPLE + 3).headerOffset();
    assertEquals(symbols.get(ArWriter.SAMPLE + 3), contents.index().stream()
        .filter(entry -> entry.memberOffset() == last).map(ArReader.IndexEntry::symbol).toList());
    return symbols.get(ArWriter.SAMPLE + 3);
  }

  /** Later members define far more than the first ones: the room kept is too small, and the archive is written again. */
  @Test
  void anIndexLargerThanTheRoomKeptIsWrittenAgainExactly() throws Exception {
    sameAsWithSymbolsKnown(64 << 10, 2_000);
  }

  /** Small members with long names: room for the index would grow the archive by much, so all are inspected first. */
  @Test
  void anIndexThatIsMuchOfTheArchiveIsLaidOutExactly() throws Exception {
    sameAsWithSymbolsKnown(100, 1);
  }

  @Test
  void theFirstRefusedMemberInArchiveOrderIsReported() throws Exception {
    List<ArWriter.Entry> entries = entries();
    ArWriter.RejectedMember e = assertThrows(ArWriter.RejectedMember.class,
        () -> ArWriter.write(dir.resolve("refused.a"), entries, 3, (member, bytes) -> {
          if (member == 7 || member == 25) {
            throw new ArWriter.RejectedMember(member, "member " + member + " is not wanted");
          }
          return List.of();
        }));
    assertEquals(7, e.member());
    assertEquals("member 7 is not wanted", e.getMessage());
  }
}
