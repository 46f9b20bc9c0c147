package io.github.kernelarchive.wheel;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.elf.ElfObject.VersionNeed;
import io.github.kernelarchive.elf.VersionFloor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The manylinux tag a wheel's content earns, computed as auditwheel's policy check does: the
 * oldest policy whose allowed libraries hold every system library any ELF file needs, and whose
 * symbol versions hold every version those files require of them (per family the policy lists).
 * Libraries that other wheels provide or the wheel itself holds are not the system's and are not
 * checked here.
 */
public final class PlatformTag {
  /** An ELF file of the wheel: its path inside the wheel and what it needs. */
  public record ElfFile(String path, ElfObject elf) {}

  /**
   * A required version and the imports that require it, per file of the wheel:
   * {@code GLIBC_2.34: dlopen, pthread_create (mha/libmha.so)}.
   */
  public record Requirement(String family, String version, Map<String, List<String>> symbolsByFile) {
    public String describe() {
      List<String> parts = new ArrayList<>();
      symbolsByFile.forEach((file, symbols) -> parts.add(String.join(", ", symbols) + " (" + file + ")"));
      return family + "_" + version + ": " + String.join("; ", parts);
    }
  }

  /**
   * @param policy the oldest policy the content fits
   * @param highest per family, the highest version required and what requires it: the symbols that set the tag
   * @param blacklisted the imports an older policy's blacklist refused, when they set the tag
   *     ({@code uncompress2 from libz.so.1 (answer/libanswer.so), not on every manylinux_2_31 system})
   * @param floor the glibc target ({@code kernel.glibc}) when it set the tag, else null
   */
  public record Result(ManylinuxPolicy policy, List<String> tags, Map<String, Requirement> highest,
      List<String> blacklisted, String floor) {}

  private PlatformTag() {}

  /**
   * @param provided SONAMEs that other wheels or the wheel itself provide
   * @param maxPolicy the newest policy allowed ({@code <maxManylinux>}), or null
   * @param glibcFloor the glibc the build was held to ({@code kernel.glibc}), or null: the tag claims
   *     no older policy than that, since nothing older was checked (where the content needs more, that)
   */
  public static Result compute(List<ElfFile> files, Set<String> provided, String architecture, ManylinuxPolicy maxPolicy,
      String glibcFloor) throws BuildFailureException {
    List<String> systemLibraries = new ArrayList<>();
    for (ElfFile file : files) {
      for (ElfObject.DynamicEntry entry : file.elf().dynamicEntries()) {
        if (entry.tag() == ElfObject.DT_NEEDED && !provided.contains(entry.value())
            && !ManylinuxPolicy.isDynamicLoader(entry.value())) {
          if (!ManylinuxPolicy.isSystemLibrary(entry.value())) {
            throw new BuildFailureException(file.path() + " in the wheel needs " + entry.value() + ", which no manylinux"
                + " policy lets a wheel take from the system, and no wheel dependency provides. Either declare the wheel"
                + " that provides it (<wheel><dependencies><dependency><library>" + entry.value() + "</library>"
                + "<distribution>...</distribution>), link it statically or as a stub (<linkage>stub</linkage>), or"
                + " drop it from the link.");
          }
          systemLibraries.add(entry.value());
        }
      }
    }
    Map<String, Map<String, Map<String, List<String>>>> required = requiredVersions(files, provided);
    List<String> blacklisted = List.of();
    boolean belowFloor = false;
    for (ManylinuxPolicy policy : ManylinuxPolicy.all()) {
      if (policy.versionsFor(architecture).isEmpty()) {
        continue; // not defined for this architecture (manylinux1 has no aarch64)
      }
      if (!policy.libraries().containsAll(systemLibraries) || !offending(policy, architecture, required).isEmpty()) {
        continue;
      }
      List<String> refused = blacklisted(policy, files, provided);
      if (!refused.isEmpty()) {
        blacklisted = refused.stream().map(r -> r + ", not on every " + policy.name() + " system").toList();
        continue;
      }
      if (glibcFloor != null && VersionFloor.VERSION_ORDER.compare(glibcOf(policy), glibcFloor) < 0) {
        belowFloor = true;
        continue;
      }
      if (maxPolicy != null && policy.priority() < maxPolicy.priority()) {
        throw new BuildFailureException("The wheel's content needs " + policy.name() + ", newer than <maxManylinux> "
            + maxPolicy.name() + " allows: " + String.join("; ", reasons(maxPolicy, architecture, required, files, provided))
            + ". Link against an older glibc/libstdc++"
            + " (kernel.glibc), drop what needs these versions, or raise <maxManylinux>.");
      }
      return new Result(policy, policy.tags(architecture), highest(required), blacklisted,
          belowFloor ? glibcFloor : null);
    }
    ManylinuxPolicy newest = ManylinuxPolicy.all().get(ManylinuxPolicy.all().size() - 1);
    throw new BuildFailureException("The wheel's content fits no manylinux policy up to " + newest.name() + ": "
        + String.join("; ", reasons(newest, architecture, required, files, provided)) + ".");
  }

  /** Why the content does not fit {@code policy}: versions it lacks, then imports its blacklist refuses. */
  private static List<String> reasons(ManylinuxPolicy policy, String architecture,
      Map<String, Map<String, Map<String, List<String>>>> required, List<ElfFile> files, Set<String> provided) {
    List<String> reasons = new ArrayList<>(offending(policy, architecture, required));
    blacklisted(policy, files, provided).forEach(b -> reasons.add("blacklisted " + b));
    return reasons;
  }

  /** {@code 2.17} of {@code manylinux_2_17}: the glibc the policy's systems have at least (PEP 600). */
  private static String glibcOf(ManylinuxPolicy policy) {
    return policy.name().substring("manylinux_".length()).replace('_', '.');
  }

  /**
   * The imports the policy's blacklist refuses, as auditwheel checks them: an undefined dynamic
   * symbol of a file that NEEDs a blacklisted system library and bears a name that library's
   * blacklist holds.
   */
  private static List<String> blacklisted(ManylinuxPolicy policy, List<ElfFile> files, Set<String> provided) {
    List<String> refused = new ArrayList<>();
    for (ElfFile file : files) {
      for (ElfObject.DynamicEntry entry : file.elf().dynamicEntries()) {
        Set<String> names = policy.blacklist().get(entry.value());
        if (entry.tag() != ElfObject.DT_NEEDED || names == null || provided.contains(entry.value())) {
          continue;
        }
        file.elf().dynamicSymbols().stream().filter(s -> !s.isDefined() && names.contains(s.name()))
            .map(s -> s.name() + " from " + entry.value() + " (" + file.path() + ")").sorted().distinct()
            .forEach(refused::add);
      }
    }
    return refused;
  }

  /** Family, version, file, then the imports that require it, for versions of system libraries. */
  private static Map<String, Map<String, Map<String, List<String>>>> requiredVersions(List<ElfFile> files,
      Set<String> provided) {
    Map<String, Map<String, Map<String, List<String>>>> required = new TreeMap<>();
    for (ElfFile file : files) {
      for (VersionNeed need : file.elf().versionNeeds()) {
        if (provided.contains(need.library()) || !ManylinuxPolicy.isSystemLibrary(need.library())) {
          // Versions of the loader, of other wheels' libraries and of the wheel's own do not set the tag.
          continue;
        }
        int split = need.version().indexOf('_');
        String family = split < 0 ? need.version() : need.version().substring(0, split);
        String version = split < 0 ? "" : need.version().substring(split + 1);
        List<String> symbols = required.computeIfAbsent(family, f -> new TreeMap<>())
            .computeIfAbsent(version, v -> new TreeMap<>()).computeIfAbsent(file.path(), f -> new ArrayList<>());
        need.symbols().stream().sorted().forEach(symbols::add);
      }
    }
    return required;
  }

  /** The required versions a policy does not allow, described with the imports that require them. */
  private static List<String> offending(ManylinuxPolicy policy, String architecture,
      Map<String, Map<String, Map<String, List<String>>>> required) {
    List<String> offending = new ArrayList<>();
    Map<String, Set<String>> allowed = policy.versionsFor(architecture);
    required.forEach((family, versions) -> {
      Set<String> permitted = allowed.get(family);
      if (permitted == null) {
        return;
      }
      versions.forEach((version, symbols) -> {
        if (!permitted.contains(version)) {
          offending.add(new Requirement(family, version, symbols).describe());
        }
      });
    });
    return offending;
  }

  private static Map<String, Requirement> highest(Map<String, Map<String, Map<String, List<String>>>> required) {
    Map<String, Requirement> highest = new LinkedHashMap<>();
    required.forEach((family, versions) -> versions.entrySet().stream()
        .max(Map.Entry.comparingByKey(VersionFloor.VERSION_ORDER))
        .ifPresent(e -> highest.put(family, new Requirement(family, e.getKey(), e.getValue()))));
    return highest;
  }
}
