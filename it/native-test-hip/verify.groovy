def check = evaluate(new File(itLib, 'checks.groovy'))
def run = check.invocations(basedir)[0]
assert run.contains('Test programs: 1 compiled, 0 up to date, 1 linked, 0 up to date'): run
// Without an AMD GPU (as on CI machines) the program skips, saying why; with one it passes.
assert run =~ /\[1\/1\] (SKIP test_hip \([\d.]+ s\): no AMD GPU visible|PASS test_hip)/
assert run =~ /Tests run: 1, Failures: 0, Errors: 0, Skipped: [01]/
true
