// oneflow_lite._C: the Python extension, on the C API (oneflow_lite/c_api.h) alone. Tensors are
// handles that own an oflite_tensor; anything else with __dlpack__ (or a raw "dltensor" capsule)
// is taken over without a copy; every status becomes the Python exception of its kind.
// docs/PYTHON.md describes the API this builds and the rules it keeps.
#include <dlpack/dlpack.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "oneflow_lite/c_api.h"

namespace nb = nanobind;

namespace {

// ---- Errors ----

PyObject* ExceptionOf(oflite_error_kind kind) {
  switch (kind) {
    case OFLITE_VALUE_ERROR:
      return PyExc_ValueError;
    case OFLITE_TYPE_ERROR:
      return PyExc_TypeError;
    case OFLITE_INDEX_ERROR:
      return PyExc_IndexError;
    case OFLITE_NOT_IMPLEMENTED:
      return PyExc_NotImplementedError;
    case OFLITE_OUT_OF_MEMORY:
      return PyExc_MemoryError;
    default:  // device and runtime errors
      return PyExc_RuntimeError;
  }
}

[[noreturn]] void Throw(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw nb::python_error();
}

// A NUL-terminated string for the C API: ValueError where a NUL inside would cut it short,
// naming what() (the argument), which builds its text only then.
template <typename What>
const char* CText(std::string_view text, const What& what) {
  const size_t nul = text.find('\0');
  if (nul != std::string_view::npos) {
    Throw(PyExc_ValueError,
          what() + " holds an embedded null character at offset " + std::to_string(nul));
  }
  return text.data();
}
const char* CText(const std::string& text, const char* what) {
  return CText(std::string_view(text), [what] { return std::string(what); });
}

// Raises the status (freed) as its kind's exception, its message after `prefix` when given.
[[noreturn]] void Raise(oflite_status* status, const char* prefix = nullptr) {
  PyObject* type = ExceptionOf(oflite_status_kind(status));
  std::string message = prefix != nullptr ? std::string(prefix) + ": " : std::string();
  message += oflite_status_message(status);
  oflite_status_free(status);
  Throw(type, message);
}

inline void Check(oflite_status* status) {
  if (status != nullptr) {
    Raise(status);
  }
}

std::string TypeName(nb::handle obj) { return Py_TYPE(obj.ptr())->tp_name; }

// ---- Tensor ----

const char* DTypeName(oflite_dtype dtype) {
  switch (dtype) {
    case OFLITE_FLOAT32:
      return "float32";
    case OFLITE_FLOAT64:
      return "float64";
    case OFLITE_FLOAT16:
      return "float16";
    case OFLITE_BFLOAT16:
      return "bfloat16";
    case OFLITE_INT8:
      return "int8";
    case OFLITE_UINT8:
      return "uint8";
    case OFLITE_INT32:
      return "int32";
    case OFLITE_INT64:
      return "int64";
    case OFLITE_BOOL:
      return "bool";
  }
  return "invalid";
}

int DTypeFromName(const std::string& name) {
  for (int d = OFLITE_FLOAT32; d <= OFLITE_BOOL; ++d) {
    if (name == DTypeName(static_cast<oflite_dtype>(d))) {
      return d;
    }
  }
  return 0;
}

// "cpu", "cuda:1": into a buffer of the caller's, no heap.
struct DeviceName {
  char text[24];
  DeviceName(int type, int index) {
    if (type == OFLITE_DEVICE_CUDA) {
      std::snprintf(text, sizeof(text), "cuda:%d", index);
    } else {
      std::snprintf(text, sizeof(text), "cpu");
    }
  }
};

// An ofl.Tensor: owns one oflite_tensor handle.
class Tensor {
 public:
  explicit Tensor(oflite_tensor* handle) : handle_(handle) {}
  Tensor(Tensor&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  Tensor& operator=(Tensor&&) = delete;
  ~Tensor() { oflite_tensor_free(handle_); }

  const oflite_tensor* get() const { return handle_; }

  nb::tuple Shape() const {
    const int ndim = oflite_tensor_ndim(handle_);
    nb::object dims = nb::steal(PyTuple_New(ndim));
    for (int i = 0; i < ndim; ++i) {
      PyTuple_SET_ITEM(dims.ptr(), i, PyLong_FromLongLong(oflite_tensor_dim(handle_, i)));
    }
    return nb::borrow<nb::tuple>(dims);
  }
  int NDim() const { return oflite_tensor_ndim(handle_); }
  const char* DType() const { return DTypeName(oflite_tensor_dtype(handle_)); }
  int DeviceType() const { return oflite_tensor_device_type(handle_); }
  int DeviceIndex() const { return oflite_tensor_device_index(handle_); }
  std::string Device() const { return DeviceName(DeviceType(), DeviceIndex()).text; }
  uintptr_t DataPtr() const { return reinterpret_cast<uintptr_t>(oflite_tensor_data(handle_)); }

  nb::tuple DLPackDevice() const {
    return nb::make_tuple(DeviceType() == OFLITE_DEVICE_CUDA ? int{kDLCUDA} : int{kDLCPU},
                          DeviceType() == OFLITE_DEVICE_CUDA ? DeviceIndex() : 0);
  }

 private:
  oflite_tensor* handle_;
};

nb::object Wrap(oflite_tensor* handle) { return nb::cast(Tensor(handle)); }

// The destructor of the capsules ofl.Tensor.__dlpack__ makes: frees the DLPack tensor only when
// no consumer took it (a consumer renames the capsule "used_dltensor" and calls the deleter).
void DeleteUnconsumed(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (managed != nullptr && managed->deleter != nullptr) {
      managed->deleter(managed);
    }
  }
}

// __dlpack__(stream=None, max_version=None, dl_device=None, copy=None): a "dltensor" capsule
// lending the tensor's memory. oflite's pending work on a CUDA tensor is finished first, so the
// consumer's stream may read at once (stream=-1 asks for no synchronization).
nb::object ExportDLPack(const Tensor& self, nb::handle stream, nb::handle /*max_version*/,
                        nb::handle dl_device, nb::handle copy) {
  if (!copy.is_none() && PyObject_IsTrue(copy.ptr()) == 1) {
    Throw(PyExc_BufferError,
          "ofl.Tensor.__dlpack__: copy=True is not supported (oflite lends "
          "its memory; copy the consumer's array instead)");
  }
  if (!dl_device.is_none() && !self.DLPackDevice().equal(nb::borrow<nb::object>(dl_device))) {
    Throw(PyExc_BufferError, "ofl.Tensor.__dlpack__: the tensor is on " +
                                 nb::cast<std::string>(nb::str(self.DLPackDevice())) +
                                 ", dl_device " + nb::cast<std::string>(nb::str(dl_device)) +
                                 " was asked for (move it with .to() first)");
  }
  bool no_sync = false;
  if (!stream.is_none() && PyLong_Check(stream.ptr())) {
    int overflow = 0;  // a stream handle past long long is no -1: synchronize
    no_sync = PyLong_AsLongLongAndOverflow(stream.ptr(), &overflow) == -1 && overflow == 0;
    PyErr_Clear();
  }
  if (self.DeviceType() == OFLITE_DEVICE_CUDA && !no_sync) {
    oflite_status* status = nullptr;
    {
      nb::gil_scoped_release release;  // other Python threads run while the device finishes
      status = oflite_device_synchronize(DeviceName(self.DeviceType(), self.DeviceIndex()).text);
    }
    Check(status);
  }
  DLManagedTensor* managed = nullptr;
  Check(oflite_tensor_to_dlpack(self.get(), &managed));
  PyObject* capsule = PyCapsule_New(managed, "dltensor", DeleteUnconsumed);
  if (capsule == nullptr) {
    managed->deleter(managed);
    throw nb::python_error();
  }
  return nb::steal(capsule);
}

// ---- Inputs: ofl.Tensor as is, anything else through DLPack ----

// Names that are looked up per call, made once.
struct Names {
  nb::object dlpack = nb::steal(PyUnicode_InternFromString("__dlpack__"));
  nb::object dlpack_device = nb::steal(PyUnicode_InternFromString("__dlpack_device__"));
};
Names* names = nullptr;

// Takes the DLPack tensor out of a "dltensor" capsule and marks the capsule used.
oflite_tensor* TakeCapsule(nb::handle capsule, const std::string& what) {
  PyObject* c = capsule.ptr();
  if (PyCapsule_IsValid(c, "dltensor")) {
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, "dltensor"));
    oflite_tensor* t = nullptr;
    oflite_status* status = oflite_tensor_from_dlpack(managed, &t);
    if (status != nullptr) {  // the capsule keeps it, and its destructor frees it
      Raise(status, what.c_str());
    }
    if (PyCapsule_SetName(c, "used_dltensor") != 0) {
      oflite_tensor_free(t);
      throw nb::python_error();
    }
    return t;
  }
  if (PyCapsule_IsValid(c, "used_dltensor")) {
    Throw(PyExc_ValueError,
          what + ": the DLPack capsule was already consumed (a capsule can be taken once)");
  }
  if (PyCapsule_IsValid(c, "dltensor_versioned")) {
    Throw(PyExc_TypeError, what +
                               ": versioned DLPack capsules (\"dltensor_versioned\") are not "
                               "supported; pass the array itself, or a \"dltensor\" capsule");
  }
  const char* name = PyCapsule_GetName(c);
  PyErr_Clear();
  Throw(PyExc_TypeError, what +
                             ": expected a DLPack capsule named \"dltensor\", got a capsule "
                             "named \"" +
                             (name != nullptr ? name : "(null)") + "\"");
}

// A DLPack exporter (NumPy, torch, CuPy, JAX, ...) as a new handle. CUDA data is asked for on
// the stream oflite's work runs on, so the producer orders its pending work before oflite's.
oflite_tensor* TakeExporter(nb::handle obj, const std::string& what) {
  nb::object device = obj.attr(names->dlpack_device)();
  if (!PyTuple_Check(device.ptr()) || PyTuple_GET_SIZE(device.ptr()) != 2) {
    Throw(PyExc_TypeError, what + ": __dlpack_device__() of " + TypeName(obj) + " returned " +
                               nb::cast<std::string>(nb::repr(device)) +
                               ", expected (device_type, device_id)");
  }
  const int type = nb::cast<int>(device[0]);
  const int index = nb::cast<int>(device[1]);
  nb::object capsule;
  if (type == kDLCPU || type == kDLCUDAHost) {
    capsule = obj.attr(names->dlpack)();
  } else if (type == kDLCUDA) {
    if (index >= oflite_device_count(OFLITE_DEVICE_CUDA)) {
      Throw(PyExc_RuntimeError, what + ": the " + TypeName(obj) +
                                    " is on cuda:" + std::to_string(index) +
                                    ", a device this oflite does not have (" +
                                    std::to_string(oflite_device_count(OFLITE_DEVICE_CUDA)) +
                                    " CUDA devices; it is built without CUDA or sees no GPU)");
    }
    void* native = nullptr;
    Check(oflite_device_stream(DeviceName(OFLITE_DEVICE_CUDA, index).text, &native));
    // DLPack's stream numbers: 1 is the legacy default stream, 0 is not allowed.
    const intptr_t stream = native == nullptr ? 1 : reinterpret_cast<intptr_t>(native);
    capsule = obj.attr(names->dlpack)(nb::arg("stream") = stream);
  } else {
    Throw(PyExc_RuntimeError, what + ": the " + TypeName(obj) + " is on DLPack device type " +
                                  std::to_string(type) +
                                  ", one oflite does not have (it takes CPU, CUDA host and "
                                  "CUDA memory)");
  }
  return TakeCapsule(capsule, what);
}

// An argument as a tensor handle: an ofl.Tensor's own, or a new one in `keep` (which frees it).
const oflite_tensor* AsTensor(nb::handle obj, std::vector<Tensor>* keep, const char* call,
                              const char* arg) {
  if (nb::isinstance<Tensor>(obj)) {
    return nb::inst_ptr<Tensor>(obj)->get();
  }
  const std::string what = std::string(call) + ": argument " + arg;
  oflite_tensor* handle = nullptr;
  if (PyCapsule_CheckExact(obj.ptr())) {
    handle = TakeCapsule(obj, what);
  } else if (PyObject_HasAttr(obj.ptr(), names->dlpack.ptr()) &&
             PyObject_HasAttr(obj.ptr(), names->dlpack_device.ptr())) {
    handle = TakeExporter(obj, what);
  } else {
    Throw(PyExc_TypeError, what +
                               ": expected an ofl.Tensor or an array with __dlpack__ (NumPy, "
                               "torch, CuPy, JAX, ...), got " +
                               TypeName(obj));
  }
  keep->emplace_back(handle);
  return handle;
}

// ---- Ops ----

const char* AttrTypeName(oflite_attr_type type) {
  switch (type) {
    case OFLITE_ATTR_BOOL:
      return "bool";
    case OFLITE_ATTR_INT64:
      return "int";
    case OFLITE_ATTR_FLOAT:
    case OFLITE_ATTR_DOUBLE:
      return "float";
    case OFLITE_ATTR_STRING:
      return "str";
    case OFLITE_ATTR_SHAPE:
      return "shape";
    case OFLITE_ATTR_DTYPE:
      return "dtype";
    case OFLITE_ATTR_INTS:
      return "list[int]";
    case OFLITE_ATTR_FLOATS:
      return "list[float]";
  }
  return "unknown";
}

// Owns an oflite_attrs.
struct OwnedAttrs {
  oflite_attrs* handle = nullptr;
  ~OwnedAttrs() { oflite_attrs_free(handle); }
};

// A dtype given as "float16", numpy.float16, numpy.dtype("float16") or torch.float16.
int DTypeOf(nb::handle value) {
  std::string name;
  if (PyUnicode_Check(value.ptr())) {
    name = nb::cast<std::string>(value);
  } else if (PyObject_HasAttrString(value.ptr(), "__name__")) {  // numpy.float16
    name = nb::cast<std::string>(value.attr("__name__"));
  } else if (PyObject_HasAttrString(value.ptr(), "name")) {  // numpy.dtype
    name = nb::cast<std::string>(nb::str(value.attr("name")));
  } else {
    name = nb::cast<std::string>(nb::str(value));  // torch.float16
    if (name.rfind("torch.", 0) == 0) {
      name = name.substr(6);
    }
  }
  return DTypeFromName(name);
}

// An integer (anything with __index__) as int64; OverflowError past its range.
int64_t Int64Of(nb::handle value) {
  nb::object index = nb::steal(PyNumber_Index(value.ptr()));
  if (!index.is_valid()) {
    throw nb::python_error();
  }
  const long long v = PyLong_AsLongLong(index.ptr());
  if (v == -1 && PyErr_Occurred()) {
    throw nb::python_error();
  }
  return v;
}

std::vector<int64_t> IntsOf(nb::handle value, bool* ok) {
  std::vector<int64_t> ints;
  *ok = PyList_Check(value.ptr()) || PyTuple_Check(value.ptr());
  if (!*ok) {
    return ints;
  }
  for (nb::handle item : nb::borrow<nb::sequence>(value)) {
    if (PyBool_Check(item.ptr()) || !PyIndex_Check(item.ptr())) {
      *ok = false;
      return ints;
    }
    ints.push_back(Int64Of(item));
  }
  return ints;
}

// A str attribute's UTF-8 text: its encoding error as Python raised it, and ValueError for a NUL
// inside.
const char* Utf8Of(PyObject* v, const std::string& op, const char* name) {
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(v, &size);
  if (text == nullptr) {
    throw nb::python_error();
  }
  return CText(std::string_view(text, static_cast<size_t>(size)),
               [&] { return op + ": attribute '" + name + "'"; });
}

// Sets attribute `name` of declared `type` from a Python value; TypeError naming the op, the
// attribute, what it takes and what came.
void SetAttr(oflite_attrs* attrs, const std::string& op, const char* name, oflite_attr_type type,
             nb::handle value) {
  PyObject* v = value.ptr();
  oflite_status* status = nullptr;
  bool ok = true;
  switch (type) {
    case OFLITE_ATTR_BOOL:
      ok = PyBool_Check(v);
      if (ok) status = oflite_attrs_set_bool(attrs, name, v == Py_True);
      break;
    case OFLITE_ATTR_INT64:
      ok = !PyBool_Check(v) && PyIndex_Check(v);
      if (ok) status = oflite_attrs_set_int(attrs, name, Int64Of(value));
      break;
    case OFLITE_ATTR_FLOAT:
    case OFLITE_ATTR_DOUBLE:
      if (PyFloat_Check(v)) {
        status = oflite_attrs_set_double(attrs, name, PyFloat_AS_DOUBLE(v));
      } else if (!PyBool_Check(v) && PyIndex_Check(v)) {  // converted exactly by the op
        status = oflite_attrs_set_int(attrs, name, Int64Of(value));
      } else if (!PyBool_Check(v) && PyNumber_Check(v) && !PyComplex_Check(v)) {
        const double d = PyFloat_AsDouble(v);
        if (d == -1.0 && PyErr_Occurred()) {
          throw nb::python_error();
        }
        status = oflite_attrs_set_double(attrs, name, d);
      } else {
        ok = false;
      }
      break;
    case OFLITE_ATTR_STRING:
      ok = PyUnicode_Check(v);
      if (ok) status = oflite_attrs_set_string(attrs, name, Utf8Of(v, op, name));
      break;
    case OFLITE_ATTR_DTYPE: {
      const int dtype = DTypeOf(value);
      ok = dtype != 0;
      if (ok) status = oflite_attrs_set_dtype(attrs, name, dtype);
      break;
    }
    case OFLITE_ATTR_SHAPE:
    case OFLITE_ATTR_INTS: {
      const std::vector<int64_t> ints = IntsOf(value, &ok);
      if (ok) {
        status = type == OFLITE_ATTR_INTS
                     ? oflite_attrs_set_ints(attrs, name, ints.data(), ints.size())
                     : oflite_attrs_set_shape(attrs, name, ints.data(), ints.size());
      }
      break;
    }
    case OFLITE_ATTR_FLOATS: {
      ok = PyList_Check(v) || PyTuple_Check(v);
      std::vector<float> floats;
      for (size_t i = 0; ok && i < nb::len(value); ++i) {
        nb::handle item = value[i];
        ok = !PyBool_Check(item.ptr()) && PyNumber_Check(item.ptr());
        const double d = ok ? PyFloat_AsDouble(item.ptr()) : 0.0;
        if (d == -1.0 && PyErr_Occurred()) {
          throw nb::python_error();
        }
        floats.push_back(static_cast<float>(d));
      }
      if (ok) status = oflite_attrs_set_floats(attrs, name, floats.data(), floats.size());
      break;
    }
  }
  if (!ok) {
    Throw(PyExc_TypeError,
          op + ": attribute '" + name + "' takes " + AttrTypeName(type) +
              (type == OFLITE_ATTR_DTYPE ? " (a dtype name such as \"float32\")" : "") + ", got " +
              nb::cast<std::string>(nb::repr(value)) + " (" + TypeName(value) + ")");
  }
  if (status != nullptr) {
    Raise(status, op.c_str());
  }
}

// ofl.ops.<name>: a registered op looked up once. Calling it takes the inputs positionally, then
// the attributes positionally in declaration order or by keyword.
// ofl.stream(...)'s scope: while entered, this thread's calls on the device run on the caller's
// queue (oflite_stream_scope_begin).
class StreamScope {
 public:
  StreamScope(std::string device, uintptr_t queue) : device_(std::move(device)), queue_(queue) {}
  StreamScope(const StreamScope&) = delete;
  StreamScope& operator=(const StreamScope&) = delete;
  ~StreamScope() { oflite_stream_scope_end(scope_); }

  StreamScope& Enter() {
    if (scope_ != nullptr) {
      Throw(PyExc_RuntimeError, "ofl.stream: this scope is entered already");
    }
    Check(oflite_stream_scope_begin(CText(device_, "ofl.stream: device"),
                                    reinterpret_cast<void*>(queue_), &scope_));
    return *this;
  }
  void Exit(nb::args) {
    oflite_stream_scope_end(scope_);
    scope_ = nullptr;
  }

 private:
  std::string device_;
  uintptr_t queue_;
  oflite_stream_scope* scope_ = nullptr;
};

nb::dict AllocatorStats(const std::string& device) {
  oflite_allocator_stats stats{};
  Check(oflite_allocator_stats_get(CText(device, "allocator_stats: device"), &stats));
  nb::dict out;
  out["allocated_bytes"] = stats.allocated_bytes;
  out["peak_allocated_bytes"] = stats.peak_allocated_bytes;
  out["reserved_bytes"] = stats.reserved_bytes;
  out["allocation_count"] = stats.allocation_count;
  out["cache_hit_count"] = stats.cache_hit_count;
  out["device_malloc_count"] = stats.device_malloc_count;
  out["device_free_count"] = stats.device_free_count;
  return out;
}

class Op {
 public:
  explicit Op(const std::string& name) {
    Check(oflite_op_find(CText(name, "ofl.Op: name"), &handle_));
    name_ = oflite_op_name(handle_);
    for (size_t i = 0; i < oflite_op_num_inputs(handle_); ++i) {
      inputs_.push_back(oflite_op_input_name(handle_, i));
    }
    for (size_t i = 0; i < oflite_op_num_attrs(handle_); ++i) {
      attrs_.push_back({oflite_op_attr_name(handle_, i), oflite_op_attr_type(handle_, i),
                        oflite_op_attr_has_default(handle_, i) != 0});
    }
    num_outputs_ = oflite_op_num_outputs(handle_);
  }
  Op(const Op&) = delete;
  Op& operator=(const Op&) = delete;
  ~Op() { oflite_op_free(handle_); }

  const std::string& name() const { return name_; }
  std::string Signature() const { return oflite_op_signature(handle_); }
  const std::vector<std::string>& inputs() const { return inputs_; }
  nb::list AttrList() const {
    nb::list list;
    for (const AttrInfo& a : attrs_) {
      list.append(nb::make_tuple(a.name, AttrTypeName(a.type), a.has_default));
    }
    return list;
  }

  nb::object Call(nb::args args, nb::kwargs kwargs) const {
    const size_t n = inputs_.size();
    if (args.size() < n) {
      Throw(PyExc_TypeError, name_ + "() takes " + std::to_string(n) + " tensor inputs (" +
                                 Join(inputs_) + "), got " + std::to_string(args.size()) +
                                 " positional arguments");
    }
    if (args.size() > n + attrs_.size()) {
      Throw(PyExc_TypeError, name_ + "() takes " + std::to_string(n) + " inputs and " +
                                 std::to_string(attrs_.size()) + " attributes, got " +
                                 std::to_string(args.size()) + " positional arguments");
    }
    constexpr size_t kInline = 8;
    const oflite_tensor* inline_inputs[kInline];
    std::vector<const oflite_tensor*> many;
    const oflite_tensor** inputs = inline_inputs;
    if (n > kInline) {
      many.resize(n);
      inputs = many.data();
    }
    std::vector<Tensor> keep;  // handles made from DLPack inputs (no heap when none)
    for (size_t i = 0; i < n; ++i) {
      inputs[i] = AsTensor(args[i], &keep, name_.c_str(), inputs_[i].c_str());
    }
    OwnedAttrs attrs;
    if (args.size() > n || kwargs.size() > 0) {
      attrs.handle = oflite_attrs_new();
      if (attrs.handle == nullptr) {
        Throw(PyExc_MemoryError, name_ + ": out of host memory for its attributes");
      }
      for (size_t i = n; i < args.size(); ++i) {
        const AttrInfo& a = attrs_[i - n];
        SetAttr(attrs.handle, name_, a.name.c_str(), a.type, args[i]);
      }
      for (auto [key, value] : kwargs) {
        const char* key_text = PyUnicode_AsUTF8(key.ptr());
        if (key_text == nullptr) {
          throw nb::python_error();
        }
        const AttrInfo* a = FindAttr(key_text);
        if (a == nullptr) {
          Throw(PyExc_TypeError, name_ + "() got an unexpected keyword argument '" + key_text +
                                     "' (attributes: " + AttrNames() + ")");
        }
        if (static_cast<size_t>(a - attrs_.data()) < args.size() - n) {
          Throw(PyExc_TypeError, name_ + "() got multiple values for argument '" + key_text + "'");
        }
        SetAttr(attrs.handle, name_, key_text, a->type, value);
      }
    }
    constexpr size_t kMaxOutputs = 8;
    oflite_tensor* outputs[kMaxOutputs] = {};
    size_t count = 0;
    oflite_status* status = nullptr;
    {
      nb::gil_scoped_release release;
      status = oflite_op_call(handle_, inputs, n, attrs.handle, outputs, kMaxOutputs, &count);
    }
    Check(status);
    if (count == 1) {
      return Wrap(outputs[0]);
    }
    nb::object result = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(count)));
    for (size_t i = 0; i < count; ++i) {
      nb::object t = Wrap(outputs[i]);
      PyTuple_SET_ITEM(result.ptr(), i, t.release().ptr());
    }
    return result;
  }

 private:
  struct AttrInfo {
    std::string name;
    oflite_attr_type type;
    bool has_default;
  };
  const AttrInfo* FindAttr(const char* key) const {
    for (const AttrInfo& a : attrs_) {
      if (a.name == key) {
        return &a;
      }
    }
    return nullptr;
  }
  static std::string Join(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& n : names) {
      text += (text.empty() ? "" : ", ") + n;
    }
    return text;
  }
  std::string AttrNames() const {
    std::vector<std::string> names;
    for (const AttrInfo& a : attrs_) {
      names.push_back(a.name);
    }
    return names.empty() ? std::string("none") : Join(names);
  }

  oflite_op* handle_ = nullptr;
  std::string name_;
  std::vector<std::string> inputs_;
  std::vector<AttrInfo> attrs_;
  size_t num_outputs_ = 0;
};

// softmax / log_softmax over any dim.
template <oflite_status* (*Fn)(const oflite_tensor*, int64_t, oflite_tensor**)>
nb::object OverDim(nb::handle x, int64_t dim, const char* call) {
  std::vector<Tensor> keep;
  const oflite_tensor* input = AsTensor(x, &keep, call, "x");
  oflite_tensor* out = nullptr;
  oflite_status* status = nullptr;
  {
    nb::gil_scoped_release release;
    status = Fn(input, dim, &out);
  }
  Check(status);
  return Wrap(out);
}

std::vector<std::string> ListOps() {
  size_t length = 0;
  Check(oflite_list_ops(nullptr, 0, &length));
  std::string text(length + 1, '\0');
  Check(oflite_list_ops(text.data(), text.size(), &length));
  text.resize(length);
  std::vector<std::string> ops;
  size_t start = 0;
  for (size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
    ops.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return ops;
}

// A tensor copied from a C-contiguous buffer (ofl.tensor does the NumPy side).
nb::object FromBuffer(nb::handle obj, const std::string& dtype, const std::string& device) {
  const int code = DTypeFromName(dtype);
  if (code == 0) {
    Throw(PyExc_TypeError, "ofl.tensor: dtype " + dtype + " is not one oflite has");
  }
  Py_buffer view;
  if (PyObject_GetBuffer(obj.ptr(), &view, PyBUF_C_CONTIGUOUS | PyBUF_ND) != 0) {
    throw nb::python_error();
  }
  std::vector<int64_t> shape(view.shape, view.shape + view.ndim);
  oflite_tensor* t = nullptr;
  oflite_status* status =
      oflite_tensor_from_host(view.buf, static_cast<size_t>(view.len), shape.data(), view.ndim,
                              code, CText(device, "ofl.tensor: device"), &t);
  PyBuffer_Release(&view);
  if (status != nullptr) {
    Raise(status, "ofl.tensor");
  }
  return Wrap(t);
}

// Copies a tensor's elements into a writable C-contiguous buffer of its size (.numpy()).
void CopyToBuffer(const Tensor& self, nb::handle obj) {
  Py_buffer view;
  if (PyObject_GetBuffer(obj.ptr(), &view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) != 0) {
    throw nb::python_error();
  }
  oflite_status* status = nullptr;
  {
    nb::gil_scoped_release release;
    status = oflite_tensor_copy_to_host(self.get(), view.buf, static_cast<size_t>(view.len));
  }
  PyBuffer_Release(&view);
  Check(status);
}

}  // namespace

NB_MODULE(_C, m) {
  m.doc() = "oneflow_lite's extension (use the oneflow_lite package)";
  names = new Names();  // kept for the life of the process

  nb::class_<Tensor>(m, "Tensor",
                     "A tensor of oneflow_lite: made by ofl.tensor, ofl.from_dlpack and by ops.")
      .def_prop_ro("shape", &Tensor::Shape)
      .def_prop_ro("ndim", &Tensor::NDim)
      .def_prop_ro("dtype", &Tensor::DType, "the dtype's name: 'float32', 'bfloat16', ...")
      .def_prop_ro("device", &Tensor::Device, "'cpu' or 'cuda:N'")
      .def_prop_ro("data_ptr", &Tensor::DataPtr, "the address of the first element")
      .def("__dlpack__", &ExportDLPack, nb::kw_only(), nb::arg("stream").none() = nb::none(),
           nb::arg("max_version").none() = nb::none(), nb::arg("dl_device").none() = nb::none(),
           nb::arg("copy").none() = nb::none())
      .def("__dlpack_device__", &Tensor::DLPackDevice)
      .def(
          "to",
          [](const Tensor& self, const std::string& device) {
            const char* device_text = CText(device, "ofl.Tensor.to: device");
            oflite_tensor* t = nullptr;
            oflite_status* status = nullptr;
            {
              nb::gil_scoped_release release;
              status = oflite_tensor_to(self.get(), device_text, &t);
            }
            if (status != nullptr) {
              Raise(status, "ofl.Tensor.to");
            }
            return Wrap(t);
          },
          nb::arg("device"), "A copy on `device` ('cpu', 'cuda:0'); itself when already there.")
      .def("_copy_to", &CopyToBuffer);

  nb::class_<Op>(m, "Op", "A registered op: call it with its inputs, then its attributes.")
      .def(nb::init<const std::string&>(), nb::arg("name"))
      .def_prop_ro("name", &Op::name)
      .def_prop_ro("signature", &Op::Signature)
      .def_prop_ro("inputs", &Op::inputs)
      .def_prop_ro("attrs", &Op::AttrList, "(name, type, has_default) per attribute")
      .def("__call__", &Op::Call)
      .def("__repr__", [](const Op& op) { return "<ofl op " + op.Signature() + ">"; });

  m.def(
      "softmax",
      [](nb::handle x, int64_t dim) { return OverDim<oflite_softmax>(x, dim, "softmax"); },
      nb::arg("x"), nb::arg("dim") = -1, "Softmax of x over dim (any dim; default the last).");
  m.def(
      "log_softmax",
      [](nb::handle x, int64_t dim) { return OverDim<oflite_log_softmax>(x, dim, "log_softmax"); },
      nb::arg("x"), nb::arg("dim") = -1, "Log-softmax of x over dim (any dim; default the last).");
  m.def(
      "from_dlpack",
      [](nb::handle obj) -> nb::object {
        if (nb::isinstance<Tensor>(obj)) {
          return nb::borrow(obj);
        }
        std::vector<Tensor> keep;
        AsTensor(obj, &keep, "from_dlpack", "x");
        return nb::cast(std::move(keep.front()));
      },
      nb::arg("x"), "An ofl.Tensor over x's memory (a DLPack exporter or a \"dltensor\" capsule).");
  m.def("_from_buffer", &FromBuffer);
  nb::class_<StreamScope>(m, "_StreamScope")
      .def(nb::init<std::string, uintptr_t>())
      .def("__enter__", &StreamScope::Enter, nb::rv_policy::reference)
      .def("__exit__", &StreamScope::Exit);
  m.def("allocator_stats", &AllocatorStats, nb::arg("device") = "cpu",
        "The device allocator's statistics (bytes of blocks as it rounds them, and counts).");
  m.def(
      "empty_cache",
      [](const std::string& device) {
        Check(oflite_empty_cache(CText(device, "empty_cache: device")));
      },
      nb::arg("device") = "cpu", "Gives the device's cached memory back.");
  m.def("list_ops", &ListOps, "The names of the registered ops, sorted.");
  m.def(
      "load_op_library",
      [](const std::string& path) {
        Check(oflite_load_op_library(CText(path, "load_op_library: path")));
      },
      nb::arg("path"));
  m.def(
      "device_count",
      [](const std::string& type) {
        if (type != "cpu" && type != "cuda") {
          Throw(PyExc_ValueError,
                "device_count: device type must be 'cpu' or 'cuda', got '" + type + "'");
        }
        return oflite_device_count(type == "cuda" ? OFLITE_DEVICE_CUDA : OFLITE_DEVICE_CPU);
      },
      nb::arg("type") = "cuda");
  m.def(
      "synchronize",
      [](const std::string& device) {
        const char* device_text = CText(device, "synchronize: device");
        oflite_status* status = nullptr;
        {
          nb::gil_scoped_release release;
          status = oflite_device_synchronize(device_text);
        }
        Check(status);
      },
      nb::arg("device") = "cuda:0", "Waits for the work oflite queued on the device.");
}
