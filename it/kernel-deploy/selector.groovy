def check = evaluate(new File(itLib, 'checks.groovy'))
// Where Debian puts it, which a non-root PATH may lack.
def found = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].any { new File(it).canExecute() }
return check.runsWhen(found, 'kernel-deploy', 'nginx is not installed (apt-get install nginx)')
