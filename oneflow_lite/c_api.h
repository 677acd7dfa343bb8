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

#ifdef __cplusplus
}
#endif

#endif /* ONEFLOW_LITE_C_API_H_ */
