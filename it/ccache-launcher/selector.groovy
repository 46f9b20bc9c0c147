def check = evaluate(new File(itLib, 'checks.groovy'))
return check.requireTool('ccache-launcher', 'ccache', 'ccache')
