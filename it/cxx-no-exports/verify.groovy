def check = evaluate(new File(itLib, 'checks.groovy'))
def report = new File(basedir, 'target/kernel/audit.txt').text
assert report.contains('  cxx_total@@CXX_1\n'): report
assert report.contains('export patterns none: every visible symbol of the host sources is exported, archive members stay private\n'): report
assert !report.contains('__to_chars_10_impl'): 'the digit table of std::to_string stays local'
def out = check.runC(basedir, '#include <stdio.h>\nunsigned long cxx_total(void);\nint main(void) { printf("%lu\\n", cxx_total()); return 0; }\n',
    new File(basedir, 'target/kernel'), 'cxx')
assert out.trim() == '' + (64 + 128 + 192 + 6 + 7 + 7): out
true
