def log = new File(basedir, 'build.log').text
assert log.contains('kernel:build')
assert log =~ /(?s)batchSize.*Default: 2000 with .*400 with .*User property: kernel\.batchSize/
assert log =~ /(?s)cacheRemoteUrl.*User property: kernel\.cache\.remote\.url/
assert log =~ /(?s)linker.*Default: auto.*User property: kernel\.linker/
true
