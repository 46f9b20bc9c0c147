package io.github.kernelarchive.archive;

import io.github.kernelarchive.compile.ContentHashes;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.elf.ObjectRequirements;
import io.github.kernelarchive.util.Trace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Prebuilt objects ({@code <objects>}) are read once per build. Planning needs their hashes for
 * the archive key; the archive stage needs hashes, ELF checks, symbols and (for small objects) the
 * bytes. So planning inspects each object fully, on all cores, and the archive stage takes the
 * inspection instead of reading the file again. An object whose size and time match the last
 * build's stamp is not read at planning at all (a no-op build reads none).
 */
public final class PrebuiltObjects {
  private final ContentHashes hashes;
  private final ObjectInspector inspector = new ObjectInspector(ElfObject.hostMachine());
  private final Map<Path, ObjectInspector.Inspection> inspections = new ConcurrentHashMap<>();

  public PrebuiltObjects(ContentHashes hashes) {
    this.hashes = hashes;
  }

  /**
   * The content hash of each object of {@code archive}, in order; empty for one that cannot be
   * read or is not an object for this CPU (the archive stage reports it, naming the file).
   */
  public List<Optional<String>> hash(String archive, List<Path> objects) {
    AtomicLong keepBudget = new AtomicLong(ArchiveBuilder.KEEP_BYTES);
    try (Trace.Span span = Trace.current().span("read prebuilt objects of " + archive + " (" + objects.size() + ")",
        "archive")) {
      return hashAll(archive, objects, keepBudget);
    }
  }

  private List<Optional<String>> hashAll(String archive, List<Path> objects, AtomicLong keepBudget) {
    return objects.parallelStream().map(object -> {
      Optional<String> stamped = hashes.fromStamp(object);
      if (stamped.isPresent()) {
        return stamped;
      }
      try {
        long modified = Files.getLastModifiedTime(object).toMillis();
        ObjectInspector.Inspection inspection = inspector.inspect(object.getFileName().toString(), object,
            "object " + object + " of archive '" + archive + "'", keepBudget);
        inspections.put(object, inspection);
        hashes.remember(object, inspection.object().sha256(), inspection.object().size(), modified);
        return Optional.of(inspection.object().sha256());
      } catch (IOException | ObjectRequirements.MemberProblem e) {
        return hashes.of(object);
      }
    }).toList();
  }

  /** The inspection planning took of {@code object} under member name {@code name}, handed over once. */
  Optional<ObjectInspector.Inspection> take(Path object, String name) {
    ObjectInspector.Inspection inspection = inspections.remove(object);
    return inspection != null && inspection.object().name().equals(name) ? Optional.of(inspection) : Optional.empty();
  }
}
