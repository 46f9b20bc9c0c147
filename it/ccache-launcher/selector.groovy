def found = System.getenv('PATH').split(':').any { new File(it, 'ccache').canExecute() }
if (!found) println 'SKIPPED ccache-launcher: ccache is not installed (.ci/run installs it)'
return found
