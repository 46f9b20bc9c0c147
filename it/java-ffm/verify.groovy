def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)
def log = runs[2]
def generated = new File(basedir, 'app/target/generated-sources/kernel/com/example/kernels/Kernels.java')
assert generated.isFile(): generated
def source = generated.text
assert source.contains('public static float kn_reduce_view(MemorySegment view)'): source
assert source.contains('public static int kn_axpy(float a, MemorySegment x, MemorySegment y, long n)'): source
assert source.contains('public static final int KN_MEAN = 2;'): source
assert source.contains('public static final class KnView'): source
assert source.contains('KernelLibrary.load("kernels"'): source
assert !source.contains('kernels_private_helper'): 'left out: not exported'
assert log =~ /Java bindings: com\.example\.kernels\.Kernels from kernels\.h of java-ffm-kernels-1\.0-linux-x86_64\.jar: 11 functions, 5 structs, 3 constants/
// The bit-field is skipped with a warning that names it.
assert log.contains("[WARNING] kernels.h:48: field 'ready' of kn_flags is a bit-field (1 bit), which no memory layout can"
    + " address: the binding skips it (the struct's layout pads over it) and the other fields work"): log
// The tests ran on the JDK of the toolchain, and passed.
assert log =~ /FFM-OK (2[2-9]|[3-9]\d)/: log
assert log.contains('Tests run: 4, Failures: 0, Errors: 0, Skipped: 0'): log

// Runs 1 and 2, in the reactor before the package phase: the kernel module's target/classes stood in for its jar.
def classes = new File(basedir, 'kernels/target/classes').path
for (run in runs[0..1]) {
  assert run.contains('Kernel jar content: target/classes/META-INF/native/linux-x86_64/ (libkernels.so) for modules of'
      + ' this reactor'): run
  assert run.contains("Java bindings: com.example.kernels.Kernels from kernels.h of ${classes}: 11 functions".toString()): run
  assert run.contains('BUILD SUCCESS'): run
}
assert !runs[0].contains('Tests run:'): runs[0]
assert runs[1] =~ /FFM-OK (2[2-9]|[3-9]\d)/: runs[1]
assert runs[1].contains('Tests run: 4, Failures: 0, Errors: 0, Skipped: 0'): runs[1]
assert !runs[1].contains('java-ffm-kernels-1.0-linux-x86_64.jar'): 'run 2 packed no jar'
