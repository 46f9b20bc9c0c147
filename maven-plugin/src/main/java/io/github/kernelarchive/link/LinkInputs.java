package io.github.kernelarchive.link;

import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.toolchain.ProcessResult;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.util.AtomicFiles;
import io.github.kernelarchive.util.Hashing;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Every file a link reads, as the linker will be asked to read it: the C++ driver is run with
 * {@code -###} (it prints the linker command it would run, with its start files, search folders and
 * runtime libraries, and runs nothing), and that command's files, {@code -l} libraries (searched in
 * its {@code -L} folders as the linker searches them), the files linker scripts such as
 * {@code libc.so} name, and {@code --option=file} values are listed. The link key hashes them, so a
 * changed {@code libcudart_static.a}, start file or library named in {@code <linkFlags>} relinks,
 * and the build ID taken from the key changes with what the linker could copy into the library.
 */
final class LinkInputs {
  /** Options after which {@code -l} takes only {@code lib<name>.a}, and those that end that. */
  private static final Set<String> STATIC_MODE = Set.of("-Bstatic", "-static", "-dn", "-non_shared");
  private static final Set<String> DYNAMIC_MODE = Set.of("-Bdynamic", "-dy", "-call_shared");
  /**
   * Linker options whose value is the next word and names no file to read: {@code -o} and
   * {@code -Map} name files it writes, {@code -soname} the library's own name (which, relative to
   * the output folder, is the library written last time).
   */
  private static final Set<String> SEPARATE_VALUE = Set.of("-o", "-soname", "-h", "-rpath", "-rpath-link", "-m",
      "-z", "-e", "--entry", "-u", "--undefined", "-y", "--trace-symbol", "-a", "-Map", "--dynamic-linker",
      "-dynamic-linker", "-plugin-opt", "--exclude-libs", "--sysroot");
  /** Largest linker script read for the files it names ({@code libc.so} is about 300 bytes). */
  private static final int SCRIPT_LIMIT = 64 * 1024;

  private LinkInputs() {}

  /**
   * The files the link reads besides the plugin's own objects and archives.
   *
   * @param options the link's arguments without the plugin's objects and archives (which the
   *     caller hashes itself) and without {@code -o}: a short command line, given directly because
   *     GCC hands a linker the contents of a response file through a temporary one of its own,
   *     which {@code -###} names but does not write
   */
  static List<Path> of(Tool driver, ProcessRunner runner, List<String> options, Path workingDirectory, Path memo)
      throws IOException, ToolchainException {
    List<String> command = new ArrayList<>(List.of(driver.command(), "-###"));
    command.addAll(options);
    command.addAll(List.of("-o", "/dev/null"));
    // The driver's answer depends on the driver and the command alone (and the variables GCC
    // reads): kept beside the link, it is not asked again while they stay the same. The files are
    // still looked up and hashed every time.
    List<String> keyParts = new ArrayList<>(List.of("link inputs 1", driver.identity()));
    keyParts.addAll(command);
    for (String variable : List.of("LIBRARY_PATH", "COMPILER_PATH", "GCC_EXEC_PREFIX")) {
      keyParts.add(variable + "=" + runner.environment().getOrDefault(variable, System.getenv(variable)));
    }
    String key = Hashing.ofStrings(keyParts);
    if (Files.isRegularFile(memo)) {
      List<String> lines = Files.readAllLines(memo, StandardCharsets.UTF_8);
      if (!lines.isEmpty() && lines.get(0).equals(key)) {
        return files(lines.subList(1, lines.size()), workingDirectory);
      }
    }
    ProcessResult result = runner.run(command, workingDirectory);
    if (!result.succeeded()) {
      throw new ToolchainException(String.join(" ", command) + " (asked which files the link reads) failed: "
          + result.output().strip() + "\nCheck <linkFlags> and kernel.cxx.");
    }
    List<String> linker = linkerCommand(result.output());
    if (linker.stream().noneMatch(word -> word.contains("\n"))) {
      List<String> lines = new ArrayList<>(List.of(key));
      lines.addAll(linker);
      AtomicFiles.write(memo, (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
    }
    return files(linker, workingDirectory);
  }

  /**
   * The linker's command from the driver's {@code -###} output: its last line that starts with a
   * space (GCC and Clang both print the commands they would run that way, quoted where needed).
   */
  static List<String> linkerCommand(String driverOutput) {
    String command = null;
    for (String line : driverOutput.split("\n")) {
      if (line.startsWith(" ")) {
        command = line;
      }
    }
    return command == null ? List.of() : words(command);
  }

  /**
   * Splits a command as the drivers print it: words apart by spaces, double quotes with backslash
   * escapes. Not Plexus Utils' {@code CommandLineUtils.translateCommandline}: it keeps the
   * backslashes GCC puts before a quote or backslash inside a quoted path ({@code "say \"hi\""}
   * comes out as {@code say \hi\}).
   */
  static List<String> words(String command) {
    List<String> words = new ArrayList<>();
    StringBuilder word = null;
    boolean quoted = false;
    for (int i = 0; i < command.length(); i++) {
      char c = command.charAt(i);
      if (c == ' ' && !quoted) {
        if (word != null) {
          words.add(word.toString());
          word = null;
        }
        continue;
      }
      word = word == null ? new StringBuilder() : word;
      if (quoted && c == '\\' && i + 1 < command.length()) {
        word.append(command.charAt(++i));
      } else if (c == '"') {
        quoted = !quoted;
      } else {
        word.append(c);
      }
    }
    if (word != null) {
      words.add(word.toString());
    }
    return words;
  }

  /**
   * The regular files among the linker's arguments (not values such as {@code -o}'s), named as
   * {@code --option=file}, found by its {@code -l} options, and named by the linker scripts found;
   * in order, each once. The first word is the linker itself, in the key through its identity.
   */
  static List<Path> files(List<String> command, Path workingDirectory) {
    List<Path> folders = new ArrayList<>();
    List<Library> libraries = new ArrayList<>();
    Set<Path> files = new LinkedHashSet<>();
    boolean shared = true;
    for (int i = 1; i < command.size(); i++) {
      String word = command.get(i);
      if (SEPARATE_VALUE.contains(word)) {
        i++;
      } else if (word.startsWith("-L")) {
        String folder = word.length() > 2 ? word.substring(2) : i + 1 < command.size() ? command.get(++i) : "";
        folders.add(workingDirectory.resolve(folder));
      } else if (word.startsWith("-l")) {
        String name = word.length() > 2 ? word.substring(2) : i + 1 < command.size() ? command.get(++i) : "";
        libraries.add(new Library(name, shared));
      } else if (STATIC_MODE.contains(word) || DYNAMIC_MODE.contains(word)) {
        shared = DYNAMIC_MODE.contains(word);
      } else if (word.startsWith("--") && word.indexOf('=') > 0) {
        addIfFile(files, workingDirectory, word.substring(word.indexOf('=') + 1));
      } else if (!word.startsWith("-")) {
        addIfFile(files, workingDirectory, word);
      }
    }
    // The linker looks for each -l in every -L folder, in order, wherever it stands on the line.
    for (Library library : libraries) {
      found(library, folders).ifPresent(file -> {
        files.add(file);
        files.addAll(namedByScript(file));
      });
    }
    return List.copyOf(files);
  }

  /** An {@code -l} option: {@code shared} when it came where the linker takes shared libraries. */
  private record Library(String name, boolean shared) {}

  /**
   * What {@code -l<name>} finds: {@code -l:file} that file; otherwise, in the first folder
   * holding one, {@code lib<name>.so} (where shared libraries are taken) or else {@code lib<name>.a}.
   */
  private static Optional<Path> found(Library library, List<Path> folders) {
    String name = library.name();
    List<String> names = name.startsWith(":") ? List.of(name.substring(1))
        : library.shared() ? List.of("lib" + name + ".so", "lib" + name + ".a") : List.of("lib" + name + ".a");
    for (Path folder : folders) {
      for (String file : names) {
        Path candidate = folder.resolve(file);
        if (Files.isRegularFile(candidate)) {
          return Optional.of(candidate.normalize());
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The files a linker script found for {@code -l} names by absolute path: {@code libc.so} is one,
   * naming {@code libc_nonshared.a}, whose code is copied into the library. Empty for an ELF
   * object or an archive.
   */
  static List<Path> namedByScript(Path library) {
    try {
      if (Files.size(library) > SCRIPT_LIMIT) {
        return List.of();
      }
      String text = Files.readString(library, StandardCharsets.ISO_8859_1);
      if (text.startsWith("\u007fELF") || text.startsWith("!<arch>") || text.startsWith("!<thin>")) {
        return List.of();
      }
      List<Path> named = new ArrayList<>();
      for (String word : text.replace('(', ' ').replace(')', ' ').split("\\s+")) {
        if (word.startsWith("/") && Files.isRegularFile(Path.of(word))) {
          named.add(Path.of(word).normalize());
        }
      }
      return named;
    } catch (IOException | InvalidPathException e) {
      return List.of(); // unreadable here: the linker will say so
    }
  }

  private static void addIfFile(Set<Path> files, Path workingDirectory, String name) {
    if (name.isEmpty()) {
      return;
    }
    try {
      Path file = workingDirectory.resolve(name);
      if (Files.isRegularFile(file)) {
        files.add(file.normalize());
      }
    } catch (InvalidPathException e) {
      // not a path (an option value such as a symbol name)
    }
  }
}
