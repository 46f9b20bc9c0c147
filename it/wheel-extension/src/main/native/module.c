/* A kernel (fs_sum) and its Python binding on the stable ABI: Py_LIMITED_API comes from <limitedApi>. */
#include <Python.h>

long fs_sum(long n) {
  long total = 0;
  for (long i = 1; i <= n; i++) total += i;
  return total;
}

static PyObject *sum(PyObject *self, PyObject *args) {
  long n;
  if (!PyArg_ParseTuple(args, "l", &n)) return NULL;
  return PyLong_FromLong(fs_sum(n));
}

static PyObject *limited(PyObject *self, PyObject *unused) {
#ifdef Py_LIMITED_API
  return PyLong_FromLong(Py_LIMITED_API);
#else
  return PyLong_FromLong(0);
#endif
}

static PyMethodDef methods[] = {
  {"sum", sum, METH_VARARGS, "1 + 2 + ... + n"},
  {"limited_api", limited, METH_NOARGS, "the Py_LIMITED_API it was built with"},
  {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastsum", NULL, -1, methods};

PyMODINIT_FUNC PyInit__fastsum(void) { return PyModule_Create(&module); }
