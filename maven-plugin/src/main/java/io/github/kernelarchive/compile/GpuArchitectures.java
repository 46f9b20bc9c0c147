package io.github.kernelarchive.compile;

import io.github.kernelarchive.common.BuildFailureException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns architecture lists into compiler flags. CUDA lists use the TORCH_CUDA_ARCH_LIST style:
 * {@code 80;90a;100+PTX} or {@code 8.0 9.0a 10.0+PTX}, separated by {@code ;}, {@code ,} or spaces.
 * Each entry becomes an explicit {@code -gencode} (SASS for that GPU, plus PTX with {@code +PTX}),
 * since build machines have no GPU to ask.
 */
public final class GpuArchitectures {
  private static final Pattern CUDA_ARCH = Pattern.compile("(\\d+)(?:\\.(\\d))?([af]?)(\\+ptx)?");
  private static final Pattern HIP_ARCH = Pattern.compile("gfx[0-9a-f]+(:[a-z+-]+)*");

  private GpuArchitectures() {}

  public static List<String> nvccFlags(String archs) throws BuildFailureException {
    List<String> flags = new ArrayList<>();
    for (String entry : split(archs)) {
      Matcher m = CUDA_ARCH.matcher(entry.toLowerCase(Locale.ROOT));
      if (!m.matches()) {
        throw new BuildFailureException("CUDA architecture '" + entry + "' in <cuda><archs> (property"
            + " kernel.cuda.archs) is not understood. Use compute capabilities like 80;90a;100+PTX"
            + " (or 8.0;9.0a;10.0+PTX).");
      }
      String number = m.group(2) == null ? m.group(1) : m.group(1) + m.group(2);
      String arch = number + m.group(3);
      String code = m.group(4) == null ? "sm_" + arch : "[sm_" + arch + ",compute_" + arch + "]";
      flags.add("-gencode=arch=compute_" + arch + ",code=" + code);
    }
    return flags;
  }

  /** The SASS targets of {@code archs}, normalized ({@code 8.0;90a+PTX} gives 80 and 90a); PTX marks dropped. */
  public static java.util.Set<String> cudaTargets(String archs) throws BuildFailureException {
    java.util.Set<String> targets = new java.util.TreeSet<>();
    for (String flag : nvccFlags(archs)) {
      targets.add(flag.substring("-gencode=arch=compute_".length(), flag.indexOf(',')));
    }
    return targets;
  }

  public static List<String> hipFlags(String archs) throws BuildFailureException {
    List<String> flags = new ArrayList<>();
    for (String entry : split(archs)) {
      if (!HIP_ARCH.matcher(entry).matches()) {
        throw new BuildFailureException("HIP architecture '" + entry + "' in <hip><archs> (property"
            + " kernel.hip.archs) is not understood. Use AMD targets like gfx90a;gfx942.");
      }
      flags.add("--offload-arch=" + entry);
    }
    return flags;
  }

  /** True when the HIP targets are AMD GPUs (hipcc must then be told so if nvcc is installed too). */
  public static boolean targetsAmd(String hipArchs) {
    return split(hipArchs).stream().anyMatch(a -> a.startsWith("gfx"));
  }

  private static List<String> split(String archs) {
    List<String> entries = new ArrayList<>();
    for (String entry : archs.split("[;,\\s]+")) {
      if (!entry.isBlank()) {
        entries.add(entry.trim());
      }
    }
    return entries;
  }
}
