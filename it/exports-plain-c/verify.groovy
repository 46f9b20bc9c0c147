def check = evaluate(new File(itLib, 'checks.groovy'))
def report = new File(basedir, 'target/kernel/audit.txt').text
assert report.contains('exports 1\n  t_api@@PLAIN_1\n'): report
def out = check.runC(basedir, '#include <stdio.h>\nint t_api(void);\nint main(void) { printf("%d\\n", t_api()); return 0; }\n',
    new File(basedir, 'target/kernel'), 'plain')
assert out.trim() == '42'
true
