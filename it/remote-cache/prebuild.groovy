// nginx on 127.0.0.1 with WebDAV PUT and basic auth, as the shared cache server of this IT.
def check = evaluate(new File(itLib, 'checks.groovy'))
def port = check.startNginx(basedir)
// The URL reaches every step through the project's Maven configuration.
new File(basedir, '.mvn').mkdirs()
new File(basedir, '.mvn/maven.config').text = "-Dka.remote=http://127.0.0.1:${port}\n"
true
