package io.github.kernelarchive.link;

import io.github.kernelarchive.audit.SystemHeaderSymbols;
import io.github.kernelarchive.util.AtomicFiles;
import io.github.kernelarchive.util.ContentHashes;
import io.github.kernelarchive.util.Hashing;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The system-header symbols with unique binding that the host objects define (what a library
 * without {@code <exports>} keeps local, {@link SystemHeaderSymbols#uniqueIn}), remembered under
 * the objects' content hashes: finding them reads every object's symbol table, which a build whose
 * objects are unchanged (a no-op) need not do again. The hashes are those the link key takes; the
 * rule that picks the symbols is in the key too, so a plugin that picks otherwise finds them again.
 */
final class UniqueSymbolMemo {
  private static final String FORMAT = "kernel-archive unique symbols 1";

  private UniqueSymbolMemo() {}

  /** {@link SystemHeaderSymbols#uniqueIn} of {@code objects}, from {@code memo} when it was found for the same contents. */
  static List<String> of(List<Path> objects, ContentHashes hashes, Path memo) throws IOException {
    List<String> parts = new ArrayList<>(List.of(FORMAT, SystemHeaderSymbols.rule()));
    for (Path object : objects) {
      Optional<String> hash = hashes.of(object);
      if (hash.isEmpty()) {
        return SystemHeaderSymbols.uniqueIn(objects); // unreadable: reported as reading it fails
      }
      parts.add(hash.get());
    }
    String key = Hashing.ofStrings(parts);
    List<String> remembered = remembered(memo, key);
    if (remembered != null) {
      return remembered;
    }
    List<String> symbols = SystemHeaderSymbols.uniqueIn(objects);
    StringBuilder text = new StringBuilder(key).append('\n');
    symbols.forEach(s -> text.append(s).append('\n'));
    AtomicFiles.writeIfChanged(memo, text.toString().getBytes(StandardCharsets.UTF_8));
    return symbols;
  }

  /** The symbols {@code memo} holds when it was written for {@code key}; null otherwise (missing or unreadable too). */
  private static List<String> remembered(Path memo, String key) {
    try {
      List<String> lines = Files.readAllLines(memo, StandardCharsets.UTF_8);
      return !lines.isEmpty() && lines.get(0).equals(key) ? List.copyOf(lines.subList(1, lines.size())) : null;
    } catch (IOException e) {
      return null; // found again, and written anew
    }
  }
}
