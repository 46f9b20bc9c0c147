package io.github.kernelarchive.wheelfile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WheelWriterTest {
  private static final FileTime TIME = FileTime.from(Instant.parse("2026-11-24T12:34:56Z"));
  private static final String DIST_INFO = "k-1.0.dist-info";

  @TempDir Path dir;

  private List<WheelEntry> entries() throws IOException {
    Path library = Files.write(dir.resolve("libk.so"), new byte[] {0x7f, 'E', 'L', 'F', 1, 2, 3});
    return List.of(WheelEntry.text(DIST_INFO + "/WHEEL", "Wheel-Version: 1.0\n"),
        WheelEntry.file("k/libk.so", library, true), WheelEntry.text("k/__init__.py", "import ctypes\n"),
        WheelEntry.text(DIST_INFO + "/METADATA", "Name: k\n"), WheelEntry.text("k/a,b.py", "# a comma\n"));
  }

  @Test
  void sortsEntriesWithDistInfoLastAndRecordLastOfAllHashingEachAsPep376Says() throws Exception {
    Path wheel = dir.resolve("k.whl");
    WheelWriter.write(wheel, DIST_INFO, entries(), TIME);
    Map<String, byte[]> read = WheelVerifier.read(wheel);
    assertEquals(List.of("k/__init__.py", "k/a,b.py", "k/libk.so", DIST_INFO + "/METADATA", DIST_INFO + "/WHEEL",
        DIST_INFO + "/RECORD"), List.copyOf(read.keySet()));
    String record = new String(read.get(DIST_INFO + "/RECORD"), StandardCharsets.UTF_8);
    // sha256 of "import ctypes\n", urlsafe base64 without padding (as Python's hashlib + base64 give it).
    assertTrue(record.startsWith("k/__init__.py,sha256=Da7RyDdEnkDixUwayYzUHXzW6CBWqtaT_soLM12G6sU,14\n"), record);
    assertTrue(record.contains("\"k/a,b.py\",sha256="), record);
    assertTrue(record.endsWith(DIST_INFO + "/RECORD,,\n"), record);
    try (ZipFile zip = ZipFile.builder().setPath(wheel).get()) {
      assertEquals(0755, zip.getEntry("k/libk.so").getUnixMode() & 0777);
      assertEquals(0644, zip.getEntry("k/__init__.py").getUnixMode() & 0777);
    }
  }

  @Test
  void theSameEntriesGiveTheSameBytesInAnyTimeZoneAndAnUnchangedWheelIsNotRewritten() throws Exception {
    TimeZone zone = TimeZone.getDefault();
    Path first = dir.resolve("a/k.whl");
    Path second = dir.resolve("b/k.whl");
    Files.createDirectories(first.getParent());
    Files.createDirectories(second.getParent());
    try {
      TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
      WheelWriter.write(first, DIST_INFO, entries(), TIME);
      TimeZone.setDefault(TimeZone.getTimeZone("Asia/Kolkata"));
      WheelWriter.write(second, DIST_INFO, entries(), TIME);
    } finally {
      TimeZone.setDefault(zone);
    }
    assertArrayEquals(Files.readAllBytes(first), Files.readAllBytes(second));
    try (ZipFile zip = ZipFile.builder().setPath(first).get()) {
      // The DOS fields read as the UTC time, two-second steps, whatever zone wrote them.
      ZipArchiveEntry entry = zip.getEntry("k/libk.so");
      assertEquals(Instant.parse("2026-11-24T12:34:56Z").toEpochMilli(),
          entry.getTime() + TimeZone.getDefault().getOffset(entry.getTime()));
    }
    FileTime written = Files.getLastModifiedTime(first);
    Thread.sleep(20);
    assertEquals(WheelWriter.Outcome.UNCHANGED, WheelWriter.write(first, DIST_INFO, entries(), TIME));
    assertEquals(written, Files.getLastModifiedTime(first));
  }

  @Test
  void timesBefore1980AreWrittenAs1980() {
    long dos = io.github.kernelarchive.util.ZipTime.dosTime(FileTime.from(Instant.EPOCH));
    assertEquals(io.github.kernelarchive.util.ZipTime.ZIP_EPOCH.toEpochMilli(), dos + TimeZone.getDefault().getOffset(dos));
  }

  @Test
  void aFailedWriteLeavesNoWheelAndNoTemporaryFile() throws Exception {
    Path wheel = dir.resolve("out/k.whl");
    List<WheelEntry> broken = List.of(WheelEntry.file("k/libk.so", dir.resolve("missing.so"), true));
    assertThrows(IOException.class, () -> WheelWriter.write(wheel, DIST_INFO, broken, TIME));
    try (Stream<Path> left = Files.list(wheel.getParent())) {
      assertEquals(List.of(), left.toList());
    }
  }

  @Test
  void theVerifierNamesAnEntryWhoseContentDoesNotMatchItsRecordLine() throws Exception {
    Path wheel = dir.resolve("k.whl");
    WheelWriter.write(wheel, DIST_INFO, entries(), TIME);
    Path tampered = dir.resolve("tampered.whl");
    try (ZipFile zip = ZipFile.builder().setPath(wheel).get();
        OutputStream file = Files.newOutputStream(tampered);
        ZipArchiveOutputStream out = new ZipArchiveOutputStream(file)) {
      for (ZipArchiveEntry entry : java.util.Collections.list(zip.getEntriesInPhysicalOrder())) {
        out.putArchiveEntry(new ZipArchiveEntry(entry.getName()));
        byte[] content = zip.getInputStream(entry).readAllBytes();
        if (entry.getName().equals("k/__init__.py")) {
          content = "import os\n".getBytes(StandardCharsets.UTF_8);
        }
        out.write(content);
        out.closeArchiveEntry();
      }
    }
    IOException e = assertThrows(IOException.class, () -> WheelVerifier.verify(tampered, DIST_INFO));
    assertTrue(e.getMessage().contains("k/__init__.py does not match its RECORD line"), e.getMessage());
    assertFalse(e.getMessage().contains("libk.so"), e.getMessage());
  }

  @Test
  void refusesPathsThatCouldLeaveTheInstallFolder() {
    for (String bad : List.of("/etc/passwd", "../x", "a/../../x", "a//b", "a\\b", "")) {
      assertThrows(IllegalArgumentException.class, () -> WheelEntry.text(bad, ""), bad);
    }
  }
}
