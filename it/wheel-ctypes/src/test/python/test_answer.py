"""Run by the python-test goal against the installed wheel: the import must come from the venv."""
import answer

assert "site-packages" in answer.__file__, answer.__file__
assert answer.answer(20) == 42
assert answer.answer(1) == 4
