package io.github.kernelarchive.elf;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The newest version a linked file requires in each family of the system's symbol versions
 * ({@code GLIBC_}, {@code GLIBCXX_}, {@code CXXABI_}, {@code GCC_}), with the imports that require
 * it: what decides the oldest glibc and libstdc++ the file loads with.
 *
 * @param symbols the imports bound to that version, sorted
 */
public record VersionFloor(String family, String version, List<String> symbols) {
  /** The families of glibc, libstdc++ and libgcc. */
  public static final Set<String> FAMILIES = Set.of("GLIBC", "GLIBCXX", "CXXABI", "GCC");

  /** Dotted versions compared number by number ({@code 2.9 < 2.17}); other parts as text. */
  public static final Comparator<String> VERSION_ORDER = (a, b) -> {
    String[] x = a.split("\\.");
    String[] y = b.split("\\.");
    for (int i = 0; i < Math.min(x.length, y.length); i++) {
      int c = x[i].matches("\\d{1,9}") && y[i].matches("\\d{1,9}")
          ? Integer.compare(Integer.parseInt(x[i]), Integer.parseInt(y[i])) : x[i].compareTo(y[i]);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(x.length, y.length);
  };

  public VersionFloor {
    symbols = List.copyOf(symbols);
  }

  /** Per family, in the families' order by name; numbered versions only ({@code GLIBC_PRIVATE} is none). */
  public static List<VersionFloor> of(ElfObject elf) {
    Map<String, VersionFloor> highest = new TreeMap<>();
    for (ElfObject.VersionNeed need : elf.versionNeeds()) {
      int split = need.version().indexOf('_');
      if (split < 0 || !FAMILIES.contains(need.version().substring(0, split))
          || !Character.isDigit(need.version().charAt(split + 1))) {
        continue;
      }
      String family = need.version().substring(0, split);
      String version = need.version().substring(split + 1);
      VersionFloor known = highest.get(family);
      int order = known == null ? 1 : VERSION_ORDER.compare(version, known.version());
      if (order > 0) {
        highest.put(family, new VersionFloor(family, version, need.symbols().stream().sorted().toList()));
      } else if (order == 0) {
        List<String> symbols = new ArrayList<>(known.symbols());
        symbols.addAll(need.symbols());
        highest.put(family, new VersionFloor(family, version, symbols.stream().sorted().distinct().toList()));
      }
    }
    return List.copyOf(highest.values());
  }

  /** {@code GLIBC_2.34: dlopen, dlsym}, the symbols cut after {@code limit} with how many more. */
  public String describe(int limit) {
    String shown = String.join(", ", symbols.subList(0, Math.min(limit, symbols.size())));
    return family + "_" + version + ": " + shown + (symbols.size() > limit ? " and " + (symbols.size() - limit)
        + " more" : "");
  }
}
