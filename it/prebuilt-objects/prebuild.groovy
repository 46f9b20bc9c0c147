// Another build's output: 994 numbered objects, two with the same basename in different folders,
// and four whose names need quoting in a response file.
import java.util.concurrent.Executors

def objs = new File(basedir, 'objs')
def jobs = []
(0..<994).each { i -> jobs << [String.format('n%d/obj%04d.o', i % 7, i), "int numbered_${i}(void) { return ${i}; }"] }
jobs << ['a/dup.o', 'int dup_a(void) { return 1; }']
jobs << ['b/dup.o', 'int dup_b(void) { return 10; }']
jobs << ['odd/with space.o', 'int odd_space(void) { return 100; }']
jobs << ['odd/quo"te.o', 'int odd_quote(void) { return 1000; }']
jobs << ['odd/back\\slash.o', 'int odd_backslash(void) { return 10000; }']
jobs << ['odd/@lead.o', 'int odd_at(void) { return 100000; }']

def pool = Executors.newFixedThreadPool(4)
def futures = jobs.collect { job ->
  pool.submit({
    def object = new File(objs, job[0])
    object.parentFile.mkdirs()
    def source = new File(object.path + '.c')
    source.text = job[1] + '\n'
    def p = new ProcessBuilder('cc', '-c', '-fPIC', '-o', object.path, source.path).redirectErrorStream(true).start()
    def out = p.inputStream.text
    assert p.waitFor() == 0: out
    source.delete()
  } as Runnable)
}
futures.each { it.get() }
pool.shutdown()
true
