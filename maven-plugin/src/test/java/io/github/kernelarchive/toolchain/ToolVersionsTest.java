package io.github.kernelarchive.toolchain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A tool is asked for its version once; a changed executable is asked again. */
class ToolVersionsTest {
  @Test
  void remembersByPathSizeAndTimeAcrossBuilds(@TempDir Path dir) throws Exception {
    Path counter = dir.resolve("asked");
    Path tool = dir.resolve("tool");
    Files.writeString(tool, "#!/bin/sh\necho x >> " + counter + "\necho 'tool 1.0'\n");
    Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path state = dir.resolve("state/tool-versions.properties");
    ProcessRunner runner = new ProcessRunner(Map.of());

    ToolVersions first = new ToolVersions(state);
    assertEquals("tool 1.0", first.version(tool, runner).output().strip());
    assertEquals("tool 1.0", first.version(tool, runner).output().strip());
    first.save();
    assertEquals(1, Files.readAllLines(counter).size(), "asked once in a build");

    ToolVersions next = new ToolVersions(state);
    assertEquals("tool 1.0", next.version(tool, runner).output().strip());
    assertEquals(1, Files.readAllLines(counter).size(), "the next build asks nothing");

    Files.writeString(tool, "#!/bin/sh\necho x >> " + counter + "\necho 'tool 2.0, longer'\n");
    Files.setLastModifiedTime(tool, FileTime.fromMillis(Files.getLastModifiedTime(tool).toMillis() + 5000));
    assertEquals("tool 2.0, longer", new ToolVersions(state).version(tool, runner).output().strip());
    assertEquals(2, Files.readAllLines(counter).size(), "a replaced tool is asked again");
    assertTrue(Files.isRegularFile(state));
  }
}
