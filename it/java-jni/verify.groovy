import java.util.zip.ZipFile

def check = evaluate(new File(itLib, 'checks.groovy'))
def log = new File(basedir, 'build.log').text

// The kernel module's jar: the library and its index under META-INF/native/linux-x86_64/.
def jar = new File(basedir, 'kernels/target/java-jni-kernels-1.0-linux-x86_64.jar')
assert jar.isFile(): 'the kernel jar'
def names = new ZipFile(jar).withCloseable { z -> z.entries().collect { it.name } }
assert names[0] == 'META-INF/MANIFEST.MF': names
assert names.containsAll(['META-INF/native/linux-x86_64/libsaxpy.so', 'META-INF/native/linux-x86_64/saxpy.index',
                          'META-INF/native/saxpy.platforms']): names
def index = new ZipFile(jar).withCloseable { z -> z.getInputStream(z.getEntry('META-INF/native/linux-x86_64/saxpy.index')).text }
assert index.contains('load=libsaxpy.so'): index
assert index =~ /sha256\.libsaxpy\.so=[0-9a-f]{64}/: index
assert index.contains('soname.libsaxpy.so=libsaxpy.so'): index
assert index =~ /(?m)^glibc=(2\.[\d.]+)?$/: index
assert index.contains('cuda=none'): index
assert log.contains('Kernel jar: java-jni-kernels-1.0-linux-x86_64.jar (META-INF/native/linux-x86_64/: libsaxpy.so'): log

// JNI exported, the rest kept private.
def exported = check.sh(['nm', '-D', '--defined-only', new File(basedir, 'kernels/target/kernel/libsaxpy.so').path], basedir)
assert exported.contains('Java_com_example_Saxpy_saxpy') && exported.contains('JNI_OnLoad'): exported
assert !exported.contains('saxpy_internal_counter'): exported

// The Java module's test called into it.
assert log.contains('SAXPY-OK [12.0, 24.0, 36.0, 48.0]'): log
assert log.contains('Tests run: 1, Failures: 0, Errors: 0, Skipped: 0'): log
