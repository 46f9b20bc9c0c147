def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)
// Invocation 3 switched static-a to gold: a changed kernel.linker relinks, with the linker named.
assert runs[2].contains('/static-a/target/kernel/liba.so (linked with gold)'): runs[2]
def exe = new File(basedir, 'target/load-both')
exe.parentFile.mkdirs()
check.sh(['cc', '-o', exe.path, new File(itLib, 'load-both.c').path, '-ldl'], basedir)
def lib = { String module, String name -> new File(basedir, "${module}/target/kernel/lib${name}.so").path }
def load = { String first, String firstSymbol, String second, String secondSymbol ->
  check.sh([exe.path, first, firstSymbol, second, secondSymbol], basedir).trim()
}

// Linked privately (the default): each library answers with its own kernels, in both load orders.
assert load(lib('static-a', 'a'), 'a_answer', lib('static-b', 'b'), 'b_answer') == 'a_answer=110 b_answer=220'
assert load(lib('static-b', 'b'), 'b_answer', lib('static-a', 'a'), 'a_answer') == 'b_answer=220 a_answer=110'

// The plain layout (kernel.staticLink=false): the library loaded second calls the first one's kernels.
assert load(lib('plain-a', 'pa'), 'pa_answer', lib('plain-b', 'pb'), 'pb_answer') == 'pa_answer=110 pb_answer=110'
assert load(lib('plain-b', 'pb'), 'pb_answer', lib('plain-a', 'pa'), 'pa_answer') == 'pb_answer=220 pa_answer=220'

// Plain layout: one shared library per archive, needed by SONAME and found through $ORIGIN.
def dynamic = check.sh(['readelf', '-d', lib('plain-a', 'pa')], basedir)
assert dynamic.contains('Shared library: [libkernels_pa.so]')
assert dynamic.contains('Library runpath: [$ORIGIN]')
assert !check.sh(['readelf', '-d', lib('static-a', 'a')], basedir).contains('libkernels_a.so')

// Every library is installed with a platform classifier.
def repo = new File(localRepositoryPath, 'it/kernelarchive')
assert new File(repo, 'static-a/1.0/static-a-1.0-linux-x86_64.so').isFile()
assert new File(repo, 'plain-a/1.0/plain-a-1.0-linux-x86_64.so').isFile()
assert new File(repo, 'plain-a/1.0/plain-a-1.0-linux-x86_64-kernels_pa.so').isFile()

// A consumer outside the reactor fetched libstatic-a through maven-dependency-plugin: it loads and answers.
assert check.invocations(basedir)[1].contains('Configured Artifact: it.kernelarchive:static-a:linux-x86_64:1.0:so'): 'the consumer fetched static-a'
def out = check.runC(basedir, '#include <stdio.h>\nint a_answer(void);\nint main(void) { printf("%d\\n", a_answer()); return 0; }\n',
    new File(basedir, 'consumer/target/lib'), 'a')
assert out.trim() == '110'
true
