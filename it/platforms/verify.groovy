def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)

// 1: each platform into its own folder, each library of its own machine.
assert runs[0].contains("Platform linux-aarch64 into ${new File(basedir, 'target/kernel-linux-aarch64')}"): runs[0]
def x86 = new File(basedir, 'target/kernel/libsum.so')
def arm = new File(basedir, 'target/kernel-linux-aarch64/libsum.so')
assert check.sh(['readelf', '-h', x86.path], basedir).contains('Advanced Micro Devices X86-64')
assert check.sh(['readelf', '-h', arm.path], basedir).contains('AArch64')
def exported = check.sh(['readelf', '--dyn-syms', '--wide', arm.path], basedir).readLines()
    .findAll { it =~ / GLOBAL +DEFAULT +\d+ / }.collect { it.trim().split(/\s+/)[7] }.sort()
assert exported.findAll { it.startsWith('sum_') } == ['sum_machine@@SUM_1', 'sum_roots@@SUM_1']: exported
// Each platform's test program ran, the aarch64 one under qemu, each with a report of its own.
def x86Report = new File(basedir, 'target/surefire-reports/TEST-sum.xml').text
def armReport = new File(basedir, 'target/surefire-reports/TEST-sum-linux-aarch64.xml').text
assert x86Report.contains('tests="1"') && x86Report.contains('failures="0"') && x86Report.contains('machine=x86_64'): x86Report
assert armReport.contains('tests="1"') && armReport.contains('failures="0"') && armReport.contains('machine=aarch64'): armReport
// A bundle and a jar per platform, and the jar that holds both.
def bundles = new File(basedir, 'target').listFiles().collect { it.name }.findAll { it.endsWith('.kernel') }.sort()
assert bundles.contains('platforms-1.0-linux-aarch64.kernel') && bundles.contains('platforms-1.0-linux-x86_64.kernel'): bundles
def merged = new java.util.zip.ZipFile(new File(basedir, 'target/platforms-1.0-multiplatform.jar'))
assert merged.getEntry('META-INF/native/linux-aarch64/libsum.so') && merged.getEntry('META-INF/native/linux-x86_64/libsum.so')
merged.close()
// A wheel per platform, tagged for its machine (std::thread needs GLIBCXX_3.4.22 on both).
assert runs[0].contains('Wheel: sum-1.0-py3-none-manylinux_2_24_x86_64.whl'): runs[0]
assert runs[0].contains('Wheel: sum-1.0-py3-none-manylinux_2_24_aarch64.whl'): runs[0]
// Each wheel's Python test ran on its platform: here, and under qemu in an arm64 Python where .ci/run made one.
def pythonReport = new File(basedir, 'target/surefire-reports/TEST-python.xml').text
assert pythonReport.contains('tests="1"') && pythonReport.contains('failures="0"') && pythonReport.contains('machine x86_64'): pythonReport
if (new File('/opt/kernel-archive/arm64/usr/bin').isDirectory()) {
  def armPython = new File(basedir, 'target/surefire-reports/TEST-python-linux-aarch64.xml').text
  assert armPython.contains('tests="1"') && armPython.contains('failures="0"') && armPython.contains('machine aarch64'): armPython
} else {
  assert runs[0].contains('SKIP Python tests of sum-1.0-py3-none-manylinux_2_24_aarch64.whl: no linux-aarch64 Python'): runs[0]
}
// The multiplatform jar through kernel-archive-runtime and JNI: this JVM loads linux-x86_64, Debian's arm64
// JVM under qemu (where .ci/run unpacked one) linux-aarch64, from the same jar.
def classes = new File(basedir, 'target/jvm-classes')
new File(classes, 't').mkdirs()
def source = new File(classes, 't/Sum.java')
source.text = """package t;
public class Sum {
  static { io.github.kernelarchive.runtime.KernelLibrary.load("sum", System::load); }
  static native double roots(long n);
  static native String machine();
  public static void main(String[] args) {
    System.out.println("jvm " + System.getProperty("os.arch") + " library " + machine() + " roots " + roots(1000));
  }
}
"""
def runtime = new File(localRepositoryPath, 'io/github/kernelarchive/kernel-archive-runtime').listFiles()
    .findAll { it.isDirectory() }.collectMany { it.listFiles().toList() }.find { it.name ==~ /kernel-archive-runtime-.*\.jar/ }
def javaHome = System.getProperty('java.home')
check.sh(["${javaHome}/bin/javac".toString(), '--release', '17', '-cp', runtime.path, '-d', classes.path, source.path], basedir)
def classpath = [runtime.path, new File(basedir, 'target/platforms-1.0-multiplatform.jar').path, classes.path].join(':')
def cache = [XDG_CACHE_HOME: new File(basedir, 'target/jvm-cache').path]
def here = check.sh(["${javaHome}/bin/java".toString(), '-cp', classpath, 't.Sum'], basedir, cache)
assert here.contains('jvm amd64 library x86_64 roots 21065.83311'): here
def armJava = new File('/opt/kernel-archive/arm64/usr/lib/jvm/java-17-openjdk-arm64/bin/java')
if (armJava.isFile()) {
  def there = check.sh(['qemu-aarch64-static', '-L', '/opt/kernel-archive/arm64', armJava.path, '-Xshare:off', '-cp', classpath,
      't.Sum'], basedir, cache)
  assert there.contains('jvm aarch64 library aarch64 roots 21065.83311'): there
} else {
  println 'SKIPPED the arm64 JVM: no Debian arm64 OpenJDK 17 at /opt/kernel-archive/arm64 (.ci/run unpacks one)'
}

// 3: with kernel.glibc=2.17 the aarch64 library needs no glibc version above 2.17 and no libstdc++ of the
// system, its test program passes under qemu, and each wheel is tagged manylinux_2_17 for its machine: run 1's
// wheels, of the same version and architecture, were removed.
def armVersions = check.sh(['readelf', '-V', arm.path], basedir).findAll(/Name: ([A-Z]+_[0-9.]+)/) { it[1] }.unique().sort()
assert armVersions == ['GLIBC_2.17', 'SUM_1']: armVersions
assert runs[2].contains('removed sum-1.0-py3-none-manylinux_2_24_aarch64.whl'): runs[2]
def wheels = new File(basedir, 'target').listFiles().collect { it.name }.findAll { it.endsWith('.whl') }.sort()
assert wheels == ['sum-1.0-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.whl',
                  'sum-1.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl']: wheels
assert runs[2].findAll(/PASS roots/).size() == 2 && runs[2].findAll(/PASSED test_sum/).size() == 2: runs[2]
// The same test program on an older glibc than the cross sysroot's 2.36: Debian 11's 2.31 for arm64, which
// .ci/run unpacks (no older arm64 glibc is reachable from here).
def oldArm = new File('/opt/kernel-archive/glibc-2.31-arm64')
if (new File(oldArm, 'lib/ld-linux-aarch64.so.1').exists()) {
  def program = new File(basedir, 'target/kernel-linux-aarch64/test/bin/roots')
  def onOld = check.sh(['qemu-aarch64-static', '-L', oldArm.path, program.path], basedir,
      [LD_LIBRARY_PATH: arm.parentFile.path])
  assert onOld.contains('machine=aarch64 sum=21065.833111 expected=21065.833111 negative=-1'): onOld
} else {
  println "SKIPPED the aarch64 library on glibc 2.31: nothing at ${oldArm} (.ci/run unpacks Debian 11's libc6:arm64 there)"
}

// 2: the x86_64 object refused for the aarch64 build, by name.
assert runs[1].contains('helper.o'): runs[1]
assert runs[1] =~ /x86-64/: runs[1]
assert runs[1].contains('BUILD FAILURE')
true
