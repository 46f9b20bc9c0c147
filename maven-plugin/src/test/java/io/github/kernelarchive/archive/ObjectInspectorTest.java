package io.github.kernelarchive.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.elf.ElfObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Inspection reads symbols without the payload, and notices a file rewritten after it. */
class ObjectInspectorTest {
  @TempDir Path dir;

  @Test
  void aLargeObjectIsMappedNotKeptAndARewriteAfterInspectionIsNoticed() throws Exception {
    Path large = NativeObjects.compile(dir.resolve("large.o"),
        "const unsigned char table[65536] = { 1 };\nint large_kernel(void) { return table[0]; }\n");
    Path small = NativeObjects.compile(dir.resolve("small.o"), "int small_kernel(void) { return 1; }\n");
    ObjectInspector inspector = new ObjectInspector(ElfObject.hostMachine());
    AtomicLong budget = new AtomicLong(1 << 20);

    ObjectInspector.Inspection largeOne = inspector.inspect("large.o", large, "large", budget);
    ObjectInspector.Inspection smallOne = inspector.inspect("small.o", small, "small", budget);
    assertNull(largeOne.bytes(), "above the read limit the payload is not read");
    assertNotNull(smallOne.bytes(), "small objects are kept, to be written from memory");
    assertEquals(List.of("large_kernel", "table"), largeOne.symbols().stream().sorted().toList());
    assertTrue(largeOne.unchanged());

    byte[] bytes = Files.readAllBytes(large);
    bytes[bytes.length / 2] ^= 1;
    Files.write(large, bytes); // same size, new bytes
    Files.setLastModifiedTime(large, FileTime.fromMillis(largeOne.modified().toMillis() + 1000));
    assertFalse(largeOne.unchanged());
  }
}
