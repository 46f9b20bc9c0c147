package io.github.kernelarchive.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.WeakHashMap;
import java.util.function.Consumer;

/**
 * Loads a kernel library that a jar built by Kernel Archive carries:
 * {@code KernelLibrary.load("mha")}. The jar holds {@code META-INF/native/<platform>/} with the
 * library, the files it needs, and an index ({@link NativeIndex}); this finds this platform's,
 * extracts it into {@code $XDG_CACHE_HOME/kernel-archive/native/<sha256>/} (content-addressed,
 * renamed into place under a file lock, reused only when it holds exactly the indexed files with
 * their hashes; only into folders no other user can write, see {@link Extraction}; a folder of this
 * user's in {@code java.io.tmpdir} when the cache cannot serve), loads the files in their order and
 * turns the loader's errors into what to do. Every failure is an {@link UnsatisfiedLinkError} with
 * its cause.
 *
 * <p>Overrides: {@code -Dkernel.native.dir=<folder>} takes the files from a folder extracted in
 * advance, as they are; {@code -Dkernel.native.<name>.path=<file>} loads that file for library
 * {@code <name>}; {@code -Dkernel.native.cache=<folder>} extracts there; {@code
 * -Dkernel.native.debug=true} says on stderr what was extracted or reused.
 *
 * <p>JNI: a class with native methods loads through its own class loader, so it passes its
 * {@code System::load}: {@code static { KernelLibrary.load("mha", System::load); }}.
 */
public final class KernelLibrary {
  public static final String DIR_PROPERTY = "kernel.native.dir";
  public static final String CACHE_PROPERTY = "kernel.native.cache";
  public static final String DEBUG_PROPERTY = "kernel.native.debug";
  private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
  private static final Object BOOT = new Object();
  private static final Map<Object, Map<String, Loaded>> LOADED = new WeakHashMap<>();

  /**
   * A loaded library.
   *
   * @param library the file of the library itself, loaded last
   * @param folder where its files are
   * @param index what the jar said of them; null when a path override named the file
   */
  public record Loaded(String name, Path library, Path folder, NativeIndex index) {}

  private KernelLibrary() {}

  /** Finds library {@code name} through the caller's class loader and loads it. */
  public static Loaded load(String name) {
    return load(name, WALKER.getCallerClass().getClassLoader(), System::load);
  }

  /**
   * The same, loading each file through {@code systemLoad}: pass {@code System::load} from the
   * class whose native methods the library implements (JNI binds them per class loader).
   */
  public static Loaded load(String name, Consumer<String> systemLoad) {
    return load(name, WALKER.getCallerClass().getClassLoader(), systemLoad);
  }

  /** Finds {@code name} through {@code loader} (null: the system class loader). */
  public static Loaded load(String name, ClassLoader loader, Consumer<String> systemLoad) {
    Objects.requireNonNull(name, "name");
    synchronized (LOADED) {
      Map<String, Loaded> ofLoader = LOADED.computeIfAbsent(loader == null ? BOOT : loader, l -> new HashMap<>());
      Loaded known = ofLoader.get(name);
      if (known == null) {
        known = find(name, loader == null ? ClassLoader.getSystemClassLoader() : loader, systemLoad);
        ofLoader.put(name, known);
      }
      return known;
    }
  }

  private static Loaded find(String name, ClassLoader loader, Consumer<String> systemLoad) {
    String path = System.getProperty("kernel.native." + name + ".path");
    if (path != null && !path.isBlank()) {
      Path file = Path.of(path).toAbsolutePath();
      if (!Files.isRegularFile(file)) {
        throw new UnsatisfiedLinkError("-Dkernel.native." + name + ".path=" + path + " names no file: point it at lib"
            + name + ".so, or remove it to load the one the jar holds.");
      }
      systemLoad.accept(file.toString());
      return new Loaded(name, file, file.getParent(), null);
    }
    String platform = Platform.current();
    String base = "META-INF/native/" + platform + "/";
    NativeIndex index = index(name, loader, base + name + ".index");
    Path folder;
    String override = System.getProperty(DIR_PROPERTY);
    if (override != null && !override.isBlank()) {
      folder = Path.of(override).toAbsolutePath();
      if (!Files.isRegularFile(folder.resolve(index.mainFile()))) {
        throw new UnsatisfiedLinkError("-D" + DIR_PROPERTY + "=" + override + " holds no " + index.mainFile() + ": extract "
            + base + " of the jar there (" + String.join(", ", index.loadOrder()) + "), or remove the property.");
      }
    } else {
      Extraction.Result result = Extraction.extract(index, new Extraction.Source() {
        @Override
        public InputStream open(String file) throws IOException {
          return KernelLibrary.open(loader, base + file);
        }

        @Override
        public String where(String file) {
          URL url = loader.getResource(base + file);
          return url == null ? base + file : url.toString();
        }
      }, roots(), Path.of(System.getProperty("java.io.tmpdir")));
      folder = result.folder();
      if (Boolean.getBoolean(DEBUG_PROPERTY)) {
        System.err.println("kernel-archive: " + (result.reused() ? "reused " : "extracted ") + name + " into " + folder
            + (result.passedOver().isEmpty() ? "" : " (passed over: " + String.join("; ", result.passedOver()) + ")"));
      }
    }
    for (String file : index.loadOrder()) {
      Path library = folder.resolve(file);
      try {
        systemLoad.accept(library.toString());
      } catch (UnsatisfiedLinkError e) {
        throw LoadErrors.explain(e, library, index);
      }
    }
    return new Loaded(name, folder.resolve(index.mainFile()), folder, index);
  }

  private static NativeIndex index(String name, ClassLoader loader, String resource) {
    try (InputStream in = loader.getResourceAsStream(resource)) {
      if (in == null) {
        throw new UnsatisfiedLinkError(missing(name, loader));
      }
      return NativeIndex.parse(in.readAllBytes(), resource);
    } catch (IOException e) {
      URL url = loader.getResource(resource);
      UnsatisfiedLinkError error = new UnsatisfiedLinkError("The kernel jar's index of " + name + " cannot be used: "
          + (url == null ? resource : url) + ": " + e.getMessage() + ". The jar is damaged or was not written by the"
          + " plugin's jar goal: build or download it again.");
      error.initCause(e);
      throw error;
    }
  }

  /** No build of {@code name} for this platform: which platforms the class path does hold. */
  private static String missing(String name, ClassLoader loader) {
    TreeSet<String> held = new TreeSet<>();
    try {
      for (URL list : Collections.list(loader.getResources("META-INF/native/" + name + ".platforms"))) {
        try (InputStream in = list.openStream()) {
          for (String line : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).split("\n")) {
            if (!line.isBlank()) {
              held.add(line.trim());
            }
          }
        }
      }
    } catch (IOException e) {
      // the message below says what was found
    }
    return held.isEmpty()
        ? "No kernel jar of " + name + " on the class path (no META-INF/native/" + name + ".platforms): add the"
            + " dependency on its jar, with the classifier of this platform, " + Platform.current() + "."
        : "The class path holds " + name + " for " + String.join(", ", held) + ", not for this platform, "
            + Platform.current() + ": add the jar with classifier " + Platform.current() + ".";
  }

  private static InputStream open(ClassLoader loader, String resource) throws IOException {
    InputStream in = loader.getResourceAsStream(resource);
    if (in == null) {
      throw new IOException(resource + " is listed in its index but missing from the jar");
    }
    return in;
  }

  /**
   * {@code kernel.native.cache} alone when set; else the user's cache, then a folder of this
   * user's in the temp folder. (When none is private, writable and without noexec, {@link
   * Extraction} makes a fresh one of this JVM's own.)
   */
  static List<Extraction.Root> roots() {
    String chosen = System.getProperty(CACHE_PROPERTY);
    if (chosen != null && !chosen.isBlank()) {
      Path folder = Path.of(chosen).toAbsolutePath().normalize();
      return folder.getParent() == null ? List.of() : List.of(new Extraction.Root(folder.getParent(),
          List.of(folder.getFileName().toString())));
    }
    List<Extraction.Root> roots = new ArrayList<>();
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path cache = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
    roots.add(new Extraction.Root(cache, List.of("kernel-archive", "native")));
    roots.add(new Extraction.Root(Path.of(System.getProperty("java.io.tmpdir")),
        List.of("kernel-archive-" + System.getProperty("user.name"), "native")));
    return roots;
  }
}
