package io.github.kernelarchive.pipeline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Compile-farm hosts on this machine: one network namespace per host ({@code ip netns add}), each
 * joined by a veth pair to a bridge in the root namespace, so hosts and the build share one
 * segment, {@code 10.77.0.0/24}: the bridge is {@code 10.77.0.1}, host {@code n} is
 * {@code 10.77.0.(10+n)}. Each host runs real daemons ({@code distccd}, or icecream's
 * {@code iceccd} with the {@code icecc-scheduler} in host 1) that serve only that segment; the
 * build runs in the root namespace. Broadcasts stay on the bridge. Everything is removed on
 * {@link #close}.
 */
final class FarmHosts implements AutoCloseable {
  private static final String SCHEDULER = address(1);

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
   * Makes {@code count} hosts. The daemons' logs and state go to a fresh folder under the
   * system's temporary folder: daemons drop root, and a test's own temporary folder is private.
   */
  static FarmHosts create(int count) throws Exception {
    // Short names: interface names are limited to 15 characters.
    String prefix = "ka" + (ProcessHandle.current().pid() % 100000);
    Path logs = Files.createTempDirectory("kernel-archive-farm");
    Files.setPosixFilePermissions(logs, PosixFilePermissions.fromString("rwxrwxrwx"));
    FarmHosts hosts = new FarmHosts(prefix, logs);
    try {
      run(List.of("ip", "link", "add", hosts.bridge(), "type", "bridge"));
      run(List.of("ip", "addr", "add", "10.77.0.1/24", "dev", hosts.bridge()));
      run(List.of("ip", "link", "set", hosts.bridge(), "up"));
      for (int n = 1; n <= count; n++) {
        String ns = prefix + "n" + n;
        hosts.namespaces.add(ns);
        run(List.of("ip", "netns", "add", ns));
        run(List.of("ip", "link", "add", prefix + "h" + n, "type", "veth", "peer", "name", hosts.inside(n)));
        run(List.of("ip", "link", "set", prefix + "h" + n, "master", hosts.bridge()));
        run(List.of("ip", "link", "set", prefix + "h" + n, "up"));
        run(List.of("ip", "link", "set", hosts.inside(n), "netns", ns));
        run(List.of("ip", "netns", "exec", ns, "ip", "addr", "add", address(n) + "/24", "dev", hosts.inside(n)));
        run(List.of("ip", "netns", "exec", ns, "ip", "link", "set", hosts.inside(n), "up"));
        run(List.of("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"));
      }
      return hosts;
    } catch (Exception e) {
      hosts.close();
      throw e;
    }
  }

  static String address(int host) {
    return "10.77.0." + (10 + host);
  }

  private String bridge() {
    return prefix + "br";
  }

  private String inside(int n) {
    return prefix + "p" + n;
  }

  int count() {
    return namespaces.size();
  }

  Path log(int host) {
    return logs.resolve("host" + host + ".log");
  }

  /** Starts {@code distccd} in host {@code n}, serving {@code slots} jobs at a time; returns once it listens. */
  void startDistccd(int n, int slots) throws Exception {
    startDaemon(n, List.of("distccd", "--daemon", "--allow", "10.77.0.0/24", "--listen", address(n), "--jobs",
        Integer.toString(slots), "--log-level", "info", "--log-file", log(n).toString(), "--pid-file",
        logs.resolve("host" + n + ".pid").toString()), Map.of());
    awaitLog(log(n), "listening on " + address(n));
  }

  /**
   * Starts icecream: the scheduler in host 1, an {@code iceccd} with {@code slots} slots in every
   * host, and this machine's own daemon, which takes no jobs itself (so every compile goes to a
   * host) and which the {@code icecc} client reaches through the socket in
   * {@link #icecreamClientEnvironment}. Each daemon has its own socket and environment folder
   * (they share one file system). Returns once every daemon is known to the scheduler.
   */
  void startIcecream(int slots) throws Exception {
    String network = prefix + "ice";
    startDaemon(1, List.of("icecc-scheduler", "-n", network, "-i", inside(1), "-l",
        logs.resolve("scheduler.log").toString(), "-d", "-vv"), Map.of());
    for (int n = 1; n <= count(); n++) {
      startDaemon(n, List.of("iceccd", "-n", network, "-s", SCHEDULER, "-m", Integer.toString(slots), "-N", "host" + n,
          "-b", logs.resolve("env" + n).toString(), "-l", log(n).toString(), "-d", "-vv"),
          Map.of("ICECC_TEST_SOCKET", logs.resolve("host" + n + ".socket").toString()));
    }
    List<String> local = List.of("iceccd", "-n", network, "-s", SCHEDULER, "-m", "0", "--no-remote", "-i", bridge(),
        "-N", "build", "-b", logs.resolve("env-build").toString(), "-l", logs.resolve("build.log").toString(), "-d",
        "-vv");
    start(local, icecreamClientEnvironment(), logs.resolve("build.console"));
    for (int n = 1; n <= count(); n++) {
      awaitLog(log(n), "Connected to scheduler");
    }
    awaitLog(logs.resolve("build.log"), "Connected to scheduler");
  }

  /** What an {@code icecc} client on this machine needs to reach the build's own daemon. */
  Map<String, String> icecreamClientEnvironment() {
    return Map.of("ICECC_TEST_SOCKET", logs.resolve("build.socket").toString());
  }

  /** Runs {@code daemon} inside host {@code n}. */
  private void startDaemon(int n, List<String> daemon, Map<String, String> environment) throws Exception {
    List<String> argv = new ArrayList<>(List.of("ip", "netns", "exec", namespaces.get(n - 1)));
    argv.addAll(daemon);
    start(argv, environment, logs.resolve("host" + n + ".console"));
  }

  /**
   * Runs {@code daemon} inside host {@code n} with a host name of its own ({@code host<n>}), through
   * {@code nsenter} rather than {@code ip netns exec}, which remounts /sys: slurmd then finds no
   * cgroup file system and stops.
   */
  void startWithHostName(int n, String hostName, List<String> daemon, Map<String, String> environment)
      throws Exception {
    List<String> argv = new ArrayList<>(List.of("nsenter", "--net=/run/netns/" + namespaces.get(n - 1), "unshare",
        "--uts", "sh", "-c", "hostname \"$0\" && exec \"$@\"", hostName));
    argv.addAll(daemon);
    start(argv, environment, logs.resolve("host" + n + ".console"));
  }

  /** The folder the hosts' logs and state go to (the daemons may drop root: everyone may write it). */
  Path folder() {
    return logs;
  }

  /** Its console output goes to a file, never to a pipe a daemon could hold open. */
  private static void start(List<String> argv, Map<String, String> environment, Path console) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(console.toFile()));
    builder.environment().putAll(environment);
    Process process = builder.start();
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

  /** Compiles host {@code n} finished, as its daemon's log records them (distccd or iceccd). */
  long compiles(int n) throws IOException {
    if (!Files.exists(log(n))) {
      return 0;
    }
    try (Stream<String> lines = Files.lines(log(n))) {
      return lines.filter(l -> l.contains("COMPILE_OK") || l.contains("Remote compilation completed with exit code 0"))
          .count();
    }
  }

  private static void awaitLog(Path log, String text) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (Files.exists(log) && Files.readString(log).contains(text)) {
        return;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException(log.getFileName() + " never said '" + text + "': "
        + (Files.exists(log) ? Files.readString(log) : "no log"));
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
    // This machine's own daemon, found by the folder only this farm uses.
    String mark = logs.toString();
    ProcessHandle.allProcesses()
        .filter(p -> p.info().arguments().map(a -> String.join(" ", a).contains(mark)).orElse(false))
        .forEach(ProcessHandle::destroyForcibly);
    runQuietly(List.of("ip", "link", "delete", bridge()));
    try (Stream<Path> files = Files.walk(logs)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    }
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
