package io.github.kernelarchive.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a wheel or jar takes from a project folder, with real files and links. */
class ProjectTreeTest {
  @TempDir Path dir;
  Path project;
  Path python;

  @BeforeEach
  void project() throws Exception {
    project = Files.createDirectories(dir.resolve("project"));
    python = Files.createDirectories(project.resolve("src/main/python/answer"));
    Files.writeString(python.resolve("__init__.py"), "x = 1\n");
  }

  private Map<String, Path> files() throws Exception {
    return ProjectTree.files(project.resolve("src/main/python"), project, "", "wheel", p -> false);
  }

  @Test
  void aLinkInsideTheProjectIsPackedAsItsTargetFileOrFolder() throws Exception {
    Path shared = Files.createDirectories(project.resolve("shared/util"));
    Files.writeString(shared.resolve("helper.py"), "y = 2\n");
    Files.writeString(project.resolve("shared/common.py"), "z = 3\n");
    Files.createSymbolicLink(python.resolve("common.py"), Path.of("../../../../shared/common.py"));
    Files.createSymbolicLink(python.resolve("util"), shared);
    Map<String, Path> files = files();
    assertEquals(List.of("answer/__init__.py", "answer/common.py", "answer/util/helper.py"), List.copyOf(files.keySet()));
    assertEquals("z = 3\n", Files.readString(files.get("answer/common.py")));
    assertEquals("y = 2\n", Files.readString(files.get("answer/util/helper.py")));
  }

  @Test
  void aLinkOutOfTheProjectFailsNamingItFileOrFolder() throws Exception {
    Files.createSymbolicLink(python.resolve("passwd.py"), Path.of("/etc/passwd"));
    BuildFailureException file = assertThrows(BuildFailureException.class, this::files);
    assertEquals(python.resolve("passwd.py") + " is a symbolic link to /etc/passwd, outside the project "
        + project.toRealPath() + ": a wheel holds only the project's own files. Copy the file into the project, or"
        + " remove the link.", file.getMessage());
    Files.delete(python.resolve("passwd.py"));
    Path outside = Files.createDirectories(dir.resolve("elsewhere"));
    Files.writeString(outside.resolve("secret.py"), "s = 1\n");
    Files.createSymbolicLink(python.resolve("vendor"), outside);
    BuildFailureException folder = assertThrows(BuildFailureException.class, this::files);
    assertTrue(folder.getMessage().startsWith(python.resolve("vendor") + " is a symbolic link to " + outside.toRealPath()
        + ", outside the project"), folder.getMessage());
  }

  @Test
  void aDanglingLinkAndALinkCycleFailNamingTheLink() throws Exception {
    Files.createSymbolicLink(python.resolve("gone.py"), Path.of("nowhere.py"));
    BuildFailureException dangling = assertThrows(BuildFailureException.class, this::files);
    assertTrue(dangling.getMessage().startsWith(python.resolve("gone.py") + " is a symbolic link to nowhere.py, which"
        + " does not exist"), dangling.getMessage());
    Files.delete(python.resolve("gone.py"));
    Files.createSymbolicLink(python.resolve("loop"), Path.of(".."));
    BuildFailureException cycle = assertThrows(BuildFailureException.class, this::files);
    assertTrue(cycle.getMessage().contains("a folder that holds the link"), cycle.getMessage());
  }

  @Test
  void namesAPackageCannotHoldFailBeforeAnythingIsWritten() throws Exception {
    Path backslash = Files.writeString(python.resolve("back\\slash.py"), "");
    BuildFailureException e = assertThrows(BuildFailureException.class, this::files);
    assertEquals("'" + python + "/back\\slash.py' has a backslash in its name: a wheel cannot hold it as it is (zip"
        + " readers take a backslash for a folder separator). Rename the file.", e.getMessage());
    Files.delete(backslash);
    Path newline = Files.writeString(python.resolve("new\nline.py"), "");
    e = assertThrows(BuildFailureException.class, this::files);
    assertEquals("'" + python + "/new\\nline.py' has a control character (U+000A) in its name: a wheel cannot hold it"
        + " as it is (installers' lists of files break at it). Rename the file.", e.getMessage());
    Files.delete(newline);
    Files.writeString(python.resolve("caf\u00e9.py"), "");
    Files.writeString(python.resolve("cafe\u0301.py"), "");
    e = assertThrows(BuildFailureException.class, this::files);
    assertTrue(e.getMessage().startsWith("The wheel would hold two files named alike: 'answer/caf"), e.getMessage());
    assertTrue(e.getMessage().endsWith("are the same name in Unicode's normal form (NFC), and installers may write them"
        + " to one path. Rename one of them."), e.getMessage());
  }
}
