def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)
assert runs.size() == 6

assert check.compileCounts(runs[0]) == [compiled: 4, upToDate: 0]

assert check.compileCounts(runs[1]) == [compiled: 0, upToDate: 4]
assert check.progress(runs[1]).isEmpty()
assert runs[1].contains('(up to date)'): 'an unchanged build does not relink'

assert check.compileCounts(runs[2]) == [compiled: 2, upToDate: 2]
assert check.progress(runs[2]) == ['CC a.c', 'CXX sub/b.cpp']

assert check.compileCounts(runs[3]) == [compiled: 4, upToDate: 0]

assert check.compileCounts(runs[4]) == [compiled: 1, upToDate: 3]
assert check.progress(runs[4]) == ['CXX sub/c.cpp']
assert new File(basedir, 'target/kernel/obj/host/sub/c.cpp.o').isFile()

assert runs[5].contains('Kernel Archive: skipped (kernel.skip=true)')
assert !runs[5].contains('Compile:')
true
