def check = evaluate(new File(itLib, 'checks.groovy'))
def onPath = { String tool -> System.getenv('PATH').split(':').any { new File(it, tool).canExecute() } }
return check.runsWhen(onPath('aarch64-linux-gnu-g++') && onPath('qemu-aarch64-static'), 'platform-toolchains',
    'needs Debian\'s cross compiler and qemu-user (apt-get install g++-aarch64-linux-gnu qemu-user-static)')
