def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)
def obj = new File(basedir, 'target/kernel/obj/host')
assert check.compileCounts(runs[0]) == [compiled: 3, upToDate: 0]
["dir with space/it's \"quoted\".c.o", 'dir with space/@at/@start.cpp.o', 'sp ace.cc.o'].each {
  assert new File(obj, it).isFile(): "missing object $it"
}
// The depfiles name headers with spaces and '@': the second build must still see everything up to date.
assert check.compileCounts(runs[1]) == [compiled: 0, upToDate: 3]
def out = check.runC(basedir, '#include <stdio.h>\nint odd_answer(void);\nint main(void) { printf("%d\\n", odd_answer()); return 0; }\n',
    new File(basedir, 'target/kernel'), 'odd')
assert out.trim() == '42'
true
