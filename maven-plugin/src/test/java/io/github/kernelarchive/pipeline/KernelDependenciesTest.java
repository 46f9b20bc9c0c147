package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.bundle.BundleMetadata;
import io.github.kernelarchive.bundle.BundlePackager;
import io.github.kernelarchive.bundle.BundleWriter;
import io.github.kernelarchive.bundle.KernelDependency;
import io.github.kernelarchive.common.BuildFailureException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kernel library as a dependency, with real compilers and linkers: the producer's bundle is the
 * same bytes in another checkout; the consumer compiles against its headers, links its archives
 * privately and exports only its own API; an unchanged bundle costs nothing, a changed header
 * recompiles only the sources that include it; bad bundles fail naming what is wrong.
 */
class KernelDependenciesTest {
  private static final FileTime TIME = FileTime.from(Instant.parse("2000-01-01T00:00:00Z"));
  @TempDir Path dir;

  private Path producer(String folder, String headerComment) throws Exception {
    return producer(folder, headerComment, 2);
  }

  /** The producer's kernel returns {@code x * factor}; its header carries {@code headerComment}. */
  private Path producer(String folder, String headerComment, int factor) throws Exception {
    Path project = dir.resolve(folder);
    Files.createDirectories(project.resolve("include"));
    Files.createDirectories(project.resolve("host"));
    Files.createDirectories(project.resolve("kernels"));
    Files.writeString(project.resolve("include/p.h"), "/* " + headerComment + " */\nint p_api(int x);\n");
    Files.writeString(project.resolve("host/p.c"), "#include \"p.h\"\nint p_kernel(int);\nint p_api(int x) { return p_kernel(x) + 1; }\n");
    Files.writeString(project.resolve("kernels/k.c"), "int p_kernel(int x) { return x * " + factor + "; }\n");
    new KernelBuild(new RecordingLog(), System.getenv()).run(KernelBuildRequest.builder(project, "p")
        .host(project.resolve("host")).archive("pk", project.resolve("kernels")).includeDirectories(project.resolve("include"))
        .exports("p_*").jobs(2).build());
    Path bundle = project.resolve("target/p-1.0-linux.kernel");
    BundlePackager.pack(project, project.resolve("target/kernel"), project.resolve("include"), bundle,
        project.resolve("target/p-1.0.kernel"), TIME);
    return bundle;
  }

  private Path consumerProject() throws Exception {
    Path project = dir.resolve("consumer");
    Files.createDirectories(project.resolve("host"));
    Files.writeString(project.resolve("host/use.c"), "#include \"p.h\"\nint c_run(int x) { return p_api(x) * 10; }\n");
    Files.writeString(project.resolve("host/other.c"), "int c_other(void) { return 5; }\n");
    return project;
  }

  private KernelBuildRequest.Builder consumer(Path project, KernelDependency... kernels) {
    return KernelBuildRequest.builder(project, "c").host(project.resolve("host")).exports("c_*").jobs(2)
        .kernels(kernels);
  }

  @Test
  void theBundleIsTheSameBytesInAnotherCheckout() throws Exception {
    Path first = producer("one", "v1");
    Path second = producer("two", "v1");
    assertEquals(-1, Files.mismatch(first, second), "same inputs, same bundle");
    assertEquals(-1, Files.mismatch(first.resolveSibling("p-1.0.kernel"), second.resolveSibling("p-1.0.kernel")));
  }

  @Test
  void aConsumerLinksTheDependencyPrivatelyAndRebuildsOnlyWhatItsHeadersReach() throws Exception {
    Path bundle = producer("p", "v1");
    Path project = consumerProject();
    KernelDependency p = new KernelDependency("g:p:1.0", "g.p", bundle);
    BuildSummary built = new KernelBuild(new RecordingLog(), System.getenv()).run(consumer(project, p).build());
    assertEquals(2, built.compiled());
    Path library = built.library();
    String exported = Commands.run(List.of("nm", "-D", "--defined-only", library.toString()), dir);
    assertTrue(exported.contains("c_run@@C") && exported.contains("c_other@@C") && !exported.contains("p_"), exported);
    Path main = Files.writeString(dir.resolve("m.c"),
        "#include <stdio.h>\nint c_run(int);\nint main(void) { printf(\"%d\\n\", c_run(3)); return 0; }\n");
    Commands.run(List.of("cc", "-o", dir.resolve("m").toString(), main.toString(), library.toString(),
        "-Wl,-rpath," + library.getParent()), dir);
    assertEquals("70", Commands.run(List.of(dir.resolve("m").toString()), dir).strip(),
        "(3 * 2 + 1) * 10, through the dependency's API and its private kernel");

    // Unchanged: nothing unpacked, nothing compiled, nothing linked.
    Path unpacked = project.resolve("target/kernel/deps/g.p/kernel.properties");
    FileTime unpackedAt = Files.getLastModifiedTime(unpacked);
    BuildSummary again = new KernelBuild(new RecordingLog(), System.getenv()).run(consumer(project, p).build());
    assertEquals(0, again.compiled());
    assertFalse(again.relinked());
    assertEquals(unpackedAt, Files.getLastModifiedTime(unpacked), "an unchanged bundle is not unpacked again");

    // A new build of the dependency (a new SNAPSHOT): its header and its kernel changed. The source
    // that includes the header recompiles, the other does not, and the library relinks.
    Path changed = producer("p", "v2", 3);
    BuildSummary rebuilt = new KernelBuild(new RecordingLog(), System.getenv())
        .run(consumer(project, new KernelDependency("g:p:1.0", "g.p", changed)).build());
    assertEquals(1, rebuilt.compiled(), "use.c includes p.h; other.c does not");
    assertTrue(rebuilt.relinked());
    assertEquals("100", Commands.run(List.of(dir.resolve("m").toString()), dir).strip(), "(3 * 3 + 1) * 10");
  }

  @Test
  void aDependencyLinkedSharedIsNeededBySonameAndFoundBesideTheLibrary() throws Exception {
    Path bundle = producer("p", "v1");
    Path project = consumerProject();
    BuildSummary built = new KernelBuild(new RecordingLog(), System.getenv())
        .run(consumer(project, new KernelDependency("g:p:1.0", "g.p", bundle, true)).build());
    Path library = built.library();
    String dynamic = Commands.run(List.of("readelf", "-d", library.toString()), dir);
    assertTrue(dynamic.contains("Shared library: [libp.so]") && dynamic.contains("[$ORIGIN]"), dynamic);
    assertTrue(Files.isRegularFile(library.resolveSibling("libp.so")), "copied beside the library");
    String exported = Commands.run(List.of("nm", "-D", "--defined-only", library.toString()), dir);
    assertFalse(exported.contains("p_kernel"), exported);
    Path main = Files.writeString(dir.resolve("s.c"),
        "#include <stdio.h>\nint c_run(int);\nint main(void) { printf(\"%d\\n\", c_run(3)); return 0; }\n");
    // The program's RUNPATH finds libc.so, and only that (RUNPATH does not reach a library's own
    // dependencies): libp.so is found through libc.so's $ORIGIN.
    Commands.run(List.of("cc", "-o", dir.resolve("s").toString(), main.toString(), library.toString(),
        "-Wl,--enable-new-dtags,-rpath," + library.getParent()), dir);
    assertEquals("70", Commands.run(List.of(dir.resolve("s").toString()), dir).strip());
  }

  @Test
  void badDependenciesFailNamingWhatIsWrong() throws Exception {
    Path bundle = producer("p", "v1");
    Path project = consumerProject();
    String twoHeaders = failure(consumer(project, new KernelDependency("g:p:1.0", "g.p", bundle),
        new KernelDependency("g:q:2.0", "g.q", copy(bundle, "q.kernel"))));
    assertTrue(twoHeaders.contains("Kernel dependencies g:p:1.0 and g:q:2.0 both ship the header p.h"), twoHeaders);

    Path other = handMade("other.kernel", "aarch64-linux", "");
    String platform = failure(consumer(project, new KernelDependency("g:o:1.0", "g.o", other)));
    assertTrue(platform.contains("Kernel dependency g:o:1.0 was built for aarch64-linux (" + other + "); this build is for "),
        platform);

    Path cuda = handMade("cuda.kernel", io.github.kernelarchive.util.Platform.classifier(), "80");
    String archs = failure(consumer(project, new KernelDependency("g:cu:1.0", "g.cu", cuda)).cudaArchs("80;90a"));
    assertTrue(archs.contains("Kernel dependency g:cu:1.0 has device code for 80, which does not cover this build's"
        + " kernel.cuda.archs 80;90a"), archs);

    Path missing = dir.resolve("nowhere.kernel");
    String absent = failure(consumer(project, new KernelDependency("g:m:1.0", "g.m", missing)));
    assertTrue(absent.contains(missing + " does not exist"), absent);
  }

  private String failure(KernelBuildRequest.Builder request) {
    return assertThrows(BuildFailureException.class,
        () -> new KernelBuild(new RecordingLog(), System.getenv()).run(request.build())).getMessage();
  }

  private Path copy(Path bundle, String name) throws Exception {
    return Files.copy(bundle, dir.resolve(name));
  }

  /** A bundle with only metadata (no archives), for the checks that need none. */
  private Path handMade(String name, String platform, String cudaArchs) throws Exception {
    Path bundle = dir.resolve(name);
    BundleWriter.write(bundle, List.of(BundleWriter.Entry.bytes(BundleMetadata.FILE, new BundleMetadata(
        BundleMetadata.FORMAT, platform, "o", "libo.so", "O_1", List.of(), List.of(), cudaArchs, false, "static",
        List.of(), List.of(), "").toBytes())), TIME);
    return bundle;
  }
}
