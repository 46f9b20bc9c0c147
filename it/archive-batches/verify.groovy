def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)
def archive = new File(basedir, 'target/kernel/libbig.a')

// Per-batch progress: 1,500 objects in batches of 7 is 215 ar calls.
assert runs[0].contains('AR big batch 1/215 (7 objects)')
assert runs[0].contains('AR big batch 215/215 (2 objects)')
assert runs[0].contains('Archive big: 1500 members (built, validated; 215 of 215 batches ran ar)'): 'first build'
assert runs[2].contains('Archive big: 1500 members (built, validated; 4 of 4 batches ran ar)'): 'rebuild in batches of 400'

// Exactly the planned members, in planned order.
def expected = (0..<10).collectMany { d -> (0..<1500).findAll { it % 10 == d }.collect { String.format('k%04d.c.o', it) } }
def members = check.sh(['ar', 't', archive.path], basedir).readLines()
assert members == expected

// The index lists the kernels, and the linker takes the archive whole.
def index = check.sh(['nm', '-s', archive.path], basedir)
assert index.contains('kernel_1499 in k1499.c.o')
def lib = new File(basedir, 'target/whole.so')
check.sh(['cc', '-shared', '-o', lib.path, '-Wl,--whole-archive', archive.path, '-Wl,--no-whole-archive'], basedir)
// (The plugin compiles with hidden visibility, so the kernels are in the symbol table, not exported.)
def symbols = check.sh(['nm', '--defined-only', lib.path], basedir).readLines().collect { it.tokenize(' ').last() } as Set
def missing = (0..<1500).findAll { !symbols.contains("kernel_${it}".toString()) }
assert missing.isEmpty(): "kernels missing from the whole-archive link: ${missing.take(5)}"

// Byte-identical: two clean builds, and batch sizes 7 and 400.
def bytes = archive.bytes
assert new File(basedir, 'first.a').bytes == bytes
assert new File(basedir, 'second.a').bytes == bytes
true
