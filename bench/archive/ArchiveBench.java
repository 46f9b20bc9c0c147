import io.github.kernelarchive.archive.ArchiveBuilder;
import io.github.kernelarchive.archive.ArchiveRequest;
import io.github.kernelarchive.archive.ArchiveStage;
import io.github.kernelarchive.common.BuildLog;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import io.github.kernelarchive.util.ContentHashes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * The archive stage (inspection, batched ar, checked copy, validation) against one-call baselines, on the
 * objects in args[0]. Run by bench/archive/run.sh; prints Markdown rows of median seconds.
 */
public class ArchiveBench {
  static final int REPEATS = Integer.getInteger("repeats", 3);
  static final BuildLog QUIET = new BuildLog() {
    public void info(String m) {}
    public void warn(String m) { System.err.println(m); }
    public void error(String m) { System.err.println(m); }
    public void debug(String m) {}
  };

  interface Step { void run() throws Exception; }

  public static void main(String[] args) throws Exception {
    Path objects = Path.of(args[0]);
    Path work = Files.createDirectories(Path.of(args[1]));
    String label = args[2];
    List<Path> files;
    try (Stream<Path> list = Files.list(objects)) {
      files = list.filter(p -> p.toString().endsWith(".o")).sorted().toList();
    }
    long bytes = 0;
    for (Path f : files) bytes += Files.size(f);
    System.out.printf("%n### %s: %d objects, %.0f MB%n%n", label, files.size(), bytes / 1e6);
    System.out.println("| what | median s | ratio to one llvm-ar call | ratio to one GNU ar call |");
    System.out.println("|---|---|---|---|");

    Path all = work.resolve("all.rsp");
    Files.write(all, files.stream().map(Path::toString).toList());
    Path out = work.resolve("out.a");
    double llvm = median(() -> { Files.deleteIfExists(out); sh("llvm-ar", "qcD", out.toString(), "@" + all); });
    double gnu = median(() -> { Files.deleteIfExists(out); sh("ar", "qcsD", out.toString(), "@" + all); });
    double cat = median(() -> sh("sh", "-c", "xargs -d '\\n' cat < '" + all + "' > '" + out + "'"));
    double appends = median(() -> {
      Files.deleteIfExists(out);
      for (int from = 0; from < files.size(); from += 400) {
        Path rsp = work.resolve("append.rsp");
        Files.write(rsp, files.subList(from, Math.min(files.size(), from + 400)).stream().map(Path::toString).toList());
        sh("ar", "q", out.toString(), "@" + rsp);
      }
      sh("ranlib", out.toString());
    });
    row("one `llvm-ar qcD @all`", llvm, llvm, gnu);
    row("one GNU `ar qcsD @all`", gnu, llvm, gnu);
    row("`cat` of all inputs", cat, llvm, gnu);
    row("GNU `ar q` appends of 400 + `ranlib` (scripted today)", appends, llvm, gnu);

    for (String arName : List.of("llvm-ar", "ar")) {
      Tool ar = new Toolchain(new ToolchainConfig(null, null, null, null, arName, null, null, Map.of()), System.getenv()).archiver();
      for (int batch : new int[] {50, 400, 5000}) {
        Path stageWork = work.resolve("stage-" + arName + "-" + batch);
        double t = median(() -> clear(stageWork), () -> stage(ar, files, batch, stageWork));
        row("archive stage, " + arName + ", batch " + batch + " (inspect + ar + checked copy + validate + digest)", t, llvm, gnu);
        if (arName.equals("llvm-ar")) {
          // The floor of any stage that runs one ar per batch: those ar calls alone, as many at a time as the stage runs.
          Path floorWork = work.resolve("floor-" + batch);
          int calls = (files.size() + batch - 1) / batch;
          // Thin where the stage makes thin batches (large members), else batches that hold the members.
          boolean thin = bytes / files.size() >= ArchiveBuilder.THIN_MEMBER_BYTES;
          double floor = median(() -> clear(floorWork), () -> batchCallsAlone(files, batch, floorWork, thin));
          row("&nbsp;&nbsp;its " + calls + " `llvm-ar " + (thin ? "--thin " : "") + "qcSD` batch calls alone, " + CORES
              + " at a time (floor)", floor, llvm, gnu);
        }
      }
    }

    // Incremental: one object of the set changes; only its batch goes through ar again.
    Tool llvmAr = new Toolchain(new ToolchainConfig(null, null, null, null, "llvm-ar", null, null, Map.of()), System.getenv()).archiver();
    Path incWork = work.resolve("incremental");
    List<Path> changed = new ArrayList<>(files);
    Path copy = work.resolve("changed.o");
    clear(incWork);
    stage(llvmAr, changed, 400, incWork);
    int middle = files.size() / 2;
    byte[] original = Files.readAllBytes(files.get(middle));
    byte[] edited = Arrays.copyOf(original, original.length);
    Files.write(copy, edited);
    changed.set(middle, copy);
    int[] runs = new int[1];
    double inc = median(() -> {
      // Alternate the member's content so every repeat sees a change.
      edited[edited.length - 1] ^= 1;
      Files.write(copy, edited);
    }, () -> runs[0] = stage(llvmAr, changed, 400, incWork));
    row("archive stage after 1 of " + files.size() + " objects changed, batch 400 (" + runs[0] + " ar batch ran)", inc, llvm, gnu);
  }

  static void clear(Path work) throws Exception {
    if (Files.exists(work)) {
      try (Stream<Path> old = Files.walk(work)) {
        old.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * One archive stage exactly as a build runs it (ArchiveStage.build, cache disabled): every
   * object inspected on all cores (ELF checks, symbols), batched ar overlapping the write that
   * copies and hashes every object once, the batch checks, the structural read-back, digest and
   * manifest. Returns how many batches ran ar.
   */
  static int stage(Tool ar, List<Path> files, int batch, Path work) throws Exception {
    Path stamps = work.resolve("file-hashes");
    ContentHashes hashes = ContentHashes.load(stamps);
    List<ArchiveRequest.Member> members = new ArrayList<>(files.size());
    // Keyed by content, as <objects> are: the stage hashes them as it writes them.
    for (Path f : files) members.add(ArchiveRequest.Member.prebuilt(f));
    ArchiveStage stage = new ArchiveStage(ar, new ProcessRunner(Map.of()), null, batch,
        Runtime.getRuntime().availableProcessors(), work.resolve("out"), work, hashes, QUIET,
        io.github.kernelarchive.elf.ElfObject.hostMachine());
    ArchiveStage.Outcome outcome = stage.build(new ArchiveRequest("bench", members), Map.of());
    hashes.save(stamps);
    return outcome.batchesRun();
  }

  static final int CORES = Runtime.getRuntime().availableProcessors();

  /** The stage's ar calls and nothing else: one batch per response file, CORES at a time. */
  static void batchCallsAlone(List<Path> files, int batch, Path work, boolean thin) throws Exception {
    Files.createDirectories(work);
    ExecutorService pool = Executors.newFixedThreadPool(CORES);
    try {
      List<Future<Object>> calls = new ArrayList<>();
      for (int from = 0; from < files.size(); from += batch) {
        Path rsp = work.resolve("batch-" + from + ".rsp");
        Files.write(rsp, files.subList(from, Math.min(files.size(), from + batch)).stream().map(Path::toString).toList());
        Path out = work.resolve("batch-" + from + ".a");
        List<String> command = thin ? List.of("llvm-ar", "--thin", "qcSD", out.toString(), "@" + rsp)
            : List.of("llvm-ar", "qcSD", out.toString(), "@" + rsp);
        calls.add(pool.submit(() -> { sh(command.toArray(String[]::new)); return null; }));
      }
      for (Future<Object> call : calls) call.get();
    } finally {
      pool.shutdown();
    }
  }

  static void row(String what, double seconds, double llvm, double gnu) {
    System.out.printf("| %s | %.3f | %.2f | %.2f |%n", what, seconds, seconds / llvm, seconds / gnu);
  }

  static double median(Step step) throws Exception {
    return median(() -> {}, step);
  }

  /** Median time of {@code step} over the repeats; {@code setup} runs before each, untimed. */
  static double median(Step setup, Step step) throws Exception {
    double[] times = new double[REPEATS];
    for (int i = 0; i < REPEATS; i++) {
      setup.run();
      // Start every measurement with no dirty pages pending, so one step's writeback is not billed to the next.
      sh("sync");
      long start = System.nanoTime();
      step.run();
      times[i] = (System.nanoTime() - start) / 1e9;
    }
    Arrays.sort(times);
    return times[REPEATS / 2];
  }

  static void sh(String... argv) throws Exception {
    Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) throw new IllegalStateException(String.join(" ", argv) + ": " + output);
  }
}
