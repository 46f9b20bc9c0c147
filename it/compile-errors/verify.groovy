def check = evaluate(new File(itLib, 'checks.groovy'))
def run = check.invocations(basedir)[0]
assert run.contains('BUILD FAILURE')
// Both compiler messages, each with file:line, not just the first one.
assert run =~ /(?m)^\[ERROR\] .*bad1\.c:2:\d+: error:/
assert run =~ /(?m)^\[ERROR\] .*bad2\.cpp:3:\d+: error: .undefined_name./
assert run.contains('2 of 3 sources failed to compile: bad1.c, dir/bad2.cpp') ||
    run.contains('2 of 3 sources failed to compile: dir/bad2.cpp, bad1.c')
assert new File(basedir, 'target/kernel/obj/host/good.cpp.o').isFile(): 'the good source still compiled'
true
