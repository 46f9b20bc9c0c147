import io.github.kernelarchive.scan.SourceFile;
import io.github.kernelarchive.scan.SourceScanner;
import io.github.kernelarchive.scan.SourceSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Source scan benchmark: a tree of generated sources in nested folders (plus non-sources the
 * patterns must skip), scanned by the plugin's SourceScanner with an include and an exclude
 * pattern, in one JVM: the first scan (cold JIT, as in a build) and the median of the rest.
 *   java -cp <plugin classes and dependencies> ScanBench.java <dir> <count> <repeats>
 */
public class ScanBench {
  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[0]);
    int count = Integer.parseInt(args[1]);
    int repeats = Integer.parseInt(args[2]);
    if (!Files.exists(root.resolve(".complete"))) {
      for (int i = 0; i < count; i++) {
        Path dir = root.resolve("d" + (i % 20) + "/e" + (i % 7));
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("k" + i + (i % 3 == 0 ? ".cu" : ".cpp")), "// " + i + "\n");
        if (i % 10 == 0) {
          Files.writeString(dir.resolve("k" + i + ".h"), "// header\n");
        }
      }
      Files.createFile(root.resolve(".complete"));
    }
    SourceSet set = new SourceSet("kernels", root, List.of("**/*.cu", "**/*.cpp"), List.of("d3/**"));
    long[] millis = new long[repeats];
    int found = 0;
    for (int r = 0; r < repeats; r++) {
      long start = System.nanoTime();
      List<SourceFile> sources = new SourceScanner().scan(set);
      millis[r] = (System.nanoTime() - start) / 1_000_000;
      found = sources.size();
    }
    long[] rest = java.util.Arrays.copyOfRange(millis, 1, repeats);
    java.util.Arrays.sort(rest);
    System.out.printf("%d files scanned, %d selected: first scan %d ms, median of the next %d: %d ms%n",
        count + count / 10, found, millis[0], rest.length, rest.length == 0 ? millis[0] : rest[rest.length / 2]);
  }
}
