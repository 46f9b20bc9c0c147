package io.github.kernelarchive.compile;

import java.time.Duration;
import java.util.List;

/**
 * Compiles run on a Slurm cluster whose nodes share this machine's file system.
 *
 * @param launcher {@code srun} and any options of the user's ({@code srun --partition=build})
 * @param cpusPerJob CPUs each compile asks for ({@code --cpus-per-task}); a multi-arch nvcc compile
 *     uses them as {@code --threads}
 * @param timeout how long one {@code srun} may take before it is killed and the compile done here
 */
public record ClusterSettings(List<String> launcher, int cpusPerJob, Duration timeout) {
  public ClusterSettings {
    launcher = List.copyOf(launcher);
  }
}
