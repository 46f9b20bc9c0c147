package io.github.kernelarchive.ar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.kernelarchive.archive.NativeObjects;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive reader (members, names, the index, header offsets and thin archives) on what real
 * tools write: GNU ar, llvm-ar (GNU and BSD formats, and
 * {@code /SYM64/}) and the plugin's writer, with short and long names.
 */
class ArReaderTest {
  @TempDir Path dir;
  private List<Path> objects;

  @BeforeEach
  void objects() throws Exception {
    objects = new ArrayList<>();
    String[] names = {"a.o", "a-kernel-name-longer-than-sixteen.cu.o", "b.o", "another-long-member-name.o"};
    for (int i = 0; i < names.length; i++) {
      objects.add(NativeObjects.compile(dir.resolve("obj/" + names[i]),
          "int symbol_" + i + "(void) { return " + i + "; }\nint data_" + i + " = " + i + ";\n"));
    }
  }

  private Path withTool(List<String> command, String archive, Map<String, String> environment) throws Exception {
    Path output = dir.resolve(archive);
    List<String> argv = new ArrayList<>(command);
    argv.add(output.toString());
    objects.forEach(o -> argv.add(o.toString()));
    ProcessBuilder builder = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true);
    builder.environment().putAll(environment);
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes());
    assertEquals(0, process.waitFor(), argv + ": " + out);
    return output;
  }

  /** Every member's name, bytes, and (when {@code indexed}) the index pointing at its header. */
  private void assertReads(Path archive, boolean indexed) throws Exception {
    ArReader.Contents contents = ArReader.read(archive);
    assertEquals(objects.stream().map(o -> o.getFileName().toString()).toList(),
        contents.members().stream().map(ArMember::name).toList(), archive.toString());
    try (FileChannel channel = FileChannel.open(archive, StandardOpenOption.READ)) {
      for (int i = 0; i < objects.size(); i++) {
        ByteBuffer member = ArReader.map(channel, contents.members().get(i));
        byte[] bytes = new byte[member.remaining()];
        member.get(bytes);
        assertArrayEquals(Files.readAllBytes(objects.get(i)), bytes, "member " + i + " of " + archive);
      }
    }
    if (indexed) {
      assertNotNull(contents.index(), "index of " + archive);
      Map<Long, List<String>> bySymbol = ArReader.symbolsByMember(contents.index());
      for (int i = 0; i < objects.size(); i++) {
        List<String> symbols = bySymbol.get(contents.members().get(i).headerOffset());
        assertNotNull(symbols, "index entry for member " + i + " of " + archive);
        assertEquals(List.of("data_" + i, "symbol_" + i), symbols.stream().sorted().toList());
      }
    }
  }

  @Test
  void gnuAr() throws Exception {
    assertReads(withTool(List.of("ar", "qcsD"), "gnu.a", Map.of()), true);
  }

  @Test
  void llvmArInGnuBsdAndSym64Formats() throws Exception {
    assumeTrue(NativeObjects.installed("llvm-ar"));
    assertReads(withTool(List.of("llvm-ar", "qcsD"), "llvm.a", Map.of()), true);
    // llvm-ar writes /SYM64/ past this many bytes (4 GiB unless told): a small archive shows the format.
    Path sym64 = withTool(List.of("llvm-ar", "qcsD"), "sym64.a", Map.of("SYM64_THRESHOLD", "0"));
    assertEquals("/SYM64/", new String(Arrays.copyOfRange(Files.readAllBytes(sym64), 8, 15)));
    assertReads(sym64, true);
    // BSD: #1/len names stored before the data, and a __.SYMDEF index this reader leaves aside.
    assertReads(withTool(List.of("llvm-ar", "--format=bsd", "qcsD"), "bsd.a", Map.of()), false);
  }

  @Test
  void thePluginsWriterIncludingAUtf8Name() throws Exception {
    Path renamed = Files.copy(objects.get(2), dir.resolve("obj/kernel-größe.o"));
    objects.set(2, renamed);
    List<ArWriter.Entry> entries = new ArrayList<>();
    for (int i = 0; i < objects.size(); i++) {
      entries.add(new ArWriter.Entry(objects.get(i).getFileName().toString(), objects.get(i), 0,
          Files.size(objects.get(i)), List.of("symbol_" + i, "data_" + i)));
    }
    Path archive = dir.resolve("plugin.a");
    ArWriter.write(archive, entries);
    assertReads(archive, true);
  }

  @Test
  void aMemberCutShortIsReportedAsTruncated() throws Exception {
    Path archive = withTool(List.of("ar", "qcsD"), "cut.a", Map.of());
    byte[] bytes = Files.readAllBytes(archive);
    Files.write(archive, Arrays.copyOf(bytes, bytes.length - 100));
    ArFormatException e = assertThrows(ArFormatException.class, () -> ArReader.read(archive));
    assertTrue(e.getMessage().startsWith("truncated: member at offset "), e.getMessage());
  }

  /**
   * Listing members passes over their content (Commons Compress, which listed them before, read
   * every byte of a 64 MiB archive to skip it). Counted by the kernel ({@code rchar} of /proc/self/io: every byte
   * this process read by a system call), so a regression shows whichever layer brings it back.
   */
  @Test
  void listingMembersReadsTheirHeadersNotTheirContent() throws Exception {
    Path io = Path.of("/proc/self/io");
    assumeTrue(Files.isReadable(io), "SKIPPED: no /proc/self/io to count the bytes read");
    List<ArWriter.Entry> entries = new ArrayList<>();
    byte[] payload = new byte[4 << 20];
    for (int i = 0; i < 16; i++) {
      Arrays.fill(payload, (byte) i);
      Path member = Files.write(dir.resolve("payload-" + i + ".bin"), payload);
      entries.add(new ArWriter.Entry("payload-" + i + ".bin", member, 0, payload.length, List.of("s" + i)));
    }
    Path archive = dir.resolve("large.a");
    ArWriter.write(archive, entries);
    ArReader.read(archive); // once first, so loading the reader's classes from their jars is not counted
    long before = bytesRead(io);
    ArReader.Contents contents = ArReader.read(archive);
    long read = bytesRead(io) - before;
    assertEquals(16, contents.members().size());
    assertTrue(read < (1 << 20), "listing a " + Files.size(archive) + "-byte archive read " + read + " bytes");
  }

  private static long bytesRead(Path io) throws Exception {
    return Files.readAllLines(io).stream().filter(l -> l.startsWith("rchar:"))
        .mapToLong(l -> Long.parseLong(l.substring(6).strip())).findFirst().orElseThrow();
  }

  /** A header checked in place names exactly its member and size, as ar writes them. */
  @Test
  void aShortMemberHeaderIsComparedInPlace() {
    ByteBuffer header = ByteBuffer.wrap(("k00001.o/       " + "0           0     0     644     " + "1096      `\n")
        .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    assertEquals(ArReader.HEADER_SIZE, header.capacity());
    assertTrue(ArReader.isShortMemberHeader(header, 0, "k00001.o", 1096));
    assertFalse(ArReader.isShortMemberHeader(header, 0, "k00002.o", 1096), "another name");
    assertFalse(ArReader.isShortMemberHeader(header, 0, "k00001", 1096), "a name's prefix");
    assertFalse(ArReader.isShortMemberHeader(header, 0, "k00001.o", 109), "a size's prefix");
    assertFalse(ArReader.isShortMemberHeader(header, 0, "k00001.o", 10960), "a longer size");
    assertFalse(ArReader.isShortMemberHeader(header, 0, "k00001.o", 1097), "another size");
    header.put(59, (byte) ' ');
    assertFalse(ArReader.isShortMemberHeader(header, 0, "k00001.o", 1096), "no terminator");
  }
}
