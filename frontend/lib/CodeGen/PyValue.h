//===- PyValue.h - values during kernel compilation -------------*- C++ -*-===//
//
// What a Python name or expression denotes while a kernel compiles: a
// constexpr (number, string, None, dtype, tuple, function, module), or a
// tensor computed by the kernel. Internal to the code generator.
//
//===----------------------------------------------------------------------===//
#ifndef TEGULA_FRONTEND_CODEGEN_PYVALUE_H
#define TEGULA_FRONTEND_CODEGEN_PYVALUE_H

#include "tegula/Frontend/AST.h"
#include "tegula/Frontend/Semantic.h"

#include <memory>
#include <string>
#include <vector>

namespace tegula::frontend {

struct PyValue;
using PyTuple = std::vector<PyValue>;

/// A value of the kernel language at compile time.
struct PyValue {
  enum Kind {
    Undefined, ///< no value (unbound name, function without return)
    None,
    Number,    ///< a constexpr int, float or bool
    String,
    DTypeObj,  ///< tl.float16, x.dtype, ...
    Tensor,    ///< a value computed by the kernel
    Tuple,     ///< a tuple or list of values
    Function,  ///< a @jit function
    Builtin,   ///< a tl.* builtin or a Python builtin (name)
    Namespace, ///< a module such as `tl`, `tl.math`, `triton`
    Method,    ///< a bound method: self.name
    Slice,     ///< `:` in a subscript
    Marker,    ///< tl.constexpr and other names used only as annotations
    TensorDesc, ///< tl.make_tensor_descriptor: items are the base pointer,
                ///< the shape and the strides; blockShape; str the padding
    UserModule, ///< a module of the user's package (module; str its name)
  };

  Kind kind = Undefined;
  PyNum num;
  std::string str;              ///< String; Builtin/Namespace/Method/Marker name
  DType dtype;                  ///< DTypeObj
  TValue tensor;                ///< Tensor
  std::shared_ptr<PyTuple> items;  ///< Tuple
  std::shared_ptr<PyValue> self;   ///< Method
  std::vector<int64_t> blockShape;       ///< TensorDesc
  const FunctionDef *function = nullptr; ///< Function
  Module *module = nullptr; ///< Function: where it is defined; UserModule

  static PyValue none() { PyValue v; v.kind = None; return v; }
  static PyValue number(PyNum n) { PyValue v; v.kind = Number; v.num = n; return v; }
  static PyValue ofInt(__int128 i) { return number(PyNum::ofInt(i)); }
  static PyValue ofBool(bool b) { return number(PyNum::ofBool(b)); }
  static PyValue ofFloat(double f) { return number(PyNum::ofFloat(f)); }
  static PyValue string(std::string s) { PyValue v; v.kind = String; v.str = std::move(s); return v; }
  static PyValue ofDType(DType d) { PyValue v; v.kind = DTypeObj; v.dtype = std::move(d); return v; }
  static PyValue ofTensor(TValue t) { PyValue v; v.kind = Tensor; v.tensor = std::move(t); return v; }
  static PyValue tuple(PyTuple t) {
    PyValue v; v.kind = Tuple; v.items = std::make_shared<PyTuple>(std::move(t)); return v;
  }
  static PyValue builtin(std::string name) { PyValue v; v.kind = Builtin; v.str = std::move(name); return v; }
  static PyValue ns(std::string name) { PyValue v; v.kind = Namespace; v.str = std::move(name); return v; }
  static PyValue marker(std::string name) { PyValue v; v.kind = Marker; v.str = std::move(name); return v; }
  static PyValue method(PyValue self, std::string name) {
    PyValue v; v.kind = Method; v.self = std::make_shared<PyValue>(std::move(self));
    v.str = std::move(name); return v;
  }
  static PyValue userModule(Module *m, std::string name) {
    PyValue v; v.kind = UserModule; v.module = m; v.str = std::move(name); return v;
  }
  static PyValue func(const FunctionDef *f, Module *m) {
    PyValue v; v.kind = Function; v.function = f; v.module = m; return v;
  }

  bool isConstexpr() const {
    return kind != Tensor && kind != Undefined && kind != TensorDesc;
  }
  bool isTensor() const { return kind == Tensor; }
  bool isNumber() const { return kind == Number; }
  bool isInt() const { return kind == Number && num.kind != PyNum::Float; }
  const PyTuple &tupleItems() const { return *items; }
};

} // namespace tegula::frontend

#endif // TEGULA_FRONTEND_CODEGEN_PYVALUE_H
