package io.github.kernelarchive.pipeline;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Slurm cluster on this machine, from Debian's packages: {@code munged} and
 * {@code slurmctld} here, and one {@code slurmd} per node, each in a network namespace of its own
 * with its own host name ({@link FarmHosts}); the nodes see this machine's file system, as cluster
 * nodes see NFS. Nodes {@code n1..nN} have one CPU each. Its own munge key and socket, ports and
 * state folder, so nothing of the machine's own Slurm (if any) is touched. {@code srun} and
 * {@code sinfo} reach it through {@link #environment} ({@code SLURM_CONF}).
 */
final class SlurmCluster implements AutoCloseable {
  private final FarmHosts hosts;
  private final Path folder;
  private final Path config;

  private SlurmCluster(FarmHosts hosts, Path folder) {
    this.hosts = hosts;
    this.folder = folder;
    this.config = folder.resolve("slurm.conf");
  }

  /** Whether a cluster can be made here; when not, says what to install (the test is then skipped). */
  static boolean available() {
    for (String tool : List.of("srun", "slurmctld", "slurmd", "munged")) {
      Installed.assumeOnPath(tool, "compiling on a Slurm cluster");
    }
    return FarmHosts.available();
  }

  static SlurmCluster start(int nodes) throws Exception {
    FarmHosts hosts = FarmHosts.create(nodes);
    SlurmCluster cluster = new SlurmCluster(hosts, hosts.folder());
    try {
      cluster.startDaemons(nodes);
      return cluster;
    } catch (Exception e) {
      cluster.close();
      throw e;
    }
  }

  private void startDaemons(int nodes) throws Exception {
    Path run = Files.createDirectories(folder.resolve("run"));
    Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxr-xr-x")); // munged wants 755
    Path key = folder.resolve("munge.key");
    byte[] secret = new byte[1024];
    new SecureRandom().nextBytes(secret);
    Files.write(key, secret);
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("r--------"));
    Files.createDirectories(folder.resolve("state"));
    exec(List.of("munged", "--force", "-S", socket().toString(), "--key-file=" + key,
        "--log-file=" + folder.resolve("munged.log"), "--pid-file=" + run.resolve("munged.pid"),
        "--seed-file=" + folder.resolve("state/munged.seed")));
    Files.writeString(config, configuration(nodes));
    exec(List.of("slurmctld", "-f", config.toString()));
    for (int n = 1; n <= nodes; n++) {
      Files.createDirectories(folder.resolve("spool/n" + n));
      hosts.startWithHostName(n, "n" + n, List.of("slurmd", "-N", "n" + n, "-f", config.toString()), Map.of());
    }
    awaitIdle(nodes);
  }

  private Path socket() {
    return folder.resolve("run/munge.socket");
  }

  private String configuration(int nodes) throws Exception {
    // The machine's name as slurmctld sees it (the JVM of the tests may resolve names from a file of its own).
    String controller = new String(new ProcessBuilder("hostname").start().getInputStream().readAllBytes()).strip();
    String last = Integer.toString(10 + nodes);
    return String.join("\n",
        "ClusterName=kernelarchive",
        "SlurmctldHost=" + controller + "(10.77.0.1)",
        "SlurmctldPort=" + freePort(),
        "SlurmdPort=" + freePort(),
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        "AuthInfo=socket=" + socket(),
        "StateSaveLocation=" + folder.resolve("state"),
        "SlurmdSpoolDir=" + folder.resolve("spool/%n"),
        "SlurmctldPidFile=" + folder.resolve("run/slurmctld.pid"),
        "SlurmdPidFile=" + folder.resolve("run/slurmd-%n.pid"),
        "SlurmctldLogFile=" + folder.resolve("slurmctld.log"),
        "SlurmdLogFile=" + folder.resolve("slurmd-%n.log"),
        "SlurmdDebug=info",
        // The nodes share this machine's processes and file system: no cgroups, no task binding.
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_CPU",
        "AccountingStorageType=accounting_storage/none",
        "JobAcctGatherType=jobacct_gather/none",
        "JobCompType=jobcomp/none",
        "MpiDefault=none",
        "ReturnToService=2",
        // A node that stops answering is found dead in seconds, not the default five minutes.
        "SlurmdTimeout=10",
        "MessageTimeout=5",
        "KillWait=5",
        "NodeName=n[1-" + nodes + "] NodeAddr=10.77.0.[11-" + last + "] CPUs=1 State=UNKNOWN",
        "PartitionName=build Nodes=n[1-" + nodes + "] Default=YES MaxTime=INFINITE State=UP",
        "");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** What srun and sinfo need to find this cluster. */
  Map<String, String> environment() {
    return Map.of("SLURM_CONF", config.toString());
  }

  private void awaitIdle(int nodes) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String last = "";
    while (System.nanoTime() < deadline) {
      last = query(List.of("sinfo", "--noheader", "--responding", "-o", "%C"));
      if (last.strip().equals("0/" + nodes + "/0/" + nodes)) {
        return;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("the cluster's " + nodes + " nodes never became idle (sinfo: " + last + "): "
        + Files.readString(folder.resolve("slurmctld.log")));
  }

  /** Compile steps node {@code n} launched, as its slurmd's log records them. */
  long steps(int n) throws IOException {
    Path log = folder.resolve("slurmd-n" + n + ".log");
    if (!Files.exists(log)) {
      return 0;
    }
    try (Stream<String> lines = Files.lines(log)) {
      return lines.filter(l -> l.contains("launch task StepId=")).count();
    }
  }

  /** Kills every process of node {@code n} (slurmd, its step daemons, the compilers), as a node that loses power. */
  void killNode(int n) throws Exception {
    hosts.kill(n);
  }

  /** Stops the controller: srun and sinfo then find nobody to ask. */
  void stopController() throws Exception {
    killByPidFile(folder.resolve("run/slurmctld.pid"));
  }

  private String query(List<String> argv) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
    builder.environment().putAll(environment());
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes());
    process.waitFor(30, TimeUnit.SECONDS);
    return output;
  }

  private void exec(List<String> argv) throws Exception {
    Process process = new ProcessBuilder(argv).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(folder.resolve("daemons.console").toFile())).start();
    if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new IOException(String.join(" ", argv) + " failed: " + Files.readString(folder.resolve("daemons.console")));
    }
  }

  private static void killByPidFile(Path pidFile) throws IOException {
    if (Files.exists(pidFile)) {
      long pid = Long.parseLong(Files.readString(pidFile).strip());
      ProcessHandle.of(pid).ifPresent(p -> {
        p.destroyForcibly();
        p.onExit().join();
      });
    }
  }

  @Override
  public void close() throws Exception {
    try {
      killByPidFile(folder.resolve("run/slurmctld.pid"));
      killByPidFile(folder.resolve("run/munged.pid"));
    } finally {
      hosts.close(); // the nodes' processes, the namespaces, the folder
    }
  }
}
