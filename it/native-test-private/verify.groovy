def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)
assert runs[0].contains("Test program 'test_scale' does not link"): runs[0]
assert runs[0].contains('scale_tile is private to libtiles.so: the library defines it but does not export it.'
    + ' Test it through the exported API, add it to <exports>, or link this test against the archives with'
    + ' -Dkernel.test.whiteBox=true.')
assert runs[1].contains('Tests run: 1, Failures: 0, Errors: 0, Skipped: 0'): runs[1]
assert new File(basedir, 'target/kernel/test/run/test_scale/stdout.txt').text.contains('tiles_scale(2)=6 scale_tile(2)=6')
true
