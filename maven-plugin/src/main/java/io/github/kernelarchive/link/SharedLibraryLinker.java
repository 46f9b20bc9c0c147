package io.github.kernelarchive.link;

import io.github.kernelarchive.archive.MemberSymbols;
import io.github.kernelarchive.audit.DuplicateDefinitions;
import io.github.kernelarchive.audit.SystemHeaderSymbols;
import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.glibc.GlibcFloor;
import io.github.kernelarchive.glibc.RedirectPlan;
import io.github.kernelarchive.toolchain.Linker;
import io.github.kernelarchive.toolchain.ProcessResult;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.ResponseFile;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.util.AtomicFiles;
import io.github.kernelarchive.util.ContentHashes;
import io.github.kernelarchive.util.Hashing;
import io.github.kernelarchive.util.KeyFile;
import io.github.kernelarchive.util.Trace;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Links objects into {@code lib<name>.so} with the C++ driver, through a response file. Relinks
 * only when the linker, its arguments or a file it reads changed; the library is written under a
 * temporary name and renamed, so a failed link never leaves a half-written library behind. Its
 * GNU build ID comes from the link key instead of a hash of the written library.
 */
public final class SharedLibraryLinker {
  private static final String KEY_FORMAT = "kernel-archive link key 3";
  /** A line of {@code --trace-symbol}, in the words of ld.bfd, gold, lld and mold alike. */
  private static final Pattern REFERENCE =
      Pattern.compile("([^:\\n]+): reference to (\\S+)\\s*$", Pattern.MULTILINE);

  /** @param glibc what was changed to meet {@code kernel.glibc}; null when it is not set or nothing was relinked */
  public record Result(Path library, boolean relinked, String linker, RedirectPlan glibc) {
    public Result(Path library, boolean relinked, String linker) {
      this(library, relinked, linker, null);
    }
  }

  /**
   * A check of the written library (the export audit) before consumers can pick it up under its
   * name; when it fails, neither the new library nor the one an earlier build left is published.
   */
  @FunctionalInterface
  public interface Check {
    /** @param written the file to read; @param library the name it is published under */
    void verify(Path written, Path library) throws IOException, BuildFailureException;
  }

  private final Tool driver;
  private final Linker linker;
  private final ProcessRunner runner;
  private final Path outputDirectory;
  private final ContentHashes hashes;
  private final GlibcFloor glibc;
  private final boolean staticRuntime;

  /**
   * @param driver the C++ compiler, which runs the linker with the right start files and runtime
   * @param linker the linker it runs ({@code -fuse-ld})
   */
  public SharedLibraryLinker(Tool driver, Linker linker, ProcessRunner runner, Path outputDirectory,
      ContentHashes hashes) {
    this(driver, linker, runner, outputDirectory, hashes, null, false);
  }

  /**
   * @param glibc the older glibc the libraries must load on; null: the build host's
   * @param staticRuntime link libstdc++ and libgcc statically, their symbols hidden
   */
  public SharedLibraryLinker(Tool driver, Linker linker, ProcessRunner runner, Path outputDirectory,
      ContentHashes hashes, GlibcFloor glibc, boolean staticRuntime) {
    this.driver = driver;
    this.linker = linker;
    this.runner = runner;
    this.outputDirectory = outputDirectory;
    this.hashes = hashes;
    this.glibc = glibc;
    this.staticRuntime = staticRuntime;
  }

  public Result link(LinkRequest request) throws IOException, BuildFailureException, ToolchainException {
    return link(request, (written, library) -> {});
  }

  /** Links, and publishes the library only once {@code check} passed on it. */
  public Result link(LinkRequest request, Check check) throws IOException, BuildFailureException, ToolchainException {
    String fileName = "lib" + request.libraryName() + ".so";
    if (glibc != null) {
      glibc.refuseFlags(fileName, request.linkFlags());
    }
    Path library = outputDirectory.resolve(fileName);
    Path linkDirectory = outputDirectory.resolve("link");
    Files.createDirectories(linkDirectory);

    List<String> arguments = new ArrayList<>(linker.driverFlags());
    arguments.addAll(List.of("-shared", "-Wl,-soname," + fileName));
    if (staticRuntime) {
      // Neither runtime's symbols are exported (--exclude-libs below): exceptions and the C++
      // library stay inside, and the library needs no GLIBCXX_ or CXXABI_ version of the system.
      arguments.addAll(List.of("-static-libstdc++", "-static-libgcc"));
    }
    if (request.privateArchives()) {
      // The library's calls to its own exported functions bind to its own definitions at link
      // time, so a second copy of the same API loaded earlier cannot take them over. Functions
      // only: exported data stays interposable, because an executable may hold a copy-relocated
      // instance of it that the library must use too (docs/configuration.md).
      arguments.add("-Wl,-Bsymbolic-functions");
    }
    String script = request.exports().isEmpty()
        ? exportAllScript(request.symbolVersion(),
            UniqueSymbolMemo.of(request.objects(), hashes, linkDirectory.resolve(fileName + ".unique")))
        : versionScript(request.symbolVersion(), request.exports());
    if (script != null) {
      Path versionScript = linkDirectory.resolve(request.libraryName() + ".map");
      AtomicFiles.writeIfChanged(versionScript, script.getBytes(StandardCharsets.UTF_8));
      arguments.add("-Wl,--version-script=" + versionScript);
    }
    request.objects().forEach(o -> arguments.add(o.toString()));
    if (!request.archives().isEmpty()) {
      // Every member goes in (kernels are often reached only through registration); in the
      // static layout no archive symbol is exported, whatever its visibility.
      arguments.add("-Wl,--whole-archive");
      request.archives().forEach(a -> arguments.add(a.file().toString()));
      arguments.add("-Wl,--no-whole-archive");
      if (request.privateArchives()) {
        arguments.add("-Wl,--exclude-libs,ALL");
      }
    }
    if (staticRuntime && !arguments.contains("-Wl,--exclude-libs,ALL")) {
      arguments.add("-Wl,--exclude-libs,ALL");
    }
    if (!request.sharedLibraries().isEmpty()) {
      // By file name (-l:), recorded as their SONAME, found next to this library at run time.
      arguments.add("-L" + outputDirectory);
      request.sharedLibraries().forEach(l -> arguments.add("-l:" + l.getFileName()));
      arguments.add("-Wl,-rpath,$ORIGIN");
    }
    if (request.cudaLibraryDirectory() != null) {
      arguments.addAll(List.of("-L" + request.cudaLibraryDirectory(), "-lcudart_static", "-ldl", "-lpthread", "-lrt"));
    }
    int userFlags = arguments.size();
    arguments.addAll(request.linkFlags());

    // An archive still being written is linked through its stand-ins and waited for while the
    // linker runs; one without stand-ins is waited for until it is written (it is checked meanwhile).
    boolean throughStandIns = request.archives().stream().anyMatch(a -> !a.standIns().isEmpty());
    Map<LinkRequest.Archive, LinkRequest.Checked> checked = new HashMap<>();
    for (LinkRequest.Archive archive : request.archives()) {
      if (archive.standIns().isEmpty()) {
        checked.put(archive, archive.contents().await());
      }
    }
    Path keyFile = linkDirectory.resolve(fileName + ".key");
    // The key is over the arguments without the build ID, which is made from it.
    List<String> keyed = List.copyOf(arguments);
    String key = null;
    if (!throughStandIns) {
      key = key(keyed, request, checked, linkDirectory, fileName);
      if (KeyFile.upToDate(library, keyFile, key)) {
        awaitChecks(request);
        verifyOrWithdraw(check, library, library, keyFile);
        return new Result(library, false, linker.name());
      }
    }
    // The build ID is the link key's: the linker would otherwise hash the whole library it wrote
    // (mold, 334 MB: 0.1-0.2 s of wall time, 0.2-0.4 s of CPU). Before <linkFlags>, which may set
    // their own. A link through stand-ins starts before the key is known: it writes a placeholder,
    // replaced in the file once the archives are written.
    arguments.add(userFlags, "-Wl,--build-id=0x" + (key == null ? BuildIdStamp.PLACEHOLDER : buildId(key)));

    Path temporary = AtomicFiles.temporarySibling(library);
    RedirectPlan redirected = null;
    try {
      runBeside(throughStandIns ? withStandIns(arguments, request) : arguments, temporary, linkDirectory, fileName,
          () -> {
            try (Trace.Span span = throughStandIns ? Trace.current().span("wait for the archives", "link") : null) {
              for (LinkRequest.Archive archive : request.archives()) {
                if (!checked.containsKey(archive)) {
                  checked.put(archive, archive.contents().await());
                }
              }
            }
            checkDuplicates(request, checked);
          });
      if (throughStandIns) {
        key = key(keyed, request, checked, linkDirectory, fileName);
        if (KeyFile.upToDate(library, keyFile, key)) {
          awaitChecks(request);
          verifyOrWithdraw(check, library, library, keyFile);
          return new Result(library, false, linker.name());
        }
      }
      // From here on the archives of record are published: what links again reads them.
      if (glibc != null) {
        redirected = glibc.hold(temporary, fileName, extra -> {
          List<String> again = new ArrayList<>(arguments);
          again.addAll(userFlags, extra);
          try (Trace.Span span = Trace.current().span("glibc redirects " + fileName, "link")) {
            run(again, temporary, linkDirectory, fileName);
          }
        }, symbols -> referrers(arguments, symbols, linkDirectory, fileName));
      }
      if (throughStandIns) {
        BuildIdStamp.write(temporary, buildId(key));
      }
      awaitChecks(request);
      verifyOrWithdraw(check, temporary, library, keyFile);
      AtomicFiles.publish(temporary, library);
    } finally {
      Files.deleteIfExists(temporary);
    }
    KeyFile.record(keyFile, key);
    return new Result(library, true, linker.name(), redirected);
  }

  /** Work done here while the linker runs; its failure is the cause to report. */
  @FunctionalInterface
  private interface Beside {
    void run() throws IOException, BuildFailureException;
  }

  /**
   * Runs the linker on a thread of its own while {@code beside} runs here (waiting for the
   * archives, the duplicate check), then waits for it. A failure of {@code beside} comes first: an
   * archive that failed its checks or a symbol defined twice (all of them listed) is the cause of a
   * linker's failure, not the other way round.
   */
  private void runBeside(List<String> arguments, Path temporary, Path linkDirectory, String fileName, Beside beside)
      throws IOException, BuildFailureException, ToolchainException {
    ExecutorService linkerThread = Executors.newSingleThreadExecutor(runnable -> {
      Thread thread = new Thread(runnable, "kernel-link");
      thread.setDaemon(true);
      return thread;
    });
    Future<Void> linking = linkerThread.submit(() -> {
      run(arguments, temporary, linkDirectory, fileName);
      return null;
    });
    try {
      beside.run();
    } finally {
      awaitQuietly(linking); // no linker outlives the build, whichever failure is reported
      linkerThread.shutdown();
    }
    try {
      linking.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while linking " + fileName);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof BuildFailureException failure) {
        throw failure;
      }
      if (e.getCause() instanceof ToolchainException failure) {
        throw failure;
      }
      if (e.getCause() instanceof IOException failure) {
        throw failure;
      }
      throw new IllegalStateException("linking " + fileName + " failed", e.getCause());
    }
  }

  private static void awaitQuietly(Future<?> future) {
    try {
      future.get();
    } catch (ExecutionException e) {
      // reported by the caller
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The arguments with each archive still being written replaced by its stand-ins. */
  private static List<String> withStandIns(List<String> arguments, LinkRequest request) {
    Map<String, List<Path>> standIns = new HashMap<>();
    request.archives().forEach(a -> standIns.put(a.file().toString(), a.standIns()));
    List<String> replaced = new ArrayList<>();
    for (String argument : arguments) {
      List<Path> files = standIns.get(argument);
      if (files == null || files.isEmpty()) {
        replaced.add(argument);
      } else {
        files.forEach(f -> replaced.add(f.toString()));
      }
    }
    return replaced;
  }

  /** Waits until every archive passed its checks: no library made from one that failed is published. */
  private static void awaitChecks(LinkRequest request) throws IOException, BuildFailureException {
    for (LinkRequest.Archive archive : request.archives()) {
      archive.checks().await();
    }
  }

  /** Every strong symbol defined twice among the objects and archive members, before a linker names only the first. */
  private static void checkDuplicates(LinkRequest request, Map<LinkRequest.Archive, LinkRequest.Checked> checked)
      throws IOException, BuildFailureException {
    try (Trace.Span span = Trace.current().span("duplicate definitions", "link")) {
      Map<Path, List<MemberSymbols>> known = new HashMap<>();
      request.archives().stream().filter(a -> checked.get(a).definitions() != null)
          .forEach(a -> known.put(a.file(), checked.get(a).definitions()));
      DuplicateDefinitions.check(request.objects(), request.archives().stream().map(LinkRequest.Archive::file).toList(),
          known);
    }
  }

  /** One run of the linker, writing {@code output}, through the response file kept for the user. */
  private void run(List<String> arguments, Path output, Path linkDirectory, String fileName)
      throws IOException, ToolchainException, BuildFailureException {
    List<String> withOutput = new ArrayList<>(arguments);
    withOutput.addAll(List.of("-o", output.toString()));
    String rsp = ResponseFile.write(linkDirectory.resolve(fileName + ".rsp"), withOutput);
    ProcessResult result;
    try (Trace.Span span = Trace.current().span(linker.name() + " " + fileName, "link")) {
      result = runner.run(List.of(driver.command(), rsp), outputDirectory);
    }
    if (!result.succeeded()) {
      throw new BuildFailureException("Linking " + fileName + " (with " + linker.name() + ") failed:\n"
          + result.output().strip()
          + "\nThe full command is in " + linkDirectory.resolve(fileName + ".rsp") + ".");
    }
  }

  /**
   * The input files that reference {@code symbols}, as the linker's {@code --trace-symbol} reports
   * them (archive members as {@code libx.a(member.o)}): a link into a scratch file, for an error message.
   */
  private List<String> referrers(List<String> arguments, List<String> symbols, Path linkDirectory, String fileName)
      throws IOException, ToolchainException {
    List<String> traced = new ArrayList<>(arguments);
    symbols.forEach(s -> traced.add("-Wl,--trace-symbol=" + s));
    Path scratch = AtomicFiles.temporarySibling(linkDirectory.resolve(fileName));
    try {
      traced.addAll(List.of("-o", scratch.toString()));
      String rsp = ResponseFile.write(linkDirectory.resolve(fileName + ".trace.rsp"), traced);
      ProcessResult result = runner.run(List.of(driver.command(), rsp), outputDirectory);
      Set<String> found = new LinkedHashSet<>();
      Matcher line = REFERENCE.matcher(result.output());
      while (line.find()) {
        found.add(line.group(1).strip() + " (" + line.group(2) + ")");
      }
      return List.copyOf(found);
    } finally {
      Files.deleteIfExists(scratch);
    }
  }

  /** Runs the check; when it fails, removes the library an earlier build published, and its key. */
  private static void verifyOrWithdraw(Check check, Path written, Path library, Path keyFile)
      throws IOException, BuildFailureException {
    try {
      check.verify(written, library);
    } catch (BuildFailureException e) {
      Files.deleteIfExists(library);
      Files.deleteIfExists(keyFile);
      throw e;
    }
  }

  /**
   * Exports global, everything else local; under the version node {@code node} when there is one
   * (an anonymous node, unversioned, when it is null).
   */
  static String versionScript(String node, List<String> exports) {
    StringBuilder script = new StringBuilder(node == null ? "" : node + " ").append("{\n  global:\n");
    for (String pattern : exports) {
      script.append("    ").append(pattern).append(";\n");
    }
    return script.append("  local:\n    *;\n};\n").toString();
  }

  /**
   * Without {@code <exports>} every visible symbol is exported, under the version node {@code node}
   * when there is one, except the standard library's unique statics (see {@link SystemHeaderSymbols}),
   * kept local by name; null when there is nothing to say (no node, nothing kept local).
   */
  public static String exportAllScript(String node, List<String> keptLocal) {
    if (node == null && keptLocal.isEmpty()) {
      return null;
    }
    StringBuilder script = new StringBuilder(node == null ? "" : node + " ").append("{\n  global:\n    *;\n");
    if (!keptLocal.isEmpty()) {
      script.append("  local:\n");
      keptLocal.forEach(name -> script.append("    ").append(name).append(";\n"));
    }
    return script.append("};\n").toString();
  }

  /**
   * Over the linker and driver, the arguments, the exports, this build's objects and archives, and
   * every other file the link reads ({@link LinkInputs}: start files, runtime libraries, libraries
   * and scripts named in {@code <linkFlags>}), by content. The output folder is named
   * {@code ${output}}, so the same inputs in another checkout give the same key, and build ID.
   */
  private String key(List<String> arguments, LinkRequest request, Map<LinkRequest.Archive, LinkRequest.Checked> checked,
      Path linkDirectory, String fileName) throws IOException, ToolchainException {
    List<Path> otherInputs;
    try (Trace.Span span = Trace.current().span("link inputs", "link")) {
      Set<String> ownInputs = new HashSet<>();
      request.objects().forEach(o -> ownInputs.add(o.toString()));
      request.archives().forEach(a -> ownInputs.add(a.file().toString()));
      List<String> options = arguments.stream().filter(a -> !ownInputs.contains(a)).toList();
      otherInputs = LinkInputs.of(driver, runner, options, outputDirectory, linkDirectory.resolve(fileName + ".inputs"));
    }
    String output = outputDirectory.toAbsolutePath().normalize().toString();
    List<String> parts = new ArrayList<>(List.of(KEY_FORMAT, driver.identity(), linker.identity()));
    arguments.forEach(a -> parts.add(a.replace(output, "${output}")));
    parts.addAll(request.exports());
    parts.add(String.valueOf(request.symbolVersion()));
    parts.add(glibc == null ? "host glibc" : glibc.target().version());
    for (Path object : request.objects()) {
      parts.add(hashes.of(object).orElseThrow(() -> new IOException("cannot read " + object)));
    }
    request.archives().forEach(a -> parts.add(checked.get(a).sha256()));
    for (Path input : otherInputs) {
      parts.add(input.toString().replace(output, "${output}"));
      parts.add(hashes.of(input).orElseThrow(() -> new IOException("cannot read " + input + ", which the link reads")));
    }
    return Hashing.ofStrings(parts);
  }

  /** The GNU build ID for a link key: 20 bytes, as long as the linkers' own SHA-1 IDs. */
  private static String buildId(String key) {
    return key.substring(0, 40);
  }
}
