package io.github.kernelarchive.glibc;

import io.github.kernelarchive.elf.ElfObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a linked file needs so that it loads on the target glibc, read from its imports: which
 * ones to bind to an older version ({@link Redirect}), which to define privately
 * ({@link Replacements}), which libraries to NEED for symbols that lived outside libc before
 * 2.34, and what cannot be had at the target at all.
 *
 * @param redirects imports to bind to the version that was the default at the target
 * @param replaced imports defined privately instead, sorted
 * @param needed the former libraries of moved symbols ({@link MovedSymbols}), sorted
 * @param unmet imports with no version at the target and no replacement, as {@code name (GLIBC_2.25)}
 */
public record RedirectPlan(List<Redirect> redirects, Set<String> replaced, Set<String> needed, List<String> unmet) {
  /** {@code dlopen} called through {@code dlopen@GLIBC_2.2.5}, bound to the library {@code from} (libdl.so.2). */
  public record Redirect(String symbol, String version, String from) {}

  public RedirectPlan {
    redirects = List.copyOf(redirects);
    // Sorted, not Set.copyOf (whose order changes from one JVM to the next): they decide the bytes
    // of the generated source and the order of NEEDED.
    replaced = Collections.unmodifiableSortedSet(new TreeSet<>(replaced));
    needed = Collections.unmodifiableSortedSet(new TreeSet<>(needed));
    unmet = List.copyOf(unmet);
  }

  /** This plan and the redirects, replacements and libraries {@code more} adds (a later round's). */
  public RedirectPlan plus(RedirectPlan more) {
    List<Redirect> all = new ArrayList<>(redirects);
    Set<String> known = new TreeSet<>();
    redirects.forEach(r -> known.add(r.symbol()));
    more.redirects().stream().filter(r -> known.add(r.symbol())).forEach(all::add);
    Set<String> allReplaced = new TreeSet<>(replaced);
    allReplaced.addAll(more.replaced());
    Set<String> allNeeded = new TreeSet<>(needed);
    allNeeded.addAll(more.needed());
    List<String> allUnmet = new ArrayList<>(unmet);
    allUnmet.addAll(more.unmet());
    return new RedirectPlan(all, allReplaced, allNeeded, allUnmet);
  }

  public boolean changesNothing() {
    return redirects.isEmpty() && replaced.isEmpty() && needed.isEmpty();
  }

  /**
   * @param linked the file as linked without redirects
   */
  public static RedirectPlan of(ElfObject linked, GlibcTarget target, HostGlibc host, MovedSymbols moved) {
    List<Redirect> redirects = new ArrayList<>();
    Set<String> replaced = new TreeSet<>();
    Set<String> needed = new TreeSet<>();
    List<String> unmet = new ArrayList<>();
    // Before 2.34 a loader looks for these in the library named where they are bound, and stops
    // at libc.so.6 when it is named and lacks them: they must be bound to their former library.
    boolean moves = !target.admits("GLIBC_2.34");
    for (ElfObject.VersionNeed need : linked.versionNeeds()) {
      if (!HostGlibc.LIBRARIES.contains(need.library()) || !HostGlibc.isNumbered(need.version())) {
        continue;
      }
      boolean inLibc = need.library().equals("libc.so.6");
      for (String symbol : need.symbols()) {
        String version = need.version();
        if (!target.admits(version)) {
          if (Replacements.covers(symbol)) {
            replaced.add(symbol);
            continue;
          }
          // Data cannot be reached through a trampoline; glibc has hardly any versioned data.
          Optional<HostGlibc.Definition> older = host.defaultAt(symbol, target).filter(HostGlibc.Definition::code);
          if (older.isEmpty()) {
            unmet.add(symbol + " (" + version + ")");
            continue;
          }
          version = older.get().version();
        } else if (!(moves && inLibc && moved.formerLibrary(symbol, version).isPresent())) {
          continue;
        }
        Optional<String> former = moves && inLibc ? moved.formerLibrary(symbol, version) : Optional.empty();
        former.ifPresent(needed::add);
        redirects.add(new Redirect(symbol, version, former.orElse(need.library())));
      }
    }
    return new RedirectPlan(redirects, replaced, needed, unmet);
  }
}
