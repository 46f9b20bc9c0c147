package io.github.kernelarchive.pipeline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Compile-farm hosts on this machine: one network namespace per host ({@code ip netns add}),
 * joined to the root namespace by a veth pair, {@code 10.77.<n>.1} on this side and
 * {@code 10.77.<n>.2} inside, each running a real daemon ({@code distccd}, or icecream's
 * {@code iceccd}) that listens only on its inside address. The build runs in the root namespace
 * and reaches the hosts only at those addresses. Everything is removed on {@link #close}.
 */
final class FarmHosts implements AutoCloseable {
  private final String prefix;
  private final Path logs;
  private final List<String> namespaces = new ArrayList<>();

  private FarmHosts(String prefix, Path logs) {
    this.prefix = prefix;
    this.logs = logs;
  }

  /**
   * Whether namespaces can be made here (root, iproute2, a kernel that allows it); prints the
   * reason when not, for the test that is then skipped.
   */
  static boolean available() {
    String probe = "kafp" + ProcessHandle.current().pid();
    try {
      run(List.of("ip", "netns", "add", probe));
      run(List.of("ip", "netns", "delete", probe));
      return true;
    } catch (Exception e) {
      System.out.println("SKIPPED: network namespaces cannot be made here (" + e.getMessage().strip()
          + "); the compile-farm tests need root and iproute2");
      return false;
    }
  }

  /**
   * Makes {@code count} namespaces with their links. The daemons' logs go to a fresh folder under
   * the system's temporary folder: daemons drop root, and a test's own temporary folder is
   * private to root.
   */
  static FarmHosts create(int count) throws Exception {
    // Short names: interface names are limited to 15 characters.
    String prefix = "ka" + (ProcessHandle.current().pid() % 100000);
    Path logs = Files.createTempDirectory("kernel-archive-farm");
    Files.setPosixFilePermissions(logs, PosixFilePermissions.fromString("rwxrwxrwx"));
    FarmHosts hosts = new FarmHosts(prefix, logs);
    try {
      for (int n = 1; n <= count; n++) {
        String ns = prefix + "n" + n;
        hosts.namespaces.add(ns);
        run(List.of("ip", "netns", "add", ns));
        run(List.of("ip", "link", "add", prefix + "h" + n, "type", "veth", "peer", "name", prefix + "p" + n));
        run(List.of("ip", "link", "set", prefix + "p" + n, "netns", ns));
        run(List.of("ip", "addr", "add", "10.77." + n + ".1/24", "dev", prefix + "h" + n));
        run(List.of("ip", "link", "set", prefix + "h" + n, "up"));
        run(List.of("ip", "netns", "exec", ns, "ip", "addr", "add", address(n) + "/24", "dev", prefix + "p" + n));
        run(List.of("ip", "netns", "exec", ns, "ip", "link", "set", prefix + "p" + n, "up"));
        run(List.of("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"));
      }
      return hosts;
    } catch (Exception e) {
      hosts.close();
      throw e;
    }
  }

  static String address(int host) {
    return "10.77." + host + ".2";
  }

  int count() {
    return namespaces.size();
  }

  Path log(int host) {
    return logs.resolve("host" + host + ".log");
  }

  /** Starts {@code distccd} in host {@code n}, serving {@code slots} jobs at a time; returns once it listens. */
  void startDistccd(int n, int slots) throws Exception {
    startDaemon(n, List.of("distccd", "--daemon", "--allow", "10.77.0.0/16", "--listen", address(n), "--jobs",
        Integer.toString(slots), "--log-level", "info", "--log-file", log(n).toString(), "--pid-file",
        logs.resolve("host" + n + ".pid").toString()));
    awaitLog(n, "listening on " + address(n));
  }

  /** Runs {@code daemon} inside host {@code n}; its console output goes to a file, never to a pipe it could hold open. */
  private void startDaemon(int n, List<String> daemon) throws Exception {
    List<String> argv = new ArrayList<>(List.of("ip", "netns", "exec", namespaces.get(n - 1)));
    argv.addAll(daemon);
    Path console = logs.resolve("host" + n + ".console");
    Process process = new ProcessBuilder(argv).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(console.toFile())).start();
    if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new IOException(String.join(" ", argv) + " failed: " + Files.readString(console));
    }
  }

  /** Kills every process of host {@code n} with SIGKILL, as a machine that loses power. */
  void kill(int n) throws Exception {
    String pids = run(List.of("ip", "netns", "pids", namespaces.get(n - 1)));
    for (String pid : pids.split("\\s+")) {
      if (!pid.isBlank()) {
        ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }

  /** Lines of host {@code n}'s log that record a finished compile. */
  long compiles(int n) throws IOException {
    if (!Files.exists(log(n))) {
      return 0;
    }
    try (var lines = Files.lines(log(n))) {
      return lines.filter(l -> l.contains("COMPILE_OK")).count();
    }
  }

  private void awaitLog(int n, String text) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (Files.exists(log(n)) && Files.readString(log(n)).contains(text)) {
        return;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("host " + n + " did not start: " + (Files.exists(log(n))
        ? Files.readString(log(n)) : "no log"));
  }

  @Override
  public void close() throws Exception {
    for (int n = 1; n <= namespaces.size(); n++) {
      try {
        kill(n);
      } catch (Exception e) {
        // already gone
      }
      runQuietly(List.of("ip", "link", "delete", prefix + "h" + n)); // its peer goes with it
      runQuietly(List.of("ip", "netns", "delete", namespaces.get(n - 1)));
    }
    try (var files = Files.list(logs)) {
      for (Path file : files.toList()) {
        Files.deleteIfExists(file);
      }
    }
    Files.deleteIfExists(logs);
  }

  private static void runQuietly(List<String> argv) {
    try {
      run(argv);
    } catch (Exception e) {
      // best effort while cleaning up
    }
  }

  private static String run(List<String> argv) throws Exception {
    Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IOException(argv + " did not finish in 30 s");
    }
    String output = new String(process.getInputStream().readAllBytes());
    if (process.exitValue() != 0) {
      throw new IOException(String.join(" ", argv) + " failed: " + output);
    }
    return output;
  }
}
