def check = evaluate(new File(itLib, 'checks.groovy'))
def run = check.invocations(basedir)[0]
assert run.contains('Audit of libaudited.so failed (1 problem(s)')
assert run.contains("<export> pattern 'mha_bwd_*' matches no exported symbol")
def report = new File(basedir, 'target/kernel/audit.txt').text
assert report.contains('SONAME libaudited.so')
assert report.contains('export patterns mha_* mha_bwd_*\n'): report
assert report.contains('exports 1\n  mha_fwd@@AUDITED_1\n'): 'the version script keeps tile_size_helper local'
// The failed audit publishes no library where consumers look, and its report carries the problem.
assert !new File(basedir, 'target/kernel/libaudited.so').exists()
assert report.contains("FAILED, not published: 1 problem(s)\n  <export> pattern 'mha_bwd_*' matches no exported symbol"): report
// (A leak past the version script, named with its object, is shown by ExportAuditTest.)
true
