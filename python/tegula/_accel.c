/* tegula._accel: the launcher's per-call steps in C (see _accel_py.py, the
 * Python version, which gives the same results, and _launcher.py, which
 * calls them):
 *
 *   arg_key(value)   -> (key part, value to pack) or None. ints, floats,
 *                       bools, NumPy arrays (contiguous, exact ndarray) and
 *                       torch tensors are read here; anything else, and any
 *                       case these do not settle, goes to the Python
 *                       arg_key given to setup().
 *   grid3(grid)      -> (x, y, z) for a tuple of 1 to 3 ints (not bools) within
 *                       the launch limits, else None (the caller then checks
 *                       it and says what is wrong).
 *   make_layout(codes, offsets, total) -> a layout, or None for a code
 *                       this file does not pack (fp16, bf16, fp8 scalars).
 *   pack(layout, values) -> the packed bytes; the exception struct would
 *                       raise (ValueError, TypeError, OverflowError) when a
 *                       value does not pack.
 *   launch(function, kernel, layout, stream, config, *values) -> 0, the
 *                       tegula_error_t* as an int, or None (nothing
 *                       launched) when a value does not pack. Packs on the
 *                       stack and calls tegula_kernel_launch at |function|
 *                       without the GIL (the runtime copies the arguments
 *                       before it returns).
 *   arg_keys(*values) -> ((key parts), (values to pack)) of arg_key for
 *                       each value, in one call; None when arg_key gives
 *                       None for one of them.
 *   environment_key(data, keys) -> a small int naming the values of the
 *                       environment variables |keys| (bytes) in |data|
 *                       (os.environ's dict): equal values, equal ints. The
 *                       last answer is kept until |data| changes (a dict
 *                       watcher, or the dict's version tag before Python
 *                       3.12) or another |keys| list comes, or it grows.
 *   runner(function, kernel, layout, configs, config, torch) -> a
 *                       callable run(grid, stream, values): the launch of
 *                       one launcher entry (see make_runner below).
 *   quick(last, grid, stream, raw, *values) -> the launch of the last
 *                       entry when the call has its key, else None (see
 *                       quick below).
 *
 * NumPy arrays are read through the public fields of NumPy's array struct
 * (PyArrayObject_fields, the same in NumPy 1.x and 2.x); setup() checks them
 * against a probe array and leaves arrays to Python when they disagree.
 * torch tensors are read through their Python attributes (no torch headers).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tegula/runtime.h" /* tegula_kernel_launch's type; not linked */

#if PY_VERSION_HEX < 0x030B0000
#define PyFloat_Pack4 _PyFloat_Pack4 /* public from Python 3.11 */
#endif

/* NumPy's public array struct, as ndarraytypes.h declares it. */
typedef struct {
  PyObject_HEAD
  char *data;
  int nd;
  Py_ssize_t *dimensions;
  Py_ssize_t *strides;
  PyObject *base;
  PyObject *descr;
  int flags;
} NumpyArray;

enum { NPY_C_CONTIGUOUS = 0x1, NPY_F_CONTIGUOUS = 0x2, NPY_WRITEABLE = 0x400 };

static PyObject *g_fallback;     /* _accel_py.arg_key */
static PyTypeObject *g_ndarray;  /* numpy.ndarray, when its struct checked out */
static PyTypeObject *g_tensor;   /* torch.Tensor, once torch is loaded */
static PyObject *g_str_cpu, *g_str_cuda;
static PyObject *g_is_cuda, *g_is_cpu, *g_get_device, *g_data_ptr, *g_dtype,
    *g_is_contiguous;

/* -- arg_key --------------------------------------------------------------- */

static PyObject *fallback(PyObject *v) {
  if (!g_fallback) {
    PyErr_SetString(PyExc_RuntimeError, "tegula._accel: setup() was not called");
    return NULL;
  }
  return PyObject_CallOneArg(g_fallback, v);
}

/* _accel_py.int_code: 0 (i32), 4 (u64), 8 (i64), +1 for 1, +2 for a multiple
 * of 16; -1 when |v| does not fit 64 bits. */
static int int_code(PyObject *v) {
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
  if (x == -1 && PyErr_Occurred())
    return -2;
  if (overflow < 0)
    return -1;
  if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(v);
    if (u == (unsigned long long)-1 && PyErr_Occurred()) {
      PyErr_Clear();
      return -1;
    }
    return 4 + (u == 1 ? 1 : (u & 15) == 0 ? 2 : 0);
  }
  int w = (x >= -0x80000000LL && x <= 0x7FFFFFFFLL) ? 0 : 8;
  return w + (x == 1 ? 1 : (x & 15) == 0 ? 2 : 0);
}

/* ((parts...), addr): steals the |n| parts and |addr| (which may be NULL:
 * then the parts are released and NULL returned). */
static PyObject *pair_key(PyObject *parts[], int n, PyObject *addr) {
  PyObject *key = addr ? PyTuple_New(n) : NULL;
  if (!key) {
    for (int i = 0; i < n; ++i)
      Py_DECREF(parts[i]);
    Py_XDECREF(addr);
    return NULL;
  }
  for (int i = 0; i < n; ++i)
    PyTuple_SET_ITEM(key, i, parts[i]); /* steals */
  PyObject *out = PyTuple_New(2);
  if (!out) {
    Py_DECREF(key);
    Py_DECREF(addr);
    return NULL;
  }
  PyTuple_SET_ITEM(out, 0, key);
  PyTuple_SET_ITEM(out, 1, addr);
  return out;
}

static PyObject *address_key(PyObject *parts[], int n, uintptr_t address) {
  return pair_key(parts, n, PyLong_FromUnsignedLongLong(address));
}

static PyObject *ndarray_key(PyObject *v) {
  NumpyArray *a = (NumpyArray *)v;
  if (!(a->flags & (NPY_C_CONTIGUOUS | NPY_F_CONTIGUOUS)))
    return fallback(v); /* a strided view: Python checks for overlap */
  uintptr_t address = (uintptr_t)a->data;
  PyObject *parts[4] = {(PyObject *)Py_TYPE(v), a->descr,
                        (address & 15) ? Py_False : Py_True,
                        (a->flags & NPY_WRITEABLE) ? Py_True : Py_False};
  for (int i = 0; i < 4; ++i)
    Py_INCREF(parts[i]);
  return address_key(parts, 4, address);
}

/* The attribute |name| of |v| is True (1), False (0), or neither (-1, with
 * no error set). */
static int flag(PyObject *v, PyObject *name, int call) {
  PyObject *r = call ? PyObject_CallMethodNoArgs(v, name) : PyObject_GetAttr(v, name);
  if (!r) {
    PyErr_Clear();
    return -1;
  }
  int out = r == Py_True ? 1 : r == Py_False ? 0 : -1;
  Py_DECREF(r);
  return out;
}

static PyObject *tensor_key(PyObject *v) {
  int cuda = flag(v, g_is_cuda, 0);
  int cpu = cuda == 0 ? flag(v, g_is_cpu, 0) : 0;
  if (cuda != 1 && !(cpu == 1 && flag(v, g_is_contiguous, 1) == 1))
    return fallback(v);
  PyObject *ptr = PyObject_CallMethodNoArgs(v, g_data_ptr);
  PyObject *dtype = ptr ? PyObject_GetAttr(v, g_dtype) : NULL;
  PyObject *index = dtype && cuda == 1 ? PyObject_CallMethodNoArgs(v, g_get_device) : NULL;
  unsigned long long address = 0;
  int bad = !ptr || !PyLong_Check(ptr);
  if (!bad) {
    address = PyLong_AsUnsignedLongLong(ptr);
    bad = address == (unsigned long long)-1 && PyErr_Occurred();
  }
  if (bad || !dtype || (cuda == 1 && (!index || !PyLong_Check(index)))) {
    PyErr_Clear();
    Py_XDECREF(ptr);
    Py_XDECREF(dtype);
    Py_XDECREF(index);
    return fallback(v);
  }
  if (!PyLong_CheckExact(ptr)) { /* an int subclass: the value as a plain int */
    Py_DECREF(ptr);
    ptr = PyLong_FromUnsignedLongLong(address);
  }
  PyObject *aligned = (address & 15) ? Py_False : Py_True;
  Py_INCREF(aligned);
  if (cuda == 1) {
    Py_INCREF(g_str_cuda);
    PyObject *parts[4] = {g_str_cuda, index, dtype, aligned};
    return pair_key(parts, 4, ptr);
  }
  Py_INCREF(g_str_cpu);
  PyObject *parts[3] = {g_str_cpu, dtype, aligned};
  return pair_key(parts, 3, ptr);
}

static PyObject *arg_key(PyObject *self, PyObject *v) {
  PyTypeObject *t = Py_TYPE(v);
  if (t == &PyLong_Type) {
    int code = int_code(v);
    if (code == -2)
      return NULL;
    if (code < 0)
      Py_RETURN_NONE;
    PyObject *c = PyLong_FromLong(code);
    if (!c)
      return NULL;
    PyObject *out = PyTuple_Pack(2, c, v);
    Py_DECREF(c);
    return out;
  }
  if (t == &PyFloat_Type || t == &PyBool_Type)
    return PyTuple_Pack(2, (PyObject *)t, v);
  if (g_ndarray && t == g_ndarray)
    return ndarray_key(v);
  if (g_tensor && PyObject_TypeCheck(v, g_tensor))
    return tensor_key(v);
  return fallback(v);
}

/* -- The grid -------------------------------------------------------------- */

static PyObject *grid3(PyObject *self, PyObject *g) {
  static const long long kLimits[3] = {0x7FFFFFFFLL, 65535, 65535};
  if (!PyTuple_CheckExact(g))
    Py_RETURN_NONE;
  Py_ssize_t n = PyTuple_GET_SIZE(g);
  if (n < 1 || n > 3)
    Py_RETURN_NONE;
  PyObject *dims[3];
  for (Py_ssize_t i = 0; i < 3; ++i) {
    if (i >= n) {
      dims[i] = NULL;
      continue;
    }
    PyObject *d = PyTuple_GET_ITEM(g, i);
    if (!PyLong_CheckExact(d))
      Py_RETURN_NONE;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(d, &overflow);
    if (overflow || v < 1 || v > kLimits[i]) {
      PyErr_Clear();
      Py_RETURN_NONE;
    }
    dims[i] = d;
  }
  PyObject *one = PyLong_FromLong(1);
  if (!one)
    return NULL;
  PyObject *out = PyTuple_Pack(3, dims[0], dims[1] ? dims[1] : one, dims[2] ? dims[2] : one);
  Py_DECREF(one);
  return out;
}

/* -- Packing ---------------------------------------------------------------- */

enum Code { PTR, I1, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, NUM_CODES };
static const char *const kCodeNames[NUM_CODES] = {
    "ptr", "i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "fp32", "fp64"};
static const unsigned kCodeSizes[NUM_CODES] = {8, 1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8};

/* A layout: a bytes object holding this header and |count| Slots. */
typedef struct {
  uint32_t total, count;
} LayoutHeader;
typedef struct {
  uint32_t offset, code;
} Slot;

static PyObject *make_layout(PyObject *self, PyObject *args) {
  PyObject *codes, *offsets;
  Py_ssize_t total;
  if (!PyArg_ParseTuple(args, "OOn:make_layout", &codes, &offsets, &total))
    return NULL;
  codes = PySequence_Fast(codes, "codes must be a sequence");
  if (!codes)
    return NULL;
  offsets = PySequence_Fast(offsets, "offsets must be a sequence");
  if (!offsets) {
    Py_DECREF(codes);
    return NULL;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(codes);
  PyObject *out = NULL;
  if (n != PySequence_Fast_GET_SIZE(offsets) || total < 0 || total > (1 << 20)) {
    PyErr_SetString(PyExc_ValueError, "make_layout: codes and offsets differ in length, "
                                      "or the total is out of range");
    goto done;
  }
  out = PyBytes_FromStringAndSize(NULL, sizeof(LayoutHeader) + n * sizeof(Slot));
  if (!out)
    goto done;
  LayoutHeader *h = (LayoutHeader *)PyBytes_AS_STRING(out);
  Slot *slots = (Slot *)(h + 1);
  h->total = (uint32_t)total;
  h->count = (uint32_t)n;
  Py_ssize_t at = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    const char *name = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(codes, i));
    Py_ssize_t off = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(offsets, i));
    if (!name || (off == -1 && PyErr_Occurred())) {
      Py_CLEAR(out);
      goto done;
    }
    int code = -1;
    for (int c = 0; c < NUM_CODES; ++c)
      if (!strcmp(name, kCodeNames[c]))
        code = c;
    if (code < 0 || off < at || off + (Py_ssize_t)kCodeSizes[code] > total) {
      Py_CLEAR(out); /* a code packed in Python, or a layout struct refuses */
      out = Py_None;
      Py_INCREF(out);
      goto done;
    }
    slots[i].offset = (uint32_t)off;
    slots[i].code = (uint32_t)code;
    at = off + kCodeSizes[code];
  }
done:
  Py_DECREF(codes);
  Py_DECREF(offsets);
  return out;
}

static int pack_int(PyObject *v, long long lo, unsigned long long hi, int is_signed,
                    void *dst, unsigned size) {
  PyObject *i = PyNumber_Index(v);
  if (!i)
    return -1;
  unsigned long long bits;
  int bad = 0;
  if (is_signed) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(i, &overflow);
    if (x == -1 && PyErr_Occurred()) {
      Py_DECREF(i);
      return -1;
    }
    bad = overflow || x < lo || x > (long long)hi;
    bits = (unsigned long long)x;
  } else {
    bits = PyLong_AsUnsignedLongLong(i);
    if (bits == (unsigned long long)-1 && PyErr_Occurred()) {
      PyErr_Clear(); /* negative or past 64 bits */
      bad = 1;
    } else {
      bad = bits > hi;
    }
  }
  Py_DECREF(i);
  if (bad) {
    PyErr_SetString(PyExc_ValueError, "argument out of range");
    return -1;
  }
  switch (size) { /* little-endian hosts: the low bytes first */
  case 1: { uint8_t b = (uint8_t)bits; memcpy(dst, &b, 1); break; }
  case 2: { uint16_t b = (uint16_t)bits; memcpy(dst, &b, 2); break; }
  case 4: { uint32_t b = (uint32_t)bits; memcpy(dst, &b, 4); break; }
  default: memcpy(dst, &bits, 8); break;
  }
  return 0;
}

/* Packs |n| values into |out| (|h->total| bytes, zeroed); -1 with the
 * exception struct would raise. */
static int pack_values(const LayoutHeader *h, PyObject *const *values, Py_ssize_t n,
                       char *out) {
  if ((Py_ssize_t)h->count != n) {
    PyErr_Format(PyExc_TypeError, "the kernel takes %u arguments, not %zd", h->count, n);
    return -1;
  }
  const Slot *slots = (const Slot *)(h + 1);
  memset(out, 0, h->total);
  for (Py_ssize_t i = 0; i < n; ++i) {
    char *dst = out + slots[i].offset;
    PyObject *v = values[i];
    int rc = 0;
    switch (slots[i].code) {
    case PTR: case U64: rc = pack_int(v, 0, UINT64_MAX, 0, dst, 8); break;
    case I8: rc = pack_int(v, INT8_MIN, INT8_MAX, 1, dst, 1); break;
    case I16: rc = pack_int(v, INT16_MIN, INT16_MAX, 1, dst, 2); break;
    case I32: rc = pack_int(v, INT32_MIN, INT32_MAX, 1, dst, 4); break;
    case I64: rc = pack_int(v, INT64_MIN, INT64_MAX, 1, dst, 8); break;
    case U8: rc = pack_int(v, 0, UINT8_MAX, 0, dst, 1); break;
    case U16: rc = pack_int(v, 0, UINT16_MAX, 0, dst, 2); break;
    case U32: rc = pack_int(v, 0, UINT32_MAX, 0, dst, 4); break;
    case I1: {
      int t = PyObject_IsTrue(v);
      if (t < 0)
        return -1;
      *dst = (char)t;
      break;
    }
    case F32: case F64: {
      double d = PyFloat_AsDouble(v);
      if (d == -1.0 && PyErr_Occurred())
        return -1;
      if (slots[i].code == F64)
        memcpy(dst, &d, 8);
      else
        rc = PyFloat_Pack4(d, dst, PY_LITTLE_ENDIAN);
      break;
    }
    }
    if (rc)
      return -1;
  }
  return 0;
}

static const LayoutHeader *layout_of(PyObject *layout) {
  if (!PyBytes_Check(layout) ||
      PyBytes_GET_SIZE(layout) < (Py_ssize_t)sizeof(LayoutHeader)) {
    PyErr_SetString(PyExc_TypeError, "not a layout made by make_layout");
    return NULL;
  }
  return (const LayoutHeader *)PyBytes_AS_STRING(layout);
}

static PyObject *pack(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "pack(layout, values)");
    return NULL;
  }
  const LayoutHeader *h = layout_of(args[0]);
  if (!h)
    return NULL;
  PyObject *values = PySequence_Fast(args[1], "values must be a sequence");
  if (!values)
    return NULL;
  PyObject *out = PyBytes_FromStringAndSize(NULL, h->total);
  if (out && pack_values(h, PySequence_Fast_ITEMS(values),
                         PySequence_Fast_GET_SIZE(values), PyBytes_AS_STRING(out)))
    Py_CLEAR(out);
  Py_DECREF(values);
  return out;
}

/* |function| is tegula_kernel_launch (of the runtime Python loaded): called
 * through a pointer of its own type, as C requires (UBSan's
 * -fsanitize=function reports any other). */
typedef __typeof__(tegula_kernel_launch) *LaunchFn;

static int as_pointer(PyObject *v, void **out) {
  if (v == Py_None) {
    *out = NULL;
    return 0;
  }
  *out = PyLong_AsVoidPtr(v);
  return *out == NULL && PyErr_Occurred() ? -1 : 0;
}

static PyObject *launch(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs < 5) {
    PyErr_SetString(PyExc_TypeError,
                    "launch(function, kernel, layout, stream, config, *values)");
    return NULL;
  }
  void *function, *kernel, *stream, *config;
  if (as_pointer(args[0], &function) || as_pointer(args[1], &kernel) ||
      as_pointer(args[3], &stream) || as_pointer(args[4], &config))
    return NULL;
  const LayoutHeader *h = layout_of(args[2]);
  if (!h)
    return NULL;
  if (!function || !config) {
    PyErr_SetString(PyExc_ValueError, "launch: no function or launch config");
    return NULL;
  }
  char small[512];
  char *packed = h->total <= sizeof(small) ? small : PyMem_Malloc(h->total);
  if (!packed)
    return PyErr_NoMemory();
  if (pack_values(h, args + 5, nargs - 5, packed)) {
    if (packed != small)
      PyMem_Free(packed);
    if (PyErr_ExceptionMatches(PyExc_ValueError) ||
        PyErr_ExceptionMatches(PyExc_TypeError) ||
        PyErr_ExceptionMatches(PyExc_OverflowError)) {
      PyErr_Clear();
      Py_RETURN_NONE; /* the full launch says what does not fit */
    }
    return NULL;
  }
  tegula_error_t *err;
  Py_BEGIN_ALLOW_THREADS
  err = ((LaunchFn)function)((tegula_kernel_t *)kernel, (tegula_stream_t *)stream,
                             (const tegula_launch_config *)config, packed, h->total);
  Py_END_ALLOW_THREADS
  if (packed != small)
    PyMem_Free(packed);
  return PyLong_FromVoidPtr(err);
}

/* -- arg_keys ----------------------------------------------------------------- */

static PyObject *arg_keys(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  PyObject *keys = PyTuple_New(nargs);
  PyObject *vals = keys ? PyTuple_New(nargs) : NULL;
  if (!vals) {
    Py_XDECREF(keys);
    return NULL;
  }
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    PyObject *kv = arg_key(self, args[i]);
    if (!kv || kv == Py_None || !PyTuple_Check(kv) || PyTuple_GET_SIZE(kv) != 2) {
      Py_DECREF(keys);
      Py_DECREF(vals);
      if (kv && kv != Py_None) {
        Py_DECREF(kv);
        PyErr_SetString(PyExc_TypeError, "arg_key gave no (key, value) pair");
        return NULL;
      }
      return kv; /* None, or NULL with the error */
    }
    PyObject *k = PyTuple_GET_ITEM(kv, 0), *v = PyTuple_GET_ITEM(kv, 1);
    Py_INCREF(k);
    Py_INCREF(v);
    PyTuple_SET_ITEM(keys, i, k);
    PyTuple_SET_ITEM(vals, i, v);
    Py_DECREF(kv);
  }
  PyObject *out = PyTuple_Pack(2, keys, vals);
  Py_DECREF(keys);
  Py_DECREF(vals);
  return out;
}

/* -- environment_key --------------------------------------------------------- */

static PyObject *g_env_data;   /* the dict watched */
static PyObject *g_env_keys;   /* the list of names the last answer read */
static PyObject *g_env_ids;    /* {values tuple: id} */
static PyObject *g_env_last;   /* the id answered last */
static Py_ssize_t g_env_nkeys = -1;
static long long g_env_next_id;
static int g_env_dirty = 1;
#if PY_VERSION_HEX >= 0x030C0000
static int g_env_watcher = -1;

static int env_changed(PyDict_WatchEvent event, PyObject *dict, PyObject *key,
                       PyObject *value) {
  g_env_dirty = 1;
  return 0;
}
#else
static uint64_t g_env_version;
#endif

static PyObject *environment_key(PyObject *self, PyObject *const *args,
                                 Py_ssize_t nargs) {
  if (nargs != 2 || !PyDict_CheckExact(args[0]) || !PyList_CheckExact(args[1])) {
    PyErr_SetString(PyExc_TypeError, "environment_key(dict, list of keys)");
    return NULL;
  }
  PyObject *data = args[0], *keys = args[1];
  Py_ssize_t n = PyList_GET_SIZE(keys);
  if (data != g_env_data) {
    Py_XINCREF(data);
    Py_XSETREF(g_env_data, data);
    g_env_dirty = 1;
#if PY_VERSION_HEX >= 0x030C0000
    if (g_env_watcher < 0)
      g_env_watcher = PyDict_AddWatcher(env_changed);
    if (g_env_watcher < 0 || PyDict_Watch(g_env_watcher, data) < 0) {
      PyErr_Clear();
      g_env_watcher = -2; /* no watcher: read the values every time */
    }
#endif
  }
#if PY_VERSION_HEX >= 0x030C0000
  int unchanged = g_env_watcher >= 0 && !g_env_dirty;
#else
  uint64_t version = ((PyDictObject *)data)->ma_version_tag;
  int unchanged = !g_env_dirty && version == g_env_version;
  g_env_version = version;
#endif
  if (unchanged && keys == g_env_keys && n == g_env_nkeys && g_env_last) {
    Py_INCREF(g_env_last);
    return g_env_last;
  }
  PyObject *values = PyTuple_New(n);
  if (!values)
    return NULL;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *v = PyDict_GetItemWithError(data, PyList_GET_ITEM(keys, i));
    if (!v) {
      if (PyErr_Occurred()) {
        Py_DECREF(values);
        return NULL;
      }
      v = Py_None;
    }
    Py_INCREF(v);
    PyTuple_SET_ITEM(values, i, v);
  }
  if (!g_env_ids && !(g_env_ids = PyDict_New())) {
    Py_DECREF(values);
    return NULL;
  }
  /* Ids are never reused: a cleared table only gives known values new ids. */
  PyObject *id = PyDict_GetItemWithError(g_env_ids, values);
  if (id) {
    Py_INCREF(id);
  } else {
    if (PyErr_Occurred() || !(id = PyLong_FromLongLong(g_env_next_id++))) {
      Py_DECREF(values);
      return NULL;
    }
    if (PyDict_GET_SIZE(g_env_ids) >= 256)
      PyDict_Clear(g_env_ids);
    if (PyDict_SetItem(g_env_ids, values, id) < 0) {
      Py_DECREF(id);
      Py_DECREF(values);
      return NULL;
    }
  }
  Py_DECREF(values);
  Py_XSETREF(g_env_last, id);
  Py_INCREF(keys);
  Py_XSETREF(g_env_keys, keys);
  g_env_nkeys = n;
  g_env_dirty = 0;
  Py_INCREF(id);
  return id;
}

/* -- Runner ------------------------------------------------------------------ */

/* The launch of one launcher entry: run(grid, stream, values) finds the
 * launch config of |grid| (configs: {(x, y, z): address}, else
 * config(grid) -> (address, (x, y, z)), which checks the grid and raises
 * for a bad one), the stream handle (|stream|'s _handle; for stream None,
 * PyTorch's current stream through torch = (raw, index, streams, handle):
 * streams.get(raw(index))._handle, else handle()), packs |values| and
 * launches. Returns 0, the error (an int), or None when the full launch
 * must take the call (a value that does not pack, a freed stream). */
typedef struct {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  void *function, *kernel;
  PyObject *layout, *configs, *config, *raw, *index, *streams, *handle;
} Runner;

/* The runner takes part in the cycle collector: its config callable and
 * stream dict lead back to the entry that holds it. */
static int runner_traverse(Runner *r, visitproc visit, void *arg) {
  Py_VISIT(r->layout);
  Py_VISIT(r->configs);
  Py_VISIT(r->config);
  Py_VISIT(r->raw);
  Py_VISIT(r->index);
  Py_VISIT(r->streams);
  Py_VISIT(r->handle);
  return 0;
}

static int runner_clear(Runner *r) {
  Py_CLEAR(r->layout);
  Py_CLEAR(r->configs);
  Py_CLEAR(r->config);
  Py_CLEAR(r->raw);
  Py_CLEAR(r->index);
  Py_CLEAR(r->streams);
  Py_CLEAR(r->handle);
  return 0;
}

static void runner_dealloc(Runner *r) {
  PyObject_GC_UnTrack(r);
  runner_clear(r);
  PyObject_GC_Del(r);
}

/* The config address of |grid|: 0 with an exception on failure. */
static void *runner_config(Runner *r, PyObject *grid) {
  PyObject *g3 = grid3(NULL, grid), *found = NULL;
  if (!g3)
    return NULL;
  if (g3 != Py_None) {
    found = PyDict_GetItemWithError(r->configs, g3); /* borrowed */
    if (!found && PyErr_Occurred()) {
      Py_DECREF(g3);
      return NULL;
    }
  }
  Py_DECREF(g3);
  void *cfg = NULL;
  if (found) {
    cfg = PyLong_AsVoidPtr(found);
  } else {
    PyObject *made = PyObject_CallOneArg(r->config, grid);
    if (!made)
      return NULL;
    if (PyTuple_Check(made) && PyTuple_GET_SIZE(made) == 2)
      cfg = PyLong_AsVoidPtr(PyTuple_GET_ITEM(made, 0));
    else
      PyErr_SetString(PyExc_TypeError, "config(grid) must return (address, grid)");
    Py_DECREF(made);
  }
  if (!cfg && !PyErr_Occurred())
    PyErr_SetString(PyExc_ValueError, "no launch config");
  return cfg;
}

static PyObject *g_str_handle; /* "_handle" */

/* The handle of a tegula.Stream: 0 with *none set when it is freed. */
static int stream_handle(PyObject *stream, void **out, int *none) {
  PyObject *h = PyObject_GetAttr(stream, g_str_handle);
  if (!h)
    return -1;
  *none = h == Py_None;
  int rc = *none ? 0 : as_pointer(h, out);
  Py_DECREF(h);
  return rc;
}

/* run(grid, stream, values) of |r| with the |n| values at |values|. */
static PyObject *runner_launch(Runner *r, PyObject *grid, PyObject *stream_arg,
                               PyObject *const *values, Py_ssize_t n) {
  if (!r->layout || !r->configs || !r->config || !r->handle) {
    PyErr_SetString(PyExc_RuntimeError, "the runner was cleared");
    return NULL;
  }
  void *cfg = runner_config(r, grid);
  if (!cfg)
    return NULL;
  void *stream = NULL;
  int none = 0;
  if (stream_arg != Py_None) {
    if (stream_handle(stream_arg, &stream, &none))
      return NULL;
    if (none)
      Py_RETURN_NONE;
  } else if (r->raw) {
    PyObject *native = PyObject_CallOneArg(r->raw, r->index);
    if (!native)
      return NULL;
    PyObject *s = PyDict_GetItemWithError(r->streams, native); /* borrowed */
    Py_DECREF(native);
    if (!s && PyErr_Occurred())
      return NULL;
    none = 1;
    if (s) {
      Py_INCREF(s); /* borrowed from a dict that Python code may change */
      int rc = stream_handle(s, &stream, &none);
      Py_DECREF(s);
      if (rc)
        return NULL;
    }
    if (none) { /* a stream not wrapped yet, or freed: handle() makes it */
      PyObject *h = PyObject_CallNoArgs(r->handle);
      if (!h)
        return NULL;
      int rc = as_pointer(h, &stream);
      Py_DECREF(h);
      if (rc)
        return NULL;
    }
  } else if (r->handle != Py_None) { /* torch without the raw stream call */
    PyObject *h = PyObject_CallNoArgs(r->handle);
    if (!h)
      return NULL;
    int rc = as_pointer(h, &stream);
    Py_DECREF(h);
    if (rc)
      return NULL;
  }
  const LayoutHeader *h = (const LayoutHeader *)PyBytes_AS_STRING(r->layout);
  char small[512];
  char *packed = h->total <= sizeof(small) ? small : PyMem_Malloc(h->total);
  if (!packed)
    return PyErr_NoMemory();
  if (pack_values(h, values, n, packed)) {
    if (packed != small)
      PyMem_Free(packed);
    if (PyErr_ExceptionMatches(PyExc_ValueError) ||
        PyErr_ExceptionMatches(PyExc_TypeError) ||
        PyErr_ExceptionMatches(PyExc_OverflowError)) {
      PyErr_Clear();
      Py_RETURN_NONE;
    }
    return NULL;
  }
  void *err;
  void *function = r->function, *kernel = r->kernel;
  size_t total = h->total;
  Py_BEGIN_ALLOW_THREADS
  err = ((LaunchFn)function)(kernel, stream, cfg, packed, total);
  Py_END_ALLOW_THREADS
  if (packed != small)
    PyMem_Free(packed);
  return PyLong_FromVoidPtr(err);
}

static PyObject *runner_call(PyObject *self, PyObject *const *args, size_t nargsf,
                             PyObject *kwnames) {
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (nargs != 3 || kwnames || !PyTuple_Check(args[2])) {
    PyErr_SetString(PyExc_TypeError, "run(grid, stream, values)");
    return NULL;
  }
  return runner_launch((Runner *)self, args[0], args[1], &PyTuple_GET_ITEM(args[2], 0),
                       PyTuple_GET_SIZE(args[2]));
}

static PyTypeObject RunnerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tegula._accel.Runner",
    .tp_basicsize = sizeof(Runner),
    .tp_dealloc = (destructor)runner_dealloc,
    .tp_vectorcall_offset = offsetof(Runner, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)runner_traverse,
    .tp_clear = (inquiry)runner_clear,
    .tp_doc = "run(grid, stream, values): one launcher entry's launch",
};

static PyObject *make_runner(PyObject *self, PyObject *args) {
  PyObject *function, *kernel, *layout, *configs, *config, *torch;
  if (!PyArg_ParseTuple(args, "OOSO!OO:runner", &function, &kernel, &layout,
                        &PyDict_Type, &configs, &config, &torch))
    return NULL;
  if (!layout_of(layout))
    return NULL;
  PyObject *raw = NULL, *index = NULL, *streams = NULL, *handle = Py_None;
  if (torch != Py_None) {
    if (!PyArg_ParseTuple(torch, "OOO!O:runner torch", &raw, &index, &PyDict_Type,
                          &streams, &handle))
      return NULL;
    if (raw == Py_None)
      raw = index = streams = NULL; /* handle() each time */
  }
  if (!PyCallable_Check(config) || (handle != Py_None && !PyCallable_Check(handle))) {
    PyErr_SetString(PyExc_TypeError, "runner: config and handle must be callables");
    return NULL;
  }
  void *f, *k;
  if (as_pointer(function, &f) || as_pointer(kernel, &k))
    return NULL;
  if (!f) {
    PyErr_SetString(PyExc_ValueError, "runner: no function");
    return NULL;
  }
  Runner *r = PyObject_GC_New(Runner, &RunnerType);
  if (!r)
    return NULL;
  r->vectorcall = runner_call;
  r->function = f;
  r->kernel = k;
#define KEEP(field, value) Py_XINCREF(value); r->field = value;
  KEEP(layout, layout)
  KEEP(configs, configs)
  KEEP(config, config)
  KEEP(raw, raw)
  KEEP(index, index)
  KEEP(streams, streams)
  KEEP(handle, handle)
#undef KEEP
  PyObject_GC_Track(r);
  return (PyObject *)r;
}

/* -- quick ------------------------------------------------------------------- */

static PyObject *none_ref(void) { /* Py_NewRef(Py_None) before Python 3.10 */
  Py_INCREF(Py_None);
  return Py_None;
}

/* Whether |v| has key part |part| (what arg_key(v)[0] would be), without
 * making the key: 1 with *value set (a new reference: what arg_key(v)[1]
 * would be), 0 when it has another, -1 with an exception. The common kinds
 * are read here; any other goes through arg_key. */
static int same_part(PyObject *v, PyObject *part, PyObject **value) {
  PyTypeObject *t = Py_TYPE(v);
  if (t == &PyLong_Type && PyLong_CheckExact(part)) {
    int code = int_code(v);
    if (code == -2)
      return -1;
    long want = PyLong_AsLong(part);
    if (want == -1 && PyErr_Occurred())
      return -1;
    if (code < 0 || code != want)
      return 0;
    Py_INCREF(v);
    *value = v;
    return 1;
  }
  if ((t == &PyFloat_Type || t == &PyBool_Type) && part == (PyObject *)t) {
    Py_INCREF(v);
    *value = v;
    return 1;
  }
  if (g_tensor && PyTuple_CheckExact(part) && PyTuple_GET_SIZE(part) == 4 &&
      PyTuple_GET_ITEM(part, 0) == g_str_cuda && PyObject_TypeCheck(v, g_tensor) &&
      flag(v, g_is_cuda, 0) == 1) {
    /* A torch CUDA tensor, as tensor_key reads it. */
    PyObject *ptr = PyObject_CallMethodNoArgs(v, g_data_ptr);
    if (!ptr || !PyLong_CheckExact(ptr)) {
      Py_XDECREF(ptr);
      PyErr_Clear();
      goto generic;
    }
    unsigned long long address = PyLong_AsUnsignedLongLong(ptr);
    if (address == (unsigned long long)-1 && PyErr_Occurred()) {
      Py_DECREF(ptr);
      PyErr_Clear();
      goto generic;
    }
    if (((address & 15) ? Py_False : Py_True) != PyTuple_GET_ITEM(part, 3)) {
      Py_DECREF(ptr);
      return 0;
    }
    PyObject *dtype = PyObject_GetAttr(v, g_dtype);
    PyObject *index = dtype ? PyObject_CallMethodNoArgs(v, g_get_device) : NULL;
    if (!index || !PyLong_Check(index)) {
      Py_DECREF(ptr);
      Py_XDECREF(dtype);
      Py_XDECREF(index);
      PyErr_Clear();
      goto generic;
    }
    int same = dtype == PyTuple_GET_ITEM(part, 2)
                   ? 1
                   : PyObject_RichCompareBool(dtype, PyTuple_GET_ITEM(part, 2), Py_EQ);
    if (same == 1)
      same = PyObject_RichCompareBool(index, PyTuple_GET_ITEM(part, 1), Py_EQ);
    Py_DECREF(dtype);
    Py_DECREF(index);
    if (same != 1) {
      Py_DECREF(ptr);
      return same;
    }
    *value = ptr;
    return 1;
  }
generic:;
  PyObject *kv = arg_key(NULL, v);
  if (!kv)
    return -1;
  if (kv == Py_None || !PyTuple_Check(kv) || PyTuple_GET_SIZE(kv) != 2) {
    Py_DECREF(kv);
    return 0;
  }
  int same = PyObject_RichCompareBool(PyTuple_GET_ITEM(kv, 0), part, Py_EQ);
  if (same == 1) {
    *value = PyTuple_GET_ITEM(kv, 1);
    Py_INCREF(*value);
  }
  Py_DECREF(kv);
  return same;
}

/* Whether launch option or constexpr values |a| and |b| give the same key
 * part: the same object, or equal ints or strs (exact types); anything else
 * (floats, whose key is their literal, objects compared by value) only as
 * the same object. 1, 0, or -1 with an exception. */
static int same_raw(PyObject *a, PyObject *b) {
  if (a == b)
    return 1;
  if (Py_TYPE(a) != Py_TYPE(b) || !(PyLong_CheckExact(a) || PyUnicode_CheckExact(a)))
    return 0;
  return PyObject_RichCompareBool(a, b, Py_EQ);
}

/* quick(last, grid, stream, raw, *values): the launch of the last fast
 * launch's entry when this call has its key. |last| is (key, entry, key
 * parts of the arguments, raw, kernel, run) as the launcher keeps it; |raw|
 * holds this call's constexprs, num_warps, num_stages, device, stream and
 * environment key (no compile options). When every item of |raw| is the
 * last call's (same_raw) and every value has its part there, the call
 * launches through |run| (a Runner) and returns what run returns (0, or
 * the error as an int); None when the call must take the launcher's other
 * path (another key, no Runner, a kernel unloaded, a grid that is no tuple,
 * a value that does not pack, a freed stream); an exception from the grid
 * or the stream. */
static PyObject *quick(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs < 4 || !PyTuple_CheckExact(args[0]) || !PyTuple_CheckExact(args[3])) {
    PyErr_SetString(PyExc_TypeError, "quick(last, grid, stream, raw, *values)");
    return NULL;
  }
  PyObject *last = args[0], *grid = args[1], *raw = args[3];
  Py_ssize_t n = nargs - 4;
  if (PyTuple_GET_SIZE(last) != 6 || !PyTuple_CheckExact(grid))
    Py_RETURN_NONE;
  PyObject *parts = PyTuple_GET_ITEM(last, 2), *run = PyTuple_GET_ITEM(last, 5);
  PyObject *was = PyTuple_GET_ITEM(last, 3);
  if (!PyTuple_CheckExact(parts) || PyTuple_GET_SIZE(parts) != n ||
      Py_TYPE(run) != &RunnerType || n > 64 || !PyTuple_CheckExact(was) ||
      PyTuple_GET_SIZE(was) != PyTuple_GET_SIZE(raw))
    Py_RETURN_NONE;
  int same = 1;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(raw); ++i) {
    same = same_raw(PyTuple_GET_ITEM(raw, i), PyTuple_GET_ITEM(was, i));
    if (same != 1) {
      PyErr_Clear();
      Py_RETURN_NONE;
    }
  }
  PyObject *handle = PyObject_GetAttr(PyTuple_GET_ITEM(last, 4), g_str_handle);
  if (!handle)
    return NULL;
  Py_DECREF(handle);
  if (handle == Py_None)
    Py_RETURN_NONE; /* the kernel was unloaded */
  PyObject *values[64];
  Py_ssize_t got = 0;
  PyObject *out = NULL;
  for (; got < n; ++got) {
    same = same_part(args[4 + got], PyTuple_GET_ITEM(parts, got), &values[got]);
    if (same != 1) {
      PyErr_Clear(); /* the launcher's other path reads the value again */
      out = none_ref();
      goto done;
    }
  }
  out = runner_launch((Runner *)run, grid, args[2], values, n);
done:
  for (Py_ssize_t i = 0; i < got; ++i)
    Py_DECREF(values[i]);
  return out;
}

/* -- Setup ------------------------------------------------------------------ */

static PyObject *setup(PyObject *self, PyObject *args) {
  PyObject *fb, *ndarray, *probe;
  unsigned long long probe_address;
  if (!PyArg_ParseTuple(args, "OOOK:setup", &fb, &ndarray, &probe, &probe_address))
    return NULL;
  Py_INCREF(fb);
  Py_XSETREF(g_fallback, fb);
  Py_CLEAR(g_ndarray);
  if (ndarray != Py_None && PyType_Check(ndarray) && Py_TYPE(probe) == (PyTypeObject *)ndarray) {
    NumpyArray *a = (NumpyArray *)probe;
    PyObject *dtype = PyObject_GetAttrString(probe, "dtype");
    if (!dtype)
      return NULL;
    /* The probe is a view one element in: 1-D, not the owner, contiguous. */
    if ((uintptr_t)a->data == probe_address && a->descr == dtype && a->nd == 1 &&
        a->base != NULL && (a->flags & NPY_C_CONTIGUOUS)) {
      Py_INCREF(ndarray);
      g_ndarray = (PyTypeObject *)ndarray;
    }
    Py_DECREF(dtype);
  }
  return PyBool_FromLong(g_ndarray != NULL);
}

static PyObject *set_tensor_type(PyObject *self, PyObject *t) {
  if (!PyType_Check(t)) {
    PyErr_SetString(PyExc_TypeError, "set_tensor_type: not a type");
    return NULL;
  }
  Py_INCREF(t);
  Py_XSETREF(g_tensor, (PyTypeObject *)t);
  Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"arg_key", arg_key, METH_O, "(key part, value to pack) of an argument, or None"},
    {"grid3", grid3, METH_O, "(x, y, z) of a grid of 1 to 3 ints in range, or None"},
    {"make_layout", make_layout, METH_VARARGS, "make_layout(codes, offsets, total)"},
    {"pack", (PyCFunction)(void (*)(void))pack, METH_FASTCALL, "pack(layout, values)"},
    {"launch", (PyCFunction)(void (*)(void))launch, METH_FASTCALL,
     "launch(function, kernel, layout, stream, config, *values)"},
    {"arg_keys", (PyCFunction)(void (*)(void))arg_keys, METH_FASTCALL,
     "((key parts), (values)) of arg_key for each argument, or None"},
    {"environment_key", (PyCFunction)(void (*)(void))environment_key, METH_FASTCALL,
     "environment_key(data, keys): a small int naming the variables' values"},
    {"quick", (PyCFunction)(void (*)(void))quick, METH_FASTCALL,
     "quick(last, grid, stream, raw, *values): the last entry's launch, or None"},
    {"runner", make_runner, METH_VARARGS,
     "runner(function, kernel, layout, configs, config, torch)"},
    {"setup", setup, METH_VARARGS, "setup(fallback, ndarray, probe, probe_address)"},
    {"set_tensor_type", set_tensor_type, METH_O, "set_tensor_type(torch.Tensor)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_accel",
                                    "The Tegula launcher's per-call steps in C", -1,
                                    methods};

PyMODINIT_FUNC PyInit__accel(void) {
#define INTERN(var, text)                                                       \
  if (!(var = PyUnicode_InternFromString(text)))                                \
    return NULL;
  INTERN(g_str_cpu, "cpu");
  INTERN(g_str_cuda, "cuda");
  INTERN(g_is_cuda, "is_cuda");
  INTERN(g_is_cpu, "is_cpu");
  INTERN(g_get_device, "get_device");
  INTERN(g_data_ptr, "data_ptr");
  INTERN(g_dtype, "dtype");
  INTERN(g_is_contiguous, "is_contiguous");
  INTERN(g_str_handle, "_handle");
#undef INTERN
  if (PyType_Ready(&RunnerType) < 0)
    return NULL;
  return PyModule_Create(&module);
}
