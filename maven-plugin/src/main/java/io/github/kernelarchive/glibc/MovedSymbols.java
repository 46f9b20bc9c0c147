package io.github.kernelarchive.glibc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Where the symbols glibc 2.34 moved into libc.so.6 lived before: {@code dlopen@GLIBC_2.2.5} in
 * libdl.so.2, {@code pthread_create@GLIBC_2.2.5} in libpthread.so.0. A library bound to such a
 * version must NEED that file, or an older loader finds the version in no library it searches.
 * The table is data ({@code moved-symbols.txt}), read from a glibc 2.31 release: the host's own
 * glibc no longer says.
 */
public final class MovedSymbols {
  private final Map<String, String> libraryByVersionedSymbol;

  private MovedSymbols(Map<String, String> libraryByVersionedSymbol) {
    this.libraryByVersionedSymbol = libraryByVersionedSymbol;
  }

  /** The table for {@code abi}'s machine: on aarch64 each version older than 2.17 is 2.17. */
  static MovedSymbols load(GlibcAbi abi) {
    Map<String, String> table = new HashMap<>();
    try (InputStream in = MovedSymbols.class.getResourceAsStream("moved-symbols.txt")) {
      if (in == null) {
        throw new IllegalStateException("moved-symbols.txt is missing from the plugin");
      }
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] columns = line.trim().split("\\s+");
        table.putIfAbsent(columns[0] + "@" + abi.onThisMachine(columns[1]), columns[2]);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new MovedSymbols(table);
  }

  /** The library that held {@code symbol} at {@code version} (GLIBC_2.2.5, on aarch64 GLIBC_2.17) before 2.34; empty when libc did. */
  public Optional<String> formerLibrary(String symbol, String version) {
    return Optional.ofNullable(libraryByVersionedSymbol.get(symbol + "@" + version));
  }
}
