package io.github.kernelarchive.mojo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.File;
import java.nio.file.Path;
import java.util.List;
import org.apache.maven.plugin.MojoFailureException;
import org.junit.jupiter.api.Test;

/** {@code <archives>} as the pom declares them, mapped to the engine's sets, and the errors that name the bad one. */
class ArchiveSetsTest {
  private static final Path BASEDIR = Path.of("/work/project");

  private static ArchiveConfig archive(String name, String sources, String objects) {
    ArchiveConfig archive = new ArchiveConfig();
    archive.name = name;
    if (sources != null) {
      archive.sources = new SourcesConfig();
      archive.sources.directory = new File(sources);
    }
    if (objects != null) {
      archive.objects = new SourcesConfig();
      archive.objects.directory = new File(objects);
    }
    return archive;
  }

  private static String failure(List<ArchiveConfig> archives) {
    return assertThrows(MojoFailureException.class, () -> ArchiveSets.of(archives, BASEDIR)).getMessage();
  }

  @Test
  void eachArchiveBecomesItsSetsInDeclarationOrder() throws Exception {
    ArchiveSets.Result result = ArchiveSets.of(List.of(archive("fwd", "/work/project/src/fwd", null),
        archive("ck", null, "/build/ck/obj"), archive("bwd", "/work/project/src/bwd", "/build/bwd")), BASEDIR);
    assertEquals(List.of("fwd", "ck", "bwd"), result.names());
    assertEquals(List.of("fwd", "bwd"), result.sources().stream().map(s -> s.unit()).toList());
    assertEquals(List.of("ck", "bwd"), result.objects().stream().map(s -> s.unit()).toList());
    assertEquals(Path.of("/build/ck/obj"), result.objects().get(0).directory());
  }

  @Test
  void anArchiveWithoutANameIsNamedByPositionAndFirstDirectory() {
    assertEquals("The 2nd <archive> (sources in src/main/kernels/bwd) has no <name>: every <archive> needs a <name>"
        + " of letters, digits, '_', '.', '+' or '-' (it becomes lib<name>.a).",
        failure(List.of(archive("fwd", "/work/project/src/main/kernels/fwd", null),
            archive(null, "/work/project/src/main/kernels/bwd", null))));
    assertEquals("The 1st <archive> (objects in /build/ck/obj) has the <name> 'ck tiles': every <archive> needs a"
        + " <name> of letters, digits, '_', '.', '+' or '-' (it becomes lib<name>.a).",
        failure(List.of(archive("ck tiles", null, "/build/ck/obj"))));
    assertEquals("The 3rd <archive> has no <name>: every <archive> needs a <name> of letters, digits, '_', '.', '+'"
        + " or '-' (it becomes lib<name>.a).", failure(List.of(archive("a", "/a", null), archive("b", "/b", null),
            archive(null, null, null))));
  }

  @Test
  void otherMistakesNameTheArchive() {
    assertEquals("Two <archive> elements are named 'fwd' (the 1st and the 3rd). Rename one.",
        failure(List.of(archive("fwd", "/a", null), archive("bwd", "/b", null), archive("fwd", "/c", null))));
    assertEquals("<archive> 'fwd' has neither <sources> nor <objects>.", failure(List.of(archive("fwd", null, null))));
    ArchiveConfig noDirectory = archive("fwd", null, null);
    noDirectory.sources = new SourcesConfig();
    assertEquals("<archive> 'fwd' <sources> needs a <directory>.", failure(List.of(noDirectory)));
  }
}
