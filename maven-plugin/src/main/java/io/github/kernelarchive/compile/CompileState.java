package io.github.kernelarchive.compile;

import io.github.kernelarchive.util.AtomicFiles;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the last build knew about each object: the key it was compiled with, the headers it read
 * (with content hashes), and the object's size and modification time (to notice an object that
 * was deleted or replaced). Stored as a versioned binary file, replaced atomically. Hundreds of
 * objects read the same system headers, so each (header, hash) pair is stored once and objects
 * refer to it by index: the file stays small and loads fast.
 */
public final class CompileState {
  private static final int MAGIC = 0x4b41_4353; // "KACS"
  private static final int VERSION = 2;

  /** A header (or other input) the compiler reported, and its content hash at compile time. */
  public record Dependency(String path, String hash) {
    // Written out: a record's own equals and hashCode go through method handles, which a cold
    // JVM runs slowly, and a no-op build looks up every object's headers by them.
    @Override
    public boolean equals(Object other) {
      return other instanceof Dependency d && path.equals(d.path) && hash.equals(d.hash);
    }

    @Override
    public int hashCode() {
      return 31 * path.hashCode() + hash.hashCode();
    }
  }

  public record ObjectRecord(String key, long size, long modifiedMillis, List<Dependency> dependencies) {
    public ObjectRecord {
      dependencies = List.copyOf(dependencies);
    }
  }

  private final Map<String, ObjectRecord> objects;
  /** The file that holds exactly {@link #objects} (loaded whole, or saved, and no change since); null: none. */
  private Path heldBy;

  private CompileState(Map<String, ObjectRecord> objects, Path heldBy) {
    this.objects = objects;
    this.heldBy = heldBy;
  }

  public static CompileState empty() {
    return new CompileState(new HashMap<>(), null);
  }

  /** Loads the state; a missing, unreadable or older-format file gives an empty state (everything rebuilds). */
  public static CompileState load(Path file) {
    try (InputStream raw = Files.newInputStream(file);
        DataInputStream in = new DataInputStream(new BufferedInputStream(raw))) {
      if (in.readInt() != MAGIC || in.readInt() != VERSION) {
        return empty();
      }
      Dependency[] table = new Dependency[in.readInt()];
      for (int d = 0; d < table.length; d++) {
        table[d] = new Dependency(in.readUTF(), in.readUTF());
      }
      int count = in.readInt();
      Map<String, ObjectRecord> objects = new HashMap<>(count * 2);
      for (int i = 0; i < count; i++) {
        String object = in.readUTF();
        String key = in.readUTF();
        long size = in.readLong();
        long modified = in.readLong();
        Dependency[] deps = new Dependency[in.readInt()];
        for (int d = 0; d < deps.length; d++) {
          deps[d] = table[in.readInt()];
        }
        objects.put(object, new ObjectRecord(key, size, modified, List.of(deps)));
      }
      return new CompileState(objects, file);
    } catch (NoSuchFileException e) {
      return empty();
    } catch (IOException | RuntimeException e) {
      return empty();
    }
  }

  public synchronized ObjectRecord get(Path object) {
    return objects.get(object.toString());
  }

  public synchronized void put(Path object, ObjectRecord record) {
    if (!record.equals(objects.put(object.toString(), record))) {
      heldBy = null;
    }
  }

  public synchronized void remove(Path object) {
    if (objects.remove(object.toString()) != null) {
      heldBy = null;
    }
  }

  public synchronized List<String> objectPaths() {
    return Collections.unmodifiableList(new ArrayList<>(objects.keySet()));
  }

  /** Writes the state, unless the file already holds it (a build that compiled nothing writes nothing). */
  public synchronized void save(Path file) throws IOException {
    if (file.equals(heldBy)) {
      return;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(MAGIC);
      out.writeInt(VERSION);
      Map<Dependency, Integer> table = new LinkedHashMap<>();
      for (ObjectRecord record : objects.values()) {
        record.dependencies().forEach(dep -> table.putIfAbsent(dep, table.size()));
      }
      out.writeInt(table.size());
      for (Dependency dep : table.keySet()) {
        out.writeUTF(dep.path());
        out.writeUTF(dep.hash());
      }
      out.writeInt(objects.size());
      for (Map.Entry<String, ObjectRecord> entry : new TreeMap<>(objects).entrySet()) {
        ObjectRecord record = entry.getValue();
        out.writeUTF(entry.getKey());
        out.writeUTF(record.key());
        out.writeLong(record.size());
        out.writeLong(record.modifiedMillis());
        out.writeInt(record.dependencies().size());
        for (Dependency dep : record.dependencies()) {
          out.writeInt(table.get(dep));
        }
      }
    }
    AtomicFiles.write(file, bytes.toByteArray());
    heldBy = file;
  }
}
