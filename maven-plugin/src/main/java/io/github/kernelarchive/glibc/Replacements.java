package io.github.kernelarchive.glibc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiPredicate;

/**
 * Private definitions, in C, of the few glibc symbols that the compiler's own headers and static
 * runtime reference and that have no version at an older release. Each one is written only in
 * terms of interfaces every glibc of its machine has (x86_64's 2.2.5 and 2.4, aarch64's 2.17:
 * {@link GlibcAbi}), and means the same as
 * the original:
 * <ul>
 *   <li>{@code stat} and its family (2.33): before 2.33 the headers made them calls of
 *       {@code __xstat(1, ...)} and its family, which glibc still exports;</li>
 *   <li>{@code fcntl64} (2.28): on x86_64 the same call as {@code fcntl};</li>
 *   <li>{@code getentropy} (2.25), {@code arc4random} and its family (2.36, from libstdc++'s
 *       {@code std::random_device}): the {@code getrandom} system call, else {@code /dev/urandom};</li>
 *   <li>{@code __cxa_thread_atexit_impl} (2.18, destructors of {@code thread_local} objects): a
 *       pthread key's destructor per thread, and at exit for the exiting thread, as libstdc++ did
 *       without it; unlike glibc's it does not keep a library loaded until they ran;</li>
 *   <li>{@code __libc_single_threaded} (2.32, read by libstdc++'s inline reference counts): 0, "threads
 *       may exist", which only keeps the atomic instructions on;</li>
 *   <li>{@code _dl_find_object} (2.35, libgcc's unwinder): found through {@code dl_iterate_phdr},
 *       as libgcc did before 2.35;</li>
 *   <li>{@code __libc_start_main} (2.34, executables only): the old entry point, given the
 *       constructor runner that {@code __libc_csu_init} was before 2.34.</li>
 * </ul>
 * What a replacement itself calls is redirected like any other import ({@link GlibcFloor} plans
 * again on the relinked file). Anything else without an old version fails the build
 * ({@link RedirectPlan}).
 */
final class Replacements {
  /**
   * A private definition: the code, the helper blocks it calls, and the glibc functions it calls
   * by name with the version each must bind to.
   */
  private record Replacement(String code, List<String> helpers, Map<String, String> imports) {}

  /** Placeholders for the machine's versions ({@link GlibcAbi}), filled in by {@link #source}. */
  private static final String BASE = "BASE";
  private static final String LATER = "LATER";

  /** What the helpers call, all at the machine's first version. */
  private static final Map<String, List<String>> HELPER_IMPORTS = Map.of("entropy",
      List.of("syscall", "__errno_location", "open", "read", "close", "abort"));
  private static final Map<String, String> HELPERS = Map.of("entropy", """
      /* Fills buf from the getrandom system call, else /dev/urandom; 0 on success, else -1 and errno. */
      extern long syscall(long, ...);
      extern int *__errno_location(void);
      extern int open(const char *, int, ...);
      extern long read(int, void *, unsigned long);
      extern int close(int);
      extern void abort(void) __attribute__((noreturn));
      static int ka_glibc_fill(unsigned char *buf, unsigned long length) {
        unsigned long done = 0;
        while (done < length) {
          long n = syscall(GETRANDOM /* SYS_getrandom */, buf + done, length - done, 0);
          if (n > 0) { done += (unsigned long) n; continue; }
          if (*__errno_location() == 4 /* EINTR */) continue;
          if (*__errno_location() != 38 /* ENOSYS */) return -1;
          int fd = open("/dev/urandom", 0x80000 /* O_RDONLY | O_CLOEXEC */);
          if (fd < 0) return -1;
          while (done < length) {
            long r = read(fd, buf + done, length - done);
            if (r > 0) { done += (unsigned long) r; continue; }
            if (r < 0 && *__errno_location() == 4) continue;
            close(fd);
            return -1;
          }
          close(fd);
        }
        return 0;
      }
      """);

  private static final Map<String, Replacement> BY_SYMBOL = new LinkedHashMap<>();

  static {
    // name, its parameters; the old function, its version, its parameter types, the call's arguments
    // STAT_VERSION, BASE and LATER are the machine's (GlibcAbi): filled in by source().
    statFamily("stat", "const char *path, void *buf", "__xstat", BASE, "int, const char *, void *",
        "STAT_VERSION, path, buf");
    statFamily("stat64", "const char *path, void *buf", "__xstat64", BASE, "int, const char *, void *",
        "STAT_VERSION, path, buf");
    statFamily("lstat", "const char *path, void *buf", "__lxstat", BASE, "int, const char *, void *",
        "STAT_VERSION, path, buf");
    statFamily("lstat64", "const char *path, void *buf", "__lxstat64", BASE, "int, const char *, void *",
        "STAT_VERSION, path, buf");
    statFamily("fstat", "int fd, void *buf", "__fxstat", BASE, "int, int, void *", "STAT_VERSION, fd, buf");
    statFamily("fstat64", "int fd, void *buf", "__fxstat64", BASE, "int, int, void *", "STAT_VERSION, fd, buf");
    statFamily("fstatat", "int dir, const char *path, void *buf, int flags", "__fxstatat", LATER,
        "int, int, const char *, void *, int", "STAT_VERSION, dir, path, buf, flags");
    statFamily("fstatat64", "int dir, const char *path, void *buf, int flags", "__fxstatat64", LATER,
        "int, int, const char *, void *, int", "STAT_VERSION, dir, path, buf, flags");
    statFamily("mknod", "const char *path, unsigned int mode, unsigned long dev", "__xmknod", BASE,
        "int, const char *, unsigned int, unsigned long *", "0, path, mode, &dev");
    statFamily("mknodat", "int dir, const char *path, unsigned int mode, unsigned long dev", "__xmknodat", LATER,
        "int, int, const char *, unsigned int, unsigned long *", "0, dir, path, mode, &dev");
    BY_SYMBOL.put("fcntl64", new Replacement("""
        extern int fcntl(int, int, ...);
        KA_HIDDEN int fcntl64(int fd, int command, ...) {
          __builtin_va_list arguments;
          __builtin_va_start(arguments, command);
          void *argument = __builtin_va_arg(arguments, void *);
          __builtin_va_end(arguments);
          return fcntl(fd, command, argument);
        }
        """, List.of(), Map.of("fcntl", "GLIBC_" + BASE)));
    BY_SYMBOL.put("getentropy", new Replacement("""
        KA_HIDDEN int getentropy(void *buf, unsigned long length) {
          if (length > 256) { *__errno_location() = 5 /* EIO */; return -1; }
          return ka_glibc_fill(buf, length);
        }
        """, List.of("entropy"), Map.of()));
    BY_SYMBOL.put("arc4random", new Replacement("""
        KA_HIDDEN unsigned int arc4random(void) {
          unsigned int value;
          if (ka_glibc_fill((unsigned char *) &value, sizeof value) != 0) abort();
          return value;
        }
        """, List.of("entropy"), Map.of()));
    BY_SYMBOL.put("arc4random_buf", new Replacement("""
        KA_HIDDEN void arc4random_buf(void *buf, unsigned long length) {
          if (ka_glibc_fill(buf, length) != 0) abort();
        }
        """, List.of("entropy"), Map.of()));
    BY_SYMBOL.put("arc4random_uniform", new Replacement("""
        KA_HIDDEN unsigned int arc4random_uniform(unsigned int bound) {
          if (bound < 2) return 0;
          unsigned int floor = -bound % bound, value; /* rejects the biased low values */
          do {
            if (ka_glibc_fill((unsigned char *) &value, sizeof value) != 0) abort();
          } while (value < floor);
          return value % bound;
        }
        """, List.of("entropy"), Map.of()));
    BY_SYMBOL.put("__cxa_thread_atexit_impl", new Replacement("""
        /* Destructors of thread_local objects, run when their thread ends (a pthread key's destructor)
           or, for the thread that calls exit, at exit: libstdc++'s own fallback before glibc 2.18. */
        struct ka_glibc_dtor { void (*run)(void *); void *object; struct ka_glibc_dtor *next; };
        extern int pthread_once(int *, void (*)(void));
        extern int pthread_key_create(unsigned int *, void (*)(void *));
        extern void *pthread_getspecific(unsigned int);
        extern int pthread_setspecific(unsigned int, const void *);
        extern void *malloc(unsigned long);
        extern void free(void *);
        extern int __cxa_atexit(void (*)(void *), void *, void *);
        extern void *__dso_handle __attribute__((visibility("hidden")));
        static unsigned int ka_glibc_dtor_key;
        static int ka_glibc_dtor_once;
        static void ka_glibc_run_dtors(void *head) {
          for (struct ka_glibc_dtor *d = head; d != 0;) {
            struct ka_glibc_dtor *next = d->next;
            d->run(d->object);
            free(d);
            d = next;
          }
        }
        static void ka_glibc_run_dtors_at_exit(void *unused) {
          (void) unused;
          void *head = pthread_getspecific(ka_glibc_dtor_key);
          pthread_setspecific(ka_glibc_dtor_key, 0);
          ka_glibc_run_dtors(head);
        }
        static void ka_glibc_make_dtor_key(void) {
          pthread_key_create(&ka_glibc_dtor_key, ka_glibc_run_dtors);
          __cxa_atexit(ka_glibc_run_dtors_at_exit, 0, &__dso_handle);
        }
        KA_HIDDEN int __cxa_thread_atexit_impl(void (*run)(void *), void *object, void *dso) {
          (void) dso;
          pthread_once(&ka_glibc_dtor_once, ka_glibc_make_dtor_key);
          struct ka_glibc_dtor *d = malloc(sizeof *d);
          if (d == 0) return -1;
          d->run = run;
          d->object = object;
          d->next = pthread_getspecific(ka_glibc_dtor_key);
          pthread_setspecific(ka_glibc_dtor_key, d);
          return 0;
        }
        """, List.of(), Map.of()));
    BY_SYMBOL.put("__libc_single_threaded", new Replacement("""
        KA_HIDDEN char __libc_single_threaded = 0;
        """, List.of(), Map.of()));
    BY_SYMBOL.put("_dl_find_object", new Replacement("""
        struct ka_glibc_dl_find_object {
          unsigned long long flags;
          void *map_start, *map_end, *link_map, *eh_frame;
          unsigned long long reserved[7];
        };
        struct ka_glibc_phdr {
          unsigned int type, flags;
          unsigned long offset, vaddr, paddr, filesz, memsz, align;
        };
        struct ka_glibc_phdr_info {
          unsigned long addr;
          const char *name;
          const struct ka_glibc_phdr *phdr;
          unsigned short phnum;
        };
        struct ka_glibc_search { unsigned long pc; struct ka_glibc_dl_find_object *result; };
        extern int dl_iterate_phdr(int (*)(struct ka_glibc_phdr_info *, unsigned long, void *), void *);
        static int ka_glibc_visit(struct ka_glibc_phdr_info *info, unsigned long size, void *data) {
          struct ka_glibc_search *search = data;
          unsigned long low = ~0UL, high = 0;
          void *eh_frame = 0;
          int contains = 0;
          (void) size;
          for (unsigned short i = 0; i < info->phnum; i++) {
            const struct ka_glibc_phdr *segment = &info->phdr[i];
            unsigned long start = info->addr + segment->vaddr;
            if (segment->type == 1 /* PT_LOAD */) {
              if (start < low) low = start;
              if (start + segment->memsz > high) high = start + segment->memsz;
              if (search->pc >= start && search->pc < start + segment->memsz) contains = 1;
            } else if (segment->type == 0x6474e550 /* PT_GNU_EH_FRAME */) {
              eh_frame = (void *) start;
            }
          }
          if (!contains) return 0;
          search->result->flags = 0;
          search->result->map_start = (void *) low;
          search->result->map_end = (void *) high;
          search->result->link_map = 0;
          search->result->eh_frame = eh_frame;
          return 1;
        }
        KA_HIDDEN int _dl_find_object(void *pc, struct ka_glibc_dl_find_object *result) {
          struct ka_glibc_search search = { (unsigned long) pc, result };
          return dl_iterate_phdr(ka_glibc_visit, &search) ? 0 : -1;
        }
        """, List.of(), Map.of("dl_iterate_phdr", "GLIBC_" + BASE)));
    BY_SYMBOL.put("__libc_start_main", new Replacement("""
        extern void _init(void) __attribute__((weak));
        extern void (*__init_array_start[])(int, char **, char **) __attribute__((visibility("hidden")));
        extern void (*__init_array_end[])(int, char **, char **) __attribute__((visibility("hidden")));
        extern int ka_glibc_start_main(int (*)(int, char **, char **), int, char **,
            void (*)(int, char **, char **), void (*)(void), void (*)(void), void *);
        __asm__(".symver ka_glibc_start_main, __libc_start_main@GLIBC_BASE");
        /* What __libc_csu_init did: before 2.34 libc ran the program's constructors through it. */
        static void ka_glibc_run_constructors(int argc, char **argv, char **envp) {
          if (_init) _init();
          unsigned long count = (unsigned long) (__init_array_end - __init_array_start);
          for (unsigned long i = 0; i < count; i++) __init_array_start[i](argc, argv, envp);
        }
        KA_HIDDEN int __libc_start_main(int (*main)(int, char **, char **), int argc, char **argv,
            void (*init)(void), void (*fini)(void), void (*rtld_fini)(void), void *stack_end) {
          (void) init;
          (void) fini; /* the loader runs the destructors, at every release */
          return ka_glibc_start_main(main, argc, argv, ka_glibc_run_constructors, 0, rtld_fini, stack_end);
        }
        """, List.of(), Map.of()));
  }

  private Replacements() {}

  /** A 2.33 function defined by the call the headers made before 2.33: {@code stat(p, b)} is {@code __xstat(1, p, b)}. */
  private static void statFamily(String name, String parameters, String old, String version, String oldTypes,
      String arguments) {
    BY_SYMBOL.put(name, new Replacement(
        "extern int " + old + "(" + oldTypes + ");\n"
            + "KA_HIDDEN int " + name + "(" + parameters + ") { return " + old + "(" + arguments + "); }\n",
        List.of(), Map.of(old, "GLIBC_" + version)));
  }

  static boolean covers(String symbol) {
    return BY_SYMBOL.containsKey(symbol);
  }

  /**
   * The replacements of {@code symbols} (each one {@link #covers covered}), helpers first. The
   * functions they call are bound by {@code .symver} to their version only where that version is
   * not the default one on this host ({@code isDefault}): mold 1.10 links a {@code .symver}
   * reference to a default version as a jump into nowhere (measured), and a plain call binds to
   * the default version anyway.
   */
  static String source(Set<String> symbols, BiPredicate<String, String> isDefault, GlibcAbi abi) {
    Set<String> helpers = new LinkedHashSet<>();
    Map<String, String> imports = new TreeMap<>();
    List<String> codes = new ArrayList<>();
    for (String symbol : symbols) {
      Replacement replacement = Optional.ofNullable(BY_SYMBOL.get(symbol)).orElseThrow();
      helpers.addAll(replacement.helpers());
      replacement.imports().forEach((name, version) -> imports.put(name, version.replace("GLIBC_" + BASE,
          abi.baseVersion()).replace("GLIBC_" + LATER, "GLIBC_" + abi.later())));
      codes.add("/* " + symbol + " */\n" + replacement.code());
    }
    helpers.forEach(h -> HELPER_IMPORTS.get(h).forEach(name -> imports.put(name, abi.baseVersion())));
    StringBuilder text = new StringBuilder();
    imports.forEach((name, version) -> {
      if (!isDefault.test(name, version)) {
        text.append("__asm__(\".symver ").append(name).append(", ").append(name).append('@').append(version)
            .append("\");\n");
      }
    });
    helpers.forEach(h -> text.append(HELPERS.get(h).replace("GETRANDOM", Integer.toString(abi.getrandom())))
        .append('\n'));
    codes.forEach(c -> text.append(c.replace("STAT_VERSION", Integer.toString(abi.statVersion()))
        .replace("GLIBC_BASE", abi.baseVersion())).append('\n'));
    return text.toString();
  }
}
