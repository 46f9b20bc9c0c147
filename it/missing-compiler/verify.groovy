def check = evaluate(new File(itLib, 'checks.groovy'))
def run = check.invocations(basedir)[0]
assert run.contains('BUILD FAILURE')
assert run.contains("C++ compiler '/no/such/compiler/g++' does not exist or is not executable")
assert run.contains('Set <cxx> (property kernel.cxx) to an installed compiler')
true
