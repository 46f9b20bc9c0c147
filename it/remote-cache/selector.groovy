def found = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].any { new File(it).canExecute() }
if (!found) println 'SKIPPED remote-cache: nginx is not installed (.ci/run installs nginx-light)'
return found
