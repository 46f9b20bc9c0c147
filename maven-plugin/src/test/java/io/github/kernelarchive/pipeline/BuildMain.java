package io.github.kernelarchive.pipeline;

import io.github.kernelarchive.common.BuildLog;
import java.nio.file.Path;

/**
 * Runs one build of a {@link Projects} project in its own JVM, logging to stdout, so tests can
 * run builds concurrently as separate processes or kill one with SIGKILL.
 * Arguments: project directory, cache directory, batch size.
 */
public final class BuildMain {
  private BuildMain() {}

  public static void main(String[] args) throws Exception {
    BuildLog out = new BuildLog() {
      @Override public synchronized void info(String message) { System.out.println(message); }
      @Override public synchronized void warn(String message) { System.out.println("WARN " + message); }
      @Override public synchronized void error(String message) { System.out.println("ERROR " + message); }
      @Override public void debug(String message) {}
    };
    new KernelBuild(out, System.getenv()).run(Projects.request(Path.of(args[0]), Path.of(args[1]),
        Integer.parseInt(args[2]), args.length > 3 ? args[3] : null));
  }

  /** A process running {@link #main} with the test class path. */
  public static ProcessBuilder process(Path project, Path cache, int batchSize) {
    return process(project, cache, batchSize, "auto");
  }

  /** The same, with {@code kernel.linker} chosen. */
  public static ProcessBuilder process(Path project, Path cache, int batchSize, String linker) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), BuildMain.class.getName(),
        project.toString(), cache.toString(), Integer.toString(batchSize), linker).redirectErrorStream(true);
  }
}
