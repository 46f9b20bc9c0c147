// objs -> build-out (a link), and build-out/more -> ../extra (a linked folder inside it).
def check = evaluate(new File(itLib, 'checks.groovy'))
['build-out', 'extra'].each { new File(basedir, it).mkdirs() }
[['build-out', 'a', 1], ['build-out', 'b', 2], ['extra', 'c', 3]].each { folder, name, value ->
  def src = new File(basedir, "${folder}/${name}.c")
  src.text = "int obj_${name}(void) { return ${value}; }\n"
  check.sh(['cc', '-c', '-fPIC', '-o', "${folder}/${name}.o".toString(), src.path], basedir)
}
check.sh(['ln', '-s', 'build-out', 'objs'], basedir)
check.sh(['ln', '-s', '../extra', 'build-out/more'], basedir)
true
