def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)
def kernel = new File(basedir, 'target/kernel')
def library = new File(kernel, 'liboldsys.so')

// 1: without a target the floor is the build host's: a newer glibc, and libstdc++'s own versions.
assert runs[0].contains('BUILD SUCCESS'): runs[0]
assert !runs[0].contains('for glibc:'): runs[0]
assert runs[0] =~ /floor .*\bGLIBC_2\.(1[89]|[2-9]\d)(\.\d+)?: /: runs[0]
assert runs[0] =~ /floor .*\bGLIBCXX_3\.4\.\d+: /: runs[0]

// 2: 2.9 is refused before anything is linked, naming the parameter and the oldest release it takes.
assert runs[1].contains("kernel.glibc is '2.9': give a glibc release as 2.N, at least 2.17"): runs[1]

// 3: linked for glibc 2.17: the summary and audit.txt say so, per family, and nothing of libstdc++.
def run = runs[2]
assert run.contains('BUILD SUCCESS'): run
assert run =~ /liboldsys\.so for glibc: \d+ import\(s\) bound to older versions/
// The floor the summary states is the target's when the content needs less (it was checked against 2.17).
assert run.contains('floor     glibc 2.17 (kernel.glibc)') || run =~ /floor     GLIBC_2\.17: /: run
def floor = (run =~ /floor .*\bGLIBC_(2\.\d+(?:\.\d+)?):/)
assert floor.find(): run
assert (floor.group(1).tokenize('.')[1] as int) <= 17: floor.group(0)
assert !(run =~ /floor .*\b(GLIBCXX|CXXABI)_/): run
def audit = new File(kernel, 'audit.txt').text
assert audit =~ /floor GLIBC_2\.(\d|1[0-7])(\.\d+)?: /: audit
assert !(audit =~ /floor (GLIBCXX|CXXABI)_/): 'libstdc++ is linked statically: ' + audit
def dynamic = check.sh(['readelf', '-dV', library.path], basedir)
assert dynamic.contains('[libpthread.so.0]') && dynamic.contains('[libdl.so.2]'): dynamic
assert !dynamic.contains('libstdc++.so.6'): dynamic
assert !(dynamic =~ /GLIBC_2\.(1[89]|[2-9]\d)/): dynamic
// The native test program, held to 2.17 as well, passed here.
assert run.contains('Tests run: 1, Failures: 0, Errors: 0, Skipped: 0'): run

// The program and the library load and answer under glibc 2.23's own loader, where .ci/run unpacked it.
def old = new File(System.getenv('KA_OLD_GLIBC') ?: '/opt/kernel-archive/glibc-2.23', 'lib/x86_64-linux-gnu')
if (check.runsWhen(new File(old, 'ld-linux-x86-64.so.2').exists(), 'glibc-floor (glibc 2.23 part)',
    "no glibc 2.23 at ${old}: .ci/run unpacks Ubuntu 16.04's libc6 there")) {
  def program = new File(kernel, 'test/bin/report')
  assert program.exists(): 'the test program at ' + program
  def output = check.sh([new File(old, 'ld-linux-x86-64.so.2').path, '--library-path',
      "${old.path}:${kernel.path}".toString(), program.path], basedir)
  assert output.strip() == 'tls=1 fs=1 caught=thrown dlopen=1 pow=1025.0': output
}
