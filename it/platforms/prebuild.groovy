// An object of the build machine (x86_64), for the second run's archive of prebuilt objects.
def objs = new File(basedir, 'objs')
objs.mkdirs()
def source = new File(objs, 'helper.c')
source.text = 'int helper(void) { return 1; }\n'
def p = ['cc', '-c', '-fPIC', source.path, '-o', new File(objs, 'helper.o').path].execute()
p.waitForProcessOutput(System.out, System.err)
source.delete()
assert p.exitValue() == 0
true
