def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)
assert check.compileCounts(runs[0]) == [compiled: 3, upToDate: 0]
// After clean the plugin has no objects and compiles all three again: through ccache.
assert check.compileCounts(runs[1]) == [compiled: 3, upToDate: 0]
def stats = check.sh(['ccache', '--print-stats'], basedir, [CCACHE_DIR: new File(basedir, 'ccache-dir').path])
def count = { String name -> ((stats =~ /(?m)^${name}\t(\d+)$/)[0][1]) as int }
assert count('direct_cache_hit') + count('preprocessed_cache_hit') == 3: stats
assert count('cache_miss') == 3: stats
true
