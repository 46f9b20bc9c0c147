// nginx on 127.0.0.1 with WebDAV PUT and basic auth, as the Maven repository producer and consumer share.
def check = evaluate(new File(itLib, 'checks.groovy'))
def port = check.startNginx(basedir)
// The URL reaches every step through the project's Maven configuration.
new File(basedir, '.mvn').mkdirs()
// ka.plugins: the ITs' local repository, where invoker:install put the plugin under test, for the consumer
// whose own local repository starts empty.
new File(basedir, '.mvn/maven.config').text = "-Dka.repo=http://127.0.0.1:${port}/repo\n" +
    "-Dka.plugins=${new File(localRepositoryPath.toString()).toURI()}\n"
true
