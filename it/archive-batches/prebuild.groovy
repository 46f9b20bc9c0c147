// 1,500 small kernel sources in 10 folders; planned member order is the sorted relative path.
def root = new File(basedir, 'src/main/kernels')
(0..<1500).each { i ->
  def source = new File(root, String.format('d%d/k%04d.c', i % 10, i))
  source.parentFile.mkdirs()
  source.text = "int kernel_${i}(void) { return ${i}; }\n"
}
true
