def check = evaluate(new File(itLib, 'checks.groovy'))
def run = check.invocations(basedir)[0]
// va_* matched va_version (host, exported), and va_add (archive member, private, called by nothing
// in the library): it could never be called, so the build fails naming it.
assert run.contains("<export> pattern 'va_*' matches archive members' functions that nothing in the library calls"
    + " (va_add in libva_kernels.a(add.c.o))"): run
assert run.contains('Export a wrapper from a host source in <sources> that calls it'): run
assert run.contains('1 problem(s)'): run
assert !new File(basedir, 'target/kernel/libva.so').exists(): 'a library that fails its audit is not published'
true
