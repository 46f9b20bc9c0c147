def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)

assert check.compileCounts(runs[0]) == [compiled: 6, upToDate: 0]
assert runs[0].contains('Archive kernels: 6 members (built, validated; 3 of 3 batches ran ar)')

// A header edit recompiles exactly the sources that include it.
assert check.progress(runs[1]).findAll { it.startsWith('CXX') } == ['CXX kernels/k2.cpp', 'CXX kernels/sub/k4.cpp', 'CXX kernels/sub/k6.cpp']
assert check.compileCounts(runs[1]) == [compiled: 3, upToDate: 3]

// Clean build, unchanged inputs: nothing compiled, no ar, the archive from the cache, same bytes.
assert runs[2].contains('Compile: 0 compiled, 0 up to date, 6 in current or cached archives')
assert runs[2].contains('Archive kernels: 6 members (cache hit, validated)')
assert !(runs[2] =~ /\] AR kernels/)
assert new File(basedir, 'first.a').bytes == new File(basedir, 'target/kernel/libkernels.a').bytes
true
