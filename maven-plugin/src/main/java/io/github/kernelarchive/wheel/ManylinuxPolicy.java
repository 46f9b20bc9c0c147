package io.github.kernelarchive.wheel;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One manylinux policy (PEP 600): the system libraries a wheel may need, and per architecture the
 * symbol versions it may require of them, per family ({@code GLIBC}, {@code GLIBCXX},
 * {@code CXXABI}, {@code GCC}, {@code ZLIB}, ...), and per library the symbols that library lacks on
 * some system of the policy though its versions allow them (the blacklist: {@code uncompress2} of
 * zlib before manylinux_2_34). The table is auditwheel's, kept as data in
 * {@code manylinux-policy.txt} beside this class.
 *
 * @param priority higher is older: the policies are tried from the highest down
 * @param blacklist per library, the symbols a wheel may not import from it under this policy
 */
public record ManylinuxPolicy(String name, int priority, List<String> aliases, Set<String> libraries,
    Map<String, Set<String>> blacklist, Map<String, Map<String, Set<String>>> versions) {

  private static final List<ManylinuxPolicy> ALL = load();

  /** Every policy, oldest (most compatible) first. */
  public static List<ManylinuxPolicy> all() {
    return ALL;
  }

  public static Optional<ManylinuxPolicy> named(String name) {
    return ALL.stream().filter(p -> p.name.equals(name) || p.aliases.contains(name)).findFirst();
  }

  /**
   * The dynamic loader ({@code ld-linux-x86-64.so.2}, {@code ld64.so.2}): every glibc system has
   * it, so needing it (as libstdc++'s {@code __tls_get_addr} does through mold) and its versions
   * never restricts the tag, as in auditwheel.
   */
  public static boolean isDynamicLoader(String soname) {
    return soname.startsWith("ld-linux") || soname.equals("ld64.so.2") || soname.equals("ld64.so.1");
  }

  /** Whether a library of this name may be needed from the system under any policy. */
  public static boolean isSystemLibrary(String soname) {
    return ALL.stream().anyMatch(p -> p.libraries.contains(soname));
  }

  /** The versions allowed per family on this architecture; families not listed are not checked. */
  public Map<String, Set<String>> versionsFor(String architecture) {
    return versions.getOrDefault(architecture, Map.of());
  }

  /** {@code manylinux_2_17_x86_64}, and its aliases' tags ({@code manylinux2014_x86_64}). */
  public List<String> tags(String architecture) {
    List<String> tags = new ArrayList<>();
    tags.add(name + "_" + architecture);
    aliases.forEach(a -> tags.add(a + "_" + architecture));
    return tags;
  }

  private static List<ManylinuxPolicy> load() {
    List<ManylinuxPolicy> policies = new ArrayList<>();
    try (InputStream in = ManylinuxPolicy.class.getResourceAsStream("manylinux-policy.txt");
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String name = null;
      int priority = 0;
      List<String> aliases = List.of();
      Set<String> libraries = Set.of();
      Map<String, Set<String>> blacklist = new HashMap<>();
      Map<String, Map<String, Set<String>>> versions = new HashMap<>();
      for (String line; (line = reader.readLine()) != null; ) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        List<String> words = List.of(line.trim().split("\\s+"));
        switch (words.get(0)) {
          case "policy" -> {
            if (name != null) {
              policies.add(new ManylinuxPolicy(name, priority, aliases, libraries, blacklist, versions));
            }
            name = words.get(1);
            priority = Integer.parseInt(words.get(2));
            aliases = List.copyOf(words.subList(3, words.size()));
            libraries = Set.of();
            blacklist = new HashMap<>();
            versions = new HashMap<>();
          }
          case "libs" -> libraries = Set.copyOf(words.subList(1, words.size()));
          case "blacklist" -> blacklist.put(words.get(1), Set.copyOf(words.subList(2, words.size())));
          default -> versions.computeIfAbsent(words.get(0), a -> new HashMap<>())
              .put(words.get(1), Set.copyOf(words.subList(2, words.size())));
        }
      }
      if (name != null) {
        policies.add(new ManylinuxPolicy(name, priority, aliases, libraries, blacklist, versions));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("the plugin's manylinux-policy.txt cannot be read", e);
    }
    policies.sort((a, b) -> Integer.compare(b.priority, a.priority));
    return List.copyOf(policies);
  }
}
