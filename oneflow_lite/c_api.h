/* The C interface of oneflow_lite (C11; also compiles as C++): opaque handles, a status with the
 * error's kind and message, DLPack in and out, any registered op by name, op libraries.
 *
 * Every call that can fail returns NULL on success, or a status that the caller frees with
 * oflite_status_free. Handles a call returns belong to the caller, who frees each once. No call
 * aborts or throws: bad arguments (NULL pointers included) come back as a status. */
#ifndef ONEFLOW_LITE_C_API_H_
#define ONEFLOW_LITE_C_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct DLManagedTensor; /* dlpack/dlpack.h */

typedef struct oflite_status oflite_status;
typedef struct oflite_tensor oflite_tensor;
typedef struct oflite_attrs oflite_attrs;

typedef enum oflite_error_kind {
  OFLITE_OK = 0,
  OFLITE_VALUE_ERROR,
  OFLITE_TYPE_ERROR,
  OFLITE_INDEX_ERROR,
  OFLITE_NOT_IMPLEMENTED,
  OFLITE_DEVICE_ERROR,
  OFLITE_OUT_OF_MEMORY,
  OFLITE_RUNTIME_ERROR
} oflite_error_kind;

/* The values of oflite::DataType. */
typedef enum oflite_dtype {
  OFLITE_FLOAT32 = 1,
  OFLITE_FLOAT64 = 2,
  OFLITE_FLOAT16 = 3,
  OFLITE_BFLOAT16 = 4,
  OFLITE_INT8 = 5,
  OFLITE_UINT8 = 6,
  OFLITE_INT32 = 7,
  OFLITE_INT64 = 8,
  OFLITE_BOOL = 9
} oflite_dtype;

/* OFLITE_OK and "" for NULL (success). The message stays valid until the status is freed. */
oflite_error_kind oflite_status_kind(const oflite_status* status);
const char* oflite_status_message(const oflite_status* status);
void oflite_status_free(oflite_status* status);

/* A tensor of `ndim` dims and dtype `dtype` (an oflite_dtype value, taken as an int so that any
 * other value is a ValueError rather than an invalid enum) copied from `bytes` bytes of host
 * memory, on `device` ("cpu", "cuda", "cuda:1"; NULL for the CPU). */
oflite_status* oflite_tensor_from_host(const void* data, size_t bytes, const int64_t* shape,
                                       int ndim, int dtype, const char* device,
                                       oflite_tensor** out);
/* Takes a DLPack tensor without copying (Tensor::FromDLPack: compact row-major CPU or CUDA
 * memory); on an error the caller still owns it. */
oflite_status* oflite_tensor_from_dlpack(struct DLManagedTensor* managed, oflite_tensor** out);
/* Lends the tensor's memory as a DLPack tensor; the consumer calls its deleter once. */
oflite_status* oflite_tensor_to_dlpack(const oflite_tensor* tensor, struct DLManagedTensor** out);
/* Copies the elements to `bytes` bytes of host memory (exactly the tensor's size). */
oflite_status* oflite_tensor_copy_to_host(const oflite_tensor* tensor, void* dst, size_t bytes);
/* -1, -1 and 0 for a NULL tensor or a dim out of range. */
int oflite_tensor_ndim(const oflite_tensor* tensor);
int64_t oflite_tensor_dim(const oflite_tensor* tensor, int i);
oflite_dtype oflite_tensor_dtype(const oflite_tensor* tensor);
void oflite_tensor_free(oflite_tensor* tensor);

/* Attributes of a call by name; a later value of a name replaces an earlier one. A number may
 * be given as another numeric type where it converts exactly (the op checks). */
oflite_attrs* oflite_attrs_new(void);
void oflite_attrs_free(oflite_attrs* attrs);
oflite_status* oflite_attrs_set_int(oflite_attrs* attrs, const char* name, int64_t value);
oflite_status* oflite_attrs_set_double(oflite_attrs* attrs, const char* name, double value);
oflite_status* oflite_attrs_set_bool(oflite_attrs* attrs, const char* name, int value);
oflite_status* oflite_attrs_set_string(oflite_attrs* attrs, const char* name, const char* value);
oflite_status* oflite_attrs_set_ints(oflite_attrs* attrs, const char* name, const int64_t* values,
                                     size_t count);

/* Runs the registered op `op` (oflite ops lists them) on `num_inputs` inputs with `attrs` (NULL
 * for none). Writes its outputs' count to *num_outputs and the first `capacity` of them to
 * `outputs`; a capacity smaller than the op's output count is a ValueError and writes none. */
oflite_status* oflite_call(const char* op, const oflite_tensor* const* inputs, size_t num_inputs,
                           const oflite_attrs* attrs, oflite_tensor** outputs, size_t capacity,
                           size_t* num_outputs);

/* Loads a shared library that registers ops (oflite::LoadOpLibrary). */
oflite_status* oflite_load_op_library(const char* path);

/* The library's log lines (oneflow_lite/common/logging.h) go to glog by default, which prints
 * them on stderr until the host calls InitGoogleLogging. */
typedef enum oflite_log_severity {
  OFLITE_LOG_INFO = 0,
  OFLITE_LOG_WARNING = 1,
  OFLITE_LOG_ERROR = 2,
  OFLITE_LOG_FATAL = 3
} oflite_log_severity;

/* Receives one line: its severity (an oflite_log_severity value), the source file and line that
 * wrote it, the message (no trailing newline, valid during the call) and the user_data given with
 * the sink. It runs on the thread that logs, possibly on several at once. After a FATAL line (a
 * broken invariant inside the library) the process aborts. */
typedef void (*oflite_log_sink)(int severity, const char* file, int line, const char* message,
                                void* user_data);

/* Sends the library's log lines to `sink` and nowhere else; a NULL sink restores the default.
 * Once it returns the sink it replaced is never called again, so that sink's user_data may be
 * released. A sink must not call oflite_set_log_sink. */
oflite_status* oflite_set_log_sink(oflite_log_sink sink, void* user_data);

/* ---- Ops looked up once, called many times; what the registry holds; devices. ---- */

typedef struct oflite_op oflite_op;

/* The values of oflite::AttrType (0 is no value). */
typedef enum oflite_attr_type {
  OFLITE_ATTR_BOOL = 1,
  OFLITE_ATTR_INT64 = 2,
  OFLITE_ATTR_FLOAT = 3,
  OFLITE_ATTR_DOUBLE = 4,
  OFLITE_ATTR_STRING = 5,
  OFLITE_ATTR_SHAPE = 6,
  OFLITE_ATTR_DTYPE = 7,
  OFLITE_ATTR_INTS = 8,
  OFLITE_ATTR_FLOATS = 9
} oflite_attr_type;

/* The values of oflite::DeviceType. */
typedef enum oflite_device_type {
  OFLITE_DEVICE_CPU = 0,
  OFLITE_DEVICE_CUDA = 1
} oflite_device_type;

/* A handle on the registered op `name` (ValueError naming the registered ops when there is none):
 * its schema is read once, and oflite_op_call skips the lookup by name. The caller frees it. */
oflite_status* oflite_op_find(const char* name, oflite_op** out);
void oflite_op_free(oflite_op* op);
/* The op's name and signature ("transpose(Tensor x, list_int64 perm) -> Tensor y"), valid while
 * the handle lives; "" for NULL. */
const char* oflite_op_name(const oflite_op* op);
const char* oflite_op_signature(const oflite_op* op);
/* Counts of inputs, outputs and attributes (0 for NULL), and each by index in declaration order:
 * a name (NULL for an index out of range), an attribute's type (0 out of range) and whether it
 * has a default (0 or 1). */
size_t oflite_op_num_inputs(const oflite_op* op);
size_t oflite_op_num_outputs(const oflite_op* op);
size_t oflite_op_num_attrs(const oflite_op* op);
const char* oflite_op_input_name(const oflite_op* op, size_t i);
const char* oflite_op_attr_name(const oflite_op* op, size_t i);
oflite_attr_type oflite_op_attr_type(const oflite_op* op, size_t i);
int oflite_op_attr_has_default(const oflite_op* op, size_t i);
/* oflite_call for a handle: the same arguments, checks and errors. */
oflite_status* oflite_op_call(const oflite_op* op, const oflite_tensor* const* inputs,
                              size_t num_inputs, const oflite_attrs* attrs, oflite_tensor** outputs,
                              size_t capacity, size_t* num_outputs);

/* The names of the registered ops, sorted, each followed by '\n', as snprintf writes: at most
 * `capacity` bytes into `buffer` (NULL with capacity 0 to ask the size), NUL-terminated when
 * capacity > 0, and the full length without the NUL in *length. */
oflite_status* oflite_list_ops(char* buffer, size_t capacity, size_t* length);

/* Softmax and log-softmax over `dim` (negative counts from the end), any dim: the functional
 * calls (oflite::functional::Softmax), which move a non-last dim last and back. */
oflite_status* oflite_softmax(const oflite_tensor* x, int64_t dim, oflite_tensor** out);
oflite_status* oflite_log_softmax(const oflite_tensor* x, int64_t dim, oflite_tensor** out);

/* More attribute types: a dtype (an oflite_dtype value), a shape, a list of floats. */
oflite_status* oflite_attrs_set_dtype(oflite_attrs* attrs, const char* name, int dtype);
oflite_status* oflite_attrs_set_shape(oflite_attrs* attrs, const char* name, const int64_t* dims,
                                      size_t count);
oflite_status* oflite_attrs_set_floats(oflite_attrs* attrs, const char* name, const float* values,
                                       size_t count);

/* Where the tensor lives: its device type and index (-1 and -1 for NULL). */
int oflite_tensor_device_type(const oflite_tensor* tensor);
int oflite_tensor_device_index(const oflite_tensor* tensor);
/* The address of its first element (NULL for NULL or an empty tensor's storage). */
void* oflite_tensor_data(const oflite_tensor* tensor);
/* A copy on `device` ("cpu", "cuda:0"); the same storage when it is already there. */
oflite_status* oflite_tensor_to(const oflite_tensor* tensor, const char* device,
                                oflite_tensor** out);

/* Devices of a type visible now (0 when it was not built in or has none). */
int oflite_device_count(int device_type);
/* Waits until the work this thread queued on the device's stream has finished. */
oflite_status* oflite_device_synchronize(const char* device);
/* The native queue this thread's oflite work on the device runs on (a cudaStream_t on CUDA, NULL
 * for CUDA's legacy default stream and on the CPU): oflite's own, or a stream scope's. A
 * producer of DLPack data can order its work before it. */
oflite_status* oflite_device_stream(const char* device, void** native);

/* The host's execution context. Until oflite_stream_scope_end, this thread's calls on `device`
 * run on the caller's queue `stream` (a cudaStream_t of that GPU; NULL: CUDA's legacy default
 * stream; on the CPU only NULL) and the tensors they make take memory for it (C++:
 * oflite::ScopedStream). Scopes nest; end each on the thread that began it. The caller keeps
 * the stream alive while tensors made on it live. */
typedef struct oflite_stream_scope oflite_stream_scope;
oflite_status* oflite_stream_scope_begin(const char* device, void* stream,
                                         oflite_stream_scope** out);
void oflite_stream_scope_end(oflite_stream_scope* scope);
/* The work the caller queued on `stream` so far uses the tensor: its memory is not reused
 * before that work is done. Call it after queuing the work: unlike PyTorch's record_stream,
 * the point is recorded now, not when the tensor is freed. */
oflite_status* oflite_tensor_record_stream(const oflite_tensor* tensor, void* stream);

/* The device allocator's statistics: the built-in caching allocator counts blocks as it rounds
 * them, the CUDA pool allocator the bytes asked for; a caller's allocator reports zeros. */
typedef struct oflite_allocator_stats {
  size_t allocated_bytes;      /* in blocks handed out and not yet returned */
  size_t peak_allocated_bytes; /* the most allocated_bytes has been */
  size_t reserved_bytes;       /* held from the device: allocated plus cached */
  int64_t allocation_count;    /* nonzero requests served */
  int64_t cache_hit_count;     /* requests served from a cached block */
  int64_t device_malloc_count; /* blocks obtained from the device */
  int64_t device_free_count;   /* blocks given back to the device */
} oflite_allocator_stats;
oflite_status* oflite_allocator_stats_get(const char* device, oflite_allocator_stats* out);
/* Gives the device's cached memory back (waiting for its pending work first). */
oflite_status* oflite_empty_cache(const char* device);

/* An allocator of the caller's. `allocate` returns NULL when it cannot serve the request (the
 * call then fails with OFLITE_OUT_OF_MEMORY); a request for 0 bytes comes as 1. `stream` is the
 * native queue the memory is for (as oflite_device_stream gives it); `deallocate` comes with the
 * same queue once every use is queued on it: memory may go to later work on that queue at once,
 * to other queues only after that work. Both may be called from several threads at once. */
typedef struct oflite_allocator {
  void* (*allocate)(size_t bytes, void* stream, void* user_data);
  void (*deallocate)(void* ptr, size_t bytes, void* stream, void* user_data);
  void* user_data;
} oflite_allocator;
/* Tensors made on `device` from now on take memory from `allocator` (its fields are copied;
 * NULL restores the built-in caching allocator). Tensors made before keep theirs; user_data
 * must stay valid until the process exits or the last such tensor is freed. */
oflite_status* oflite_set_allocator(const char* device, const oflite_allocator* allocator);
/* Tensors made on a CUDA device from now on take memory from a CUDA memory pool (`pool` a
 * cudaMemPool_t of that GPU; NULL its default pool), stream-ordered by CUDA itself. */
oflite_status* oflite_use_cuda_pool_allocator(const char* device, void* pool);

#ifdef __cplusplus
}
#endif

#endif /* ONEFLOW_LITE_C_API_H_ */
