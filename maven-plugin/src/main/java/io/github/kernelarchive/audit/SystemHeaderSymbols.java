package io.github.kernelarchive.audit;

import io.github.kernelarchive.elf.ElfSymbol;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@code STB_GNU_UNIQUE} symbols that the C++ standard library's headers make the compiler emit
 * into the user's objects (inline and template statics of {@code std::} and {@code __gnu_cxx::},
 * e.g. the digit table behind {@code std::to_string}). Nobody asked for them to be part of the
 * library's interface; exported, the loader would share them with every other library. A library
 * without {@code <exports>} keeps them local instead of failing its audit; a unique symbol of the
 * user's own code is still reported.
 */
public final class SystemHeaderSymbols {
  /**
   * Itanium mangling of an entity in {@code std::}, {@code __gnu_cxx::} or {@code __cxxabiv1::}:
   * after {@code _Z}, an optional special-name prefix (local static {@code Z}, guard variable
   * {@code GVZ}, TLS wrappers {@code TH}/{@code TW}), an optional nested-name {@code N} with
   * qualifiers, then the namespace.
   */
  private static final Pattern SYSTEM = Pattern.compile(
      "_Z(?:Z|GVZ|GV|TH|TW)?(?:N[rVKRO]*)?(?:St|9__gnu_cxx|10__cxxabiv1).*");

  private SystemHeaderSymbols() {}

  /** The rule {@link #isSystem} applies: whatever remembers its answers keys them by it too. */
  public static String rule() {
    return SYSTEM.pattern();
  }

  static boolean isSystem(String name) {
    return SYSTEM.matcher(name).matches();
  }

  /** The unique symbols of system-header origin that {@code objects} define, sorted. */
  public static List<String> uniqueIn(List<Path> objects) throws IOException {
    return SymbolDefiners.of(objects, List.of(), s -> s.binding() == ElfSymbol.GNU_UNIQUE && isSystem(s.name()))
        .keySet().stream().sorted().toList();
  }
}
