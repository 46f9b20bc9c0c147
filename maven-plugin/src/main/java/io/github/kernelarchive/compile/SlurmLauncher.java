package io.github.kernelarchive.compile;

import io.github.kernelarchive.common.BuildLog;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.toolchain.ProcessResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs whole compile commands on the nodes of a Slurm cluster that share this machine's file
 * system (NFS, Lustre): {@code srun --quiet --ntasks=1 --cpus-per-task=N <compiler> <args>}. It
 * takes what a C/C++ farm cannot (nvcc, hipcc), and every compile when no C/C++ farm is
 * configured. A compile the cluster failed for its own reasons (no allocation, a node that died,
 * a step cancelled or preempted, a controller out of reach, an srun that never returned) is told
 * apart from the compiler's own failure, so the executor can compile it here instead; a compiler
 * error is the user's and is never retried.
 */
public final class SlurmLauncher {
  /** Printed by the node before the compiler starts: which node ran the compile. */
  private static final String NODE_MARK = "kernel-archive-node=";
  private static final Pattern NODE_LINE = Pattern.compile("^" + NODE_MARK + "(\\S*)$", Pattern.MULTILINE);
  /** srun's report of the task's own exit (a compiler's error or signal): the compiler's failure, not the cluster's. */
  private static final Pattern TASK_STATUS = Pattern.compile("^srun: error: \\S+: tasks? [\\d,-]+: .*$");
  /** srun's and slurmstepd's reports of the cluster's failures. */
  private static final Pattern INFRASTRUCTURE = Pattern.compile(
      "^(srun: (error|fatal): .*|srun: Job step aborted.*|slurmstepd: error: \\*\\*\\* .*(CANCELLED|PREEMPT|NODE FAIL).*)$");
  /** sinfo -o %C: allocated/idle/other/total CPUs. */
  private static final Pattern CPUS = Pattern.compile("^(\\d+)/(\\d+)/(\\d+)/(\\d+)$");

  /** How a compile on the cluster ended: the compiler's result, the node, or why the cluster failed it. */
  public record Result(ProcessResult result, String node, String clusterFailure) {}

  private final ClusterSettings settings;
  private final Map<String, String> environment;
  private final int idleCpus;

  private SlurmLauncher(ClusterSettings settings, Map<String, String> environment, int idleCpus) {
    this.settings = settings;
    this.environment = Map.copyOf(environment);
    this.idleCpus = idleCpus;
  }

  /**
   * The cluster when its controller answers ({@code sinfo}); otherwise empty, with one warning:
   * the build then compiles here.
   */
  public static Optional<SlurmLauncher> connect(ClusterSettings settings, Map<String, String> environment,
      BuildLog log) {
    Path sinfo = Path.of(settings.launcher().get(0)).resolveSibling("sinfo");
    String command = settings.launcher().get(0).contains("/") ? sinfo.toString() : "sinfo";
    String why;
    try {
      ProcessResult answer = run(List.of(command, "--noheader", "--responding", "-o", "%C"), environment, 30);
      Matcher cpus = CPUS.matcher(answer.output().strip());
      if (answer.succeeded() && cpus.find()) {
        return Optional.of(new SlurmLauncher(settings, environment, Integer.parseInt(cpus.group(2))));
      }
      why = "sinfo: " + answer.output().strip().lines().findFirst().orElse("exit " + answer.exitCode());
    } catch (IOException e) {
      why = command + " could not be run (" + e.getMessage() + ")";
    }
    log.warn("kernel.cluster.launcher: the Slurm cluster does not answer (" + why + "): compiling here.");
    return Optional.empty();
  }

  /** Jobs to run when {@code kernel.jobs} is not set: the cluster's idle CPUs over the CPUs a job asks for. */
  public int defaultJobs() {
    return Math.max(1, idleCpus / settings.cpusPerJob());
  }

  /** For the build's {@code Jobs:} line. */
  public String describe() {
    return "srun: " + idleCpus + " idle CPUs in the cluster, " + settings.cpusPerJob() + " per job";
  }

  /** Whether the cluster takes this job: nvcc and hipcc always, C and C++ unless a C/C++ farm does. */
  boolean takes(CompileJob job) {
    Language language = job.source().language();
    return language == Language.CUDA || language == Language.HIP || FarmLauncher.farmIn(job.launcher()).isEmpty();
  }

  /**
   * The command srun runs: the job's launcher and compiler behind a shell that first names the
   * node; a multi-arch nvcc compile also gets {@code --threads} for the CPUs the job holds (not
   * part of the job's key: it does not change the object).
   */
  List<String> commandLine(CompileJob job) {
    List<String> line = new ArrayList<>(settings.launcher());
    line.addAll(List.of("--quiet", "--ntasks=1", "--cpus-per-task=" + settings.cpusPerJob()));
    line.addAll(List.of("sh", "-c", "echo " + NODE_MARK + "\"$SLURMD_NODENAME\" >&2; exec \"$@\"", "sh"));
    line.addAll(job.launcher());
    line.addAll(withThreads(job.argv(), job.source().language(), settings.cpusPerJob()));
    return line;
  }

  /** nvcc's {@code --threads} for a compile of more than one architecture; other commands as they are. */
  static List<String> withThreads(List<String> argv, Language language, int cpus) {
    long targets = argv.stream().filter(a -> a.equals("-gencode") || a.startsWith("-gencode=")).count();
    if (language != Language.CUDA || cpus < 2 || targets < 2 || argv.contains("--threads") || argv.contains("-t")) {
      return argv;
    }
    List<String> threaded = new ArrayList<>(argv);
    threaded.addAll(1, List.of("--threads", Integer.toString((int) Math.min(cpus, targets))));
    return threaded;
  }

  /** Runs the job on the cluster, within the timeout; says whether the cluster or the compiler failed. */
  Result run(CompileJob job, Path workingDirectory) throws IOException, InterruptedException {
    Map<String, String> jobEnvironment = new java.util.HashMap<>(environment);
    jobEnvironment.putAll(job.environment());
    ProcessResult raw = run(commandLine(job), jobEnvironment, workingDirectory, settings.timeout().toSeconds());
    if (raw == null) {
      return new Result(null, null, "srun did not return within " + settings.timeout().toSeconds()
          + " s (kernel.cluster.timeout)");
    }
    String node = null;
    Matcher mark = NODE_LINE.matcher(raw.output());
    while (mark.find()) {
      node = mark.group(1);
    }
    List<String> compilerOutput = new ArrayList<>();
    String failure = null;
    for (String line : raw.output().split("\n", -1)) {
      if (line.startsWith(NODE_MARK) || TASK_STATUS.matcher(line).matches()) {
        continue;
      }
      if (INFRASTRUCTURE.matcher(line).matches()) {
        failure = failure == null ? line.strip() : failure;
        continue;
      }
      compilerOutput.add(line);
    }
    if (failure == null && node == null) {
      failure = "srun exited " + raw.exitCode() + " before the compile started";
    }
    if (failure == null && raw.exitCode() == 0 && !Files.isRegularFile(job.object())) {
      failure = "node " + node + " wrote no object";
    }
    return new Result(new ProcessResult(raw.exitCode(), String.join("\n", compilerOutput).strip()), node, failure);
  }

  private static ProcessResult run(List<String> argv, Map<String, String> environment, long timeoutSeconds)
      throws IOException {
    try {
      ProcessResult result = run(argv, environment, null, timeoutSeconds);
      return result == null ? new ProcessResult(124, "timed out after " + timeoutSeconds + " s") : result;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /**
   * Runs {@code argv} with its output in a temporary file (a pipe would need a reader thread to
   * never block the process); {@code null} when it ran past the timeout (then it is killed: an
   * srun whose step daemon died may never return by itself).
   */
  private static ProcessResult run(List<String> argv, Map<String, String> environment, Path workingDirectory,
      long timeoutSeconds) throws IOException, InterruptedException {
    Path output = Files.createTempFile("kernel-archive-srun", ".log");
    try {
      ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(output.toFile());
      if (workingDirectory != null) {
        builder.directory(workingDirectory.toFile());
      }
      builder.environment().putAll(environment);
      Process process = builder.start();
      process.getOutputStream().close();
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        return null;
      }
      return new ProcessResult(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(output);
    }
  }
}
