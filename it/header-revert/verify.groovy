def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)
assert runs.size() == 3
assert check.compileCounts(runs[0]) == [compiled: 3, upToDate: 0]
// The edit: both host sources and the archive's member compile again.
assert check.compileCounts(runs[1]) == [compiled: 3, upToDate: 0]
// The revert: nothing compiles and no ar runs; the host objects and the archive of the first header
// set come from the cache, which kept it beside the second.
assert runs[2].contains('Compile: 0 compiled, 0 up to date, 2 from cache, 1 in current or cached archives'): runs[2]
assert check.progress(runs[2]) == ['CC host.c (from cache)', 'CC other.c (from cache)']
assert runs[2].contains('Archive rev_kernels: 1 members (cache hit, validated)'): runs[2]
def out = check.runC(basedir, '#include <stdio.h>\nint rev_value(void);\nint main(void) { printf("%d\\n", rev_value()); return 0; }\n',
    new File(basedir, 'target/kernel'), 'rev')
assert out.trim() == '11': 'the library answers for the reverted header: ' + out
true
