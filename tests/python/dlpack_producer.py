# A DLPack producer written with ctypes, so that the tests see exactly when a deleter runs: it
# hands out "dltensor" capsules over a float32 buffer and counts its deleter's calls. The capsule
# destructor calls the deleter only while the capsule is unconsumed, as the protocol says.
import ctypes


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", DELETER)]
CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, CAPSULE_DESTRUCTOR]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]

_NAME = b"dltensor"


def capsule_name(capsule):
    return _api.PyCapsule_GetName(capsule).decode()


class Producer:
    """float32 values 0, 1, ... of `shape`; strides (in elements) make a non-compact tensor;
    device_type 1 is the CPU."""

    def __init__(self, shape, strides=None, device_type=1):
        count = 1
        for d in shape:
            count *= d
        self.buffer = (ctypes.c_float * max(count, 1))(*range(count))
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.strides = (ctypes.c_int64 * len(shape))(*strides) if strides else None
        self.deleted = 0
        self.managed = DLManagedTensor()
        t = self.managed.dl_tensor
        t.data = ctypes.addressof(self.buffer)
        t.device = DLDevice(device_type, 0)
        t.ndim = len(shape)
        t.dtype = DLDataType(2, 32, 1)  # kDLFloat, 32 bits
        t.shape = self.shape
        t.strides = self.strides
        self.deleter = DELETER(self._delete)
        self.managed.deleter = self.deleter
        self.destructor = CAPSULE_DESTRUCTOR(self._destroy_capsule)

    @property
    def address(self):
        return ctypes.addressof(self.buffer)

    def _delete(self, managed):
        self.deleted += 1

    def _destroy_capsule(self, capsule):
        if _api.PyCapsule_IsValid(capsule, _NAME):
            self.deleter(ctypes.cast(_api.PyCapsule_GetPointer(capsule, _NAME),
                                     ctypes.POINTER(DLManagedTensor)))

    def capsule(self):
        return _api.PyCapsule_New(ctypes.addressof(self.managed), _NAME, self.destructor)
