package io.github.kernelarchive.nativetest;

import io.github.kernelarchive.ar.ArFormatException;
import io.github.kernelarchive.ar.ArReader;
import io.github.kernelarchive.audit.Demangler;
import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.glibc.GlibcFloor;
import io.github.kernelarchive.toolchain.ProcessResult;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.util.ContentHashes;
import io.github.kernelarchive.util.Hashing;
import io.github.kernelarchive.util.KeyFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Links each test program against the library as its users link it: through its exports only
 * ({@code -l<library>}, found at run time through an rpath, so nobody sets {@code LD_LIBRARY_PATH}).
 * White-box, the library's archives (its host archive and kernel archives) come first, so a test
 * can call what the library keeps private. A program whose inputs and command are unchanged is not
 * linked again. A program that calls a private symbol fails to link; the error says the symbol is
 * private and how to reach it.
 */
public final class TestLinker {
  private static final Pattern UNDEFINED = Pattern.compile(
      "undefined reference to [`'\u2018]([^'\u2019]+)['\u2019]|undefined symbol: (?:[^:\\s]+\\.o: )?(\\S.*)$",
      Pattern.MULTILINE);

  /**
   * What every program links with.
   *
   * @param library {@code lib<name>.so}
   * @param archives the library's archives: linked first when white-box, else only read to explain
   *     an undefined symbol
   * @param whiteBox link the archives into the program
   * @param flags extra flags after the library (sanitizers, CUDA runtime, the user's)
   * @param glibc the older glibc the programs are held to, as the library is; null: the host's
   */
  public record Setup(Path library, List<Path> archives, boolean whiteBox, List<String> flags, GlibcFloor glibc) {
    public Setup {
      archives = List.copyOf(archives);
      flags = List.copyOf(flags);
    }
  }

  /** A program that did not link, and why, in words that name the fix. */
  public record Failure(String program, String message) {}

  private final ProcessRunner runner;
  private final ContentHashes hashes;
  private final Path binDirectory;
  private final Path projectDirectory;
  private int linked;
  private int upToDate;

  public TestLinker(ProcessRunner runner, ContentHashes hashes, Path binDirectory, Path projectDirectory) {
    this.runner = runner;
    this.hashes = hashes;
    this.binDirectory = binDirectory;
    this.projectDirectory = projectDirectory;
  }

  /** Where program {@code name} is linked to. */
  public Path executable(String name) {
    return binDirectory.resolve(name);
  }

  /**
   * Links {@code objects} (the program's own first) into program {@code name} with {@code driver};
   * returns the failure, or {@code null} when the program is linked (now or before).
   */
  public Failure link(String name, String driver, List<Path> objects, Setup setup) throws IOException {
    Path executable = executable(name);
    Path libraryDirectory = setup.library().getParent();
    String libraryName = setup.library().getFileName().toString().replaceAll("^lib|\\.so$", "");
    List<String> argv = new ArrayList<>(List.of(driver, "-o", executable.toString()));
    objects.forEach(o -> argv.add(o.toString()));
    if (setup.whiteBox()) {
      setup.archives().forEach(a -> argv.add(a.toString()));
    }
    argv.addAll(List.of("-L" + libraryDirectory, "-l" + libraryName, "-Wl,-rpath," + libraryDirectory));
    argv.addAll(setup.flags());
    List<String> keyParts = new ArrayList<>(argv);
    keyParts.add(setup.glibc() == null ? "host glibc" : "glibc " + setup.glibc().target().version());
    List<Path> inputs = new ArrayList<>(objects);
    inputs.add(setup.library());
    if (setup.whiteBox()) {
      inputs.addAll(setup.archives());
    }
    for (Path input : inputs) {
      keyParts.add(hashes.of(input).orElse("missing " + input));
    }
    String key = Hashing.ofStrings(keyParts);
    Path keyFile = binDirectory.resolve(name + ".key");
    if (KeyFile.upToDate(executable, keyFile, key)) {
      upToDate++;
      return null;
    }
    Files.createDirectories(binDirectory);
    Files.deleteIfExists(keyFile);
    ProcessResult result = runner.run(argv, projectDirectory);
    if (!result.succeeded()) {
      Files.deleteIfExists(executable);
      return new Failure(name, "Test program '" + name + "' does not link:\n" + result.output().strip()
          + explainUndefined(result.output(), setup, libraryName));
    }
    if (setup.glibc() != null) {
      Failure failure = holdToGlibc(name, argv, objects.size(), setup.glibc());
      if (failure != null) {
        return failure;
      }
    }
    KeyFile.record(keyFile, key);
    linked++;
    return null;
  }

  /** Links the program again with the redirects {@code glibc} asks for, then checks it. */
  private Failure holdToGlibc(String name, List<String> argv, int objects, GlibcFloor glibc) throws IOException {
    Path executable = executable(name);
    try {
      glibc.hold(executable, name, extra -> {
        List<String> again = new ArrayList<>(argv);
        again.addAll(3 + objects, extra); // after the driver, -o file and the objects
        ProcessResult result = runner.run(again, projectDirectory);
        if (!result.succeeded()) {
          throw new BuildFailureException("it does not link with its glibc redirects:\n" + result.output().strip());
        }
      }, symbols -> List.of());
      return null;
    } catch (BuildFailureException | ToolchainException e) {
      Files.deleteIfExists(executable);
      return new Failure(name, "Test program '" + name + "': " + e.getMessage());
    }
  }

  /** How many programs were linked now, and how many were current. */
  public String counts() {
    return linked + " linked, " + upToDate + " up to date";
  }

  /**
   * For each undefined symbol the library defines in its archives but does not export: that it is
   * private, and the two ways to reach it.
   */
  private static String explainUndefined(String output, Setup setup, String libraryName) throws IOException {
    Set<String> undefined = new LinkedHashSet<>();
    Matcher matcher = UNDEFINED.matcher(output);
    while (matcher.find()) {
      undefined.add((matcher.group(1) != null ? matcher.group(1) : matcher.group(2)).strip());
    }
    if (undefined.isEmpty() || setup.whiteBox()) {
      return "";
    }
    Set<String> defined = new LinkedHashSet<>();
    for (Path archive : setup.archives()) {
      if (Files.isRegularFile(archive)) {
        try {
          ArReader.read(archive).index().forEach(entry -> defined.add(entry.symbol()));
        } catch (ArFormatException e) {
          // not readable as an archive: nothing to explain from it
        }
      }
    }
    Map<String, String> readable = Demangler.demangle(defined);
    StringBuilder explained = new StringBuilder();
    for (String symbol : undefined) {
      boolean privateSymbol = defined.contains(symbol) || readable.containsValue(symbol);
      if (privateSymbol) {
        explained.append("\n").append(symbol).append(" is private to lib").append(libraryName)
            .append(".so: the library defines it but does not export it. Test it through the exported API, add it to"
                + " <exports>, or link this test against the archives with -Dkernel.test.whiteBox=true.");
      }
    }
    return explained.toString();
  }
}
