def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)
def archive = new File(basedir, 'target/kernel/libprebuilt.a')

// Default batches: 2,000 objects with llvm-ar (one batch here), 400 with GNU ar (three).
def batches = check.sh(['sh', '-c', 'command -v llvm-ar || true'], basedir).trim() ? 1 : 3
assert runs[0].contains("Archive prebuilt: 1000 members (built, validated; ${batches} of ${batches} batches ran ar)")
// After clean: served from the cache, no ar at all.
assert runs[1].contains('Archive prebuilt: 1000 members (cache hit, validated)')
assert !(runs[1] =~ /\] AR prebuilt/)

// Members in planned order (sorted relative path), repeated basenames both kept, odd names intact.
def expected = ['a/dup.o', 'b/dup.o'] + (0..<7).collectMany { d -> (0..<994).findAll { it % 7 == d }.collect { String.format('obj%04d.o', it) } } +
    ['odd/@lead.o', 'odd/back\\slash.o', 'odd/quo"te.o', 'odd/with space.o']
expected = expected.collect { it.substring(it.lastIndexOf('/') + 1) }
def members = check.sh(['ar', 't', archive.path], basedir).readLines()
assert members == expected

def out = check.runC(basedir, '#include <stdio.h>\nint pre_sum(void);\nint main(void) { printf("%d\\n", pre_sum()); return 0; }\n',
    new File(basedir, 'target/kernel'), 'pre')
assert out.trim() == '111111'
true
