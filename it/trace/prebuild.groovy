// 20 kernel sources in two archives; k0 fails to compile when BREAK is set.
(0..<20).each { i ->
  def archive = i < 10 ? 'first' : 'second'
  def source = new File(basedir, "src/main/kernels/${archive}/k${i}.c")
  source.parentFile.mkdirs()
  source.text = (i == 0 ? '#if BREAK\n#error broken on purpose\n#endif\n' : '') + "int kernel_${i}(void) { return ${i}; }\n"
}
new File(basedir, 'src/main/native').mkdirs()
new File(basedir, 'src/main/native/api.c').text = 'int kernel_0(void);\nint traced_zero(void) { return kernel_0(); }\n'
true
