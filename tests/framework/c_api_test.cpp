// The C API (oneflow_lite/c_api.h): tensors in and out, any op by name with attributes, DLPack
// both ways, and every error as a status with the C++ error's kind and message, NULL arguments
// included. (tools/consumer_test.sh also builds a C11 program against the installed package.)
#include "oneflow_lite/c_api.h"

#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "oneflow_lite/common/logging.h"

namespace {

// Fails the test with the status's text unless it is success; frees it.
void ExpectOk(oflite_status* status) {
  EXPECT_EQ(oflite_status_kind(status), OFLITE_OK) << oflite_status_message(status);
  oflite_status_free(status);
}

// Expects an error of `kind` whose message holds `fragment`; frees it.
void ExpectStatus(oflite_status* status, oflite_error_kind kind, const std::string& fragment) {
  ASSERT_NE(status, nullptr) << "expected an error, got success";
  EXPECT_EQ(oflite_status_kind(status), kind) << oflite_status_message(status);
  EXPECT_NE(std::string(oflite_status_message(status)).find(fragment), std::string::npos)
      << "message lacks '" << fragment << "': " << oflite_status_message(status);
  oflite_status_free(status);
}

oflite_tensor* FromFloats(const std::vector<float>& values, const std::vector<int64_t>& shape) {
  oflite_tensor* t = nullptr;
  ExpectOk(oflite_tensor_from_host(values.data(), values.size() * 4, shape.data(),
                                   static_cast<int>(shape.size()), OFLITE_FLOAT32, nullptr, &t));
  return t;
}

std::vector<float> ToFloats(const oflite_tensor* t, size_t n) {
  std::vector<float> values(n);
  ExpectOk(oflite_tensor_copy_to_host(t, values.data(), n * 4));
  return values;
}

TEST(CApi, SuccessIsNullWithAnEmptyMessage) {
  EXPECT_EQ(oflite_status_kind(nullptr), OFLITE_OK);
  EXPECT_STREQ(oflite_status_message(nullptr), "");
  oflite_status_free(nullptr);
}

TEST(CApi, AnOpByNameWithAttributes) {
  oflite_tensor* x = FromFloats({1, 2, 3, 4, 5, 6}, {2, 3});
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(oflite_tensor_ndim(x), 2);
  EXPECT_EQ(oflite_tensor_dim(x, 1), 3);
  EXPECT_EQ(oflite_tensor_dim(x, 2), -1);
  EXPECT_EQ(oflite_tensor_dtype(x), OFLITE_FLOAT32);
  oflite_attrs* attrs = oflite_attrs_new();
  const int64_t perm[] = {1, 0};
  ExpectOk(oflite_attrs_set_ints(attrs, "perm", perm, 2));
  oflite_tensor* y = nullptr;
  size_t count = 0;
  const oflite_tensor* inputs[] = {x};
  ExpectOk(oflite_call("transpose", inputs, 1, attrs, &y, 1, &count));
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(oflite_tensor_dim(y, 0), 3);
  EXPECT_EQ(ToFloats(y, 6), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  // A number of another type where it converts exactly; a wrong type is the op's TypeError.
  oflite_attrs* scalar = oflite_attrs_new();
  ExpectOk(oflite_attrs_set_int(scalar, "float_operand", 2));  // a double attribute
  ExpectOk(oflite_attrs_set_bool(scalar, "has_float_operand", 1));
  oflite_tensor* z = nullptr;
  const char* op = "scalar_mul";
  ExpectOk(oflite_call(op, inputs, 1, scalar, &z, 1, &count));
  EXPECT_EQ(ToFloats(z, 6), (std::vector<float>{2, 4, 6, 8, 10, 12}));
  ExpectOk(oflite_attrs_set_string(attrs, "perm", "1,0"));
  oflite_tensor* unused = nullptr;
  ExpectStatus(oflite_call("transpose", inputs, 1, attrs, &unused, 1, &count), OFLITE_TYPE_ERROR,
               "perm");
  for (oflite_tensor* t : {x, y, z}) {
    oflite_tensor_free(t);
  }
  oflite_attrs_free(attrs);
  oflite_attrs_free(scalar);
}

TEST(CApi, ErrorsComeBackWithTheirKindAndMessage) {
  oflite_tensor* x = FromFloats({1, 2, 3}, {3});
  const oflite_tensor* inputs[] = {x};
  oflite_tensor* out = nullptr;
  size_t count = 0;
  ExpectStatus(oflite_call("no_such_op", inputs, 1, nullptr, &out, 1, &count), OFLITE_VALUE_ERROR,
               "no_such_op");
  ExpectStatus(oflite_call("softmax", inputs, 1, nullptr, &out, 0, &count), OFLITE_VALUE_ERROR,
               "room was given for 0");
  EXPECT_EQ(count, 1u);
  ExpectStatus(oflite_call(nullptr, inputs, 1, nullptr, &out, 1, &count), OFLITE_VALUE_ERROR,
               "op is NULL");
  const oflite_tensor* null_input[] = {nullptr};
  ExpectStatus(oflite_call("softmax", null_input, 1, nullptr, &out, 1, &count), OFLITE_VALUE_ERROR,
               "input 0 of softmax is NULL");
  const int64_t shape[] = {2};
  const int32_t ints[] = {1, 2};
  oflite_tensor* i32 = nullptr;
  ExpectOk(oflite_tensor_from_host(ints, sizeof(ints), shape, 1, OFLITE_INT32, "cpu", &i32));
  const oflite_tensor* int_inputs[] = {i32};
  ExpectStatus(oflite_call("softmax", int_inputs, 1, nullptr, &out, 1, &count),
               OFLITE_NOT_IMPLEMENTED, "no kernel for device cpu with input dtype(s) (int32)");
  ExpectStatus(oflite_tensor_from_host(ints, sizeof(ints), shape, 1, OFLITE_INT32, "tpu", &out),
               OFLITE_VALUE_ERROR, "tpu");
  ExpectStatus(oflite_tensor_from_host(ints, 4, shape, 1, OFLITE_INT32, "cpu", &out),
               OFLITE_VALUE_ERROR, "bytes");
  ExpectStatus(oflite_tensor_from_host(ints, 8, shape, -1, OFLITE_INT32, "cpu", &out),
               OFLITE_VALUE_ERROR, "ndim -1");
  ExpectStatus(oflite_tensor_from_host(ints, 8, shape, 1, 42, "cpu", &out), OFLITE_VALUE_ERROR,
               "42");
  float host[2];
  ExpectStatus(oflite_tensor_copy_to_host(x, host, sizeof(host)), OFLITE_VALUE_ERROR, "bytes");
  ExpectStatus(oflite_tensor_copy_to_host(nullptr, host, sizeof(host)), OFLITE_VALUE_ERROR,
               "tensor is NULL");
  ExpectStatus(oflite_attrs_set_int(nullptr, "dim", 1), OFLITE_VALUE_ERROR, "attrs is NULL");
  ExpectStatus(oflite_load_op_library("/nonexistent/libops.so"), OFLITE_VALUE_ERROR,
               "/nonexistent/libops.so");
  EXPECT_EQ(oflite_tensor_ndim(nullptr), -1);
  oflite_tensor_free(i32);
  oflite_tensor_free(x);
}

TEST(CApi, DLPackInAndOutShareMemory) {
  oflite_tensor* x = FromFloats({1, 2, 3, 4}, {4});
  DLManagedTensor* managed = nullptr;
  ExpectOk(oflite_tensor_to_dlpack(x, &managed));
  ASSERT_NE(managed, nullptr);
  oflite_tensor* back = nullptr;
  ExpectOk(oflite_tensor_from_dlpack(managed, &back));
  EXPECT_EQ(ToFloats(back, 4), (std::vector<float>{1, 2, 3, 4}));
  ExpectStatus(oflite_tensor_from_dlpack(nullptr, &back), OFLITE_VALUE_ERROR, "null");
  oflite_tensor_free(back);  // runs the export's deleter
  oflite_tensor_free(x);
}

TEST(CApi, AnOpHandleDescribesAndCallsItsOp) {
  oflite_op* op = nullptr;
  ExpectOk(oflite_op_find("transpose", &op));
  ASSERT_NE(op, nullptr);
  EXPECT_STREQ(oflite_op_name(op), "transpose");
  EXPECT_NE(std::string(oflite_op_signature(op)).find("transpose(Tensor x"), std::string::npos)
      << oflite_op_signature(op);
  EXPECT_EQ(oflite_op_num_inputs(op), 1u);
  EXPECT_EQ(oflite_op_num_outputs(op), 1u);
  ASSERT_EQ(oflite_op_num_attrs(op), 1u);
  EXPECT_STREQ(oflite_op_input_name(op, 0), "x");
  EXPECT_EQ(oflite_op_input_name(op, 1), nullptr);
  EXPECT_STREQ(oflite_op_attr_name(op, 0), "perm");
  EXPECT_EQ(oflite_op_attr_type(op, 0), OFLITE_ATTR_INTS);
  EXPECT_EQ(oflite_op_attr_has_default(op, 0), 0);
  EXPECT_EQ(oflite_op_attr_name(op, 1), nullptr);
  EXPECT_EQ(oflite_op_attr_type(op, 1), 0);
  oflite_tensor* x = FromFloats({1, 2, 3, 4, 5, 6}, {2, 3});
  const oflite_tensor* inputs[] = {x};
  oflite_attrs* attrs = oflite_attrs_new();
  const int64_t perm[] = {1, 0};
  ExpectOk(oflite_attrs_set_ints(attrs, "perm", perm, 2));
  oflite_tensor* y = nullptr;
  size_t count = 0;
  for (int i = 0; i < 3; ++i) {  // the handle is called again and again
    ExpectOk(oflite_op_call(op, inputs, 1, attrs, &y, 1, &count));
    ASSERT_EQ(count, 1u);
    EXPECT_EQ(ToFloats(y, 6), (std::vector<float>{1, 4, 2, 5, 3, 6}));
    oflite_tensor_free(y);
  }
  ExpectStatus(oflite_op_call(op, inputs, 1, nullptr, &y, 1, &count), OFLITE_VALUE_ERROR, "perm");
  ExpectStatus(oflite_op_call(nullptr, inputs, 1, attrs, &y, 1, &count), OFLITE_VALUE_ERROR,
               "op is NULL");
  oflite_op* missing = nullptr;
  ExpectStatus(oflite_op_find("no_such_op", &missing), OFLITE_VALUE_ERROR, "no_such_op");
  EXPECT_EQ(missing, nullptr);
  oflite_op* leaky = nullptr;
  ExpectOk(oflite_op_find("leaky_relu", &leaky));
  ASSERT_EQ(oflite_op_num_attrs(leaky), 1u);
  EXPECT_EQ(oflite_op_attr_type(leaky, 0), OFLITE_ATTR_DOUBLE);
  EXPECT_EQ(oflite_op_attr_has_default(leaky, 0), 1);
  EXPECT_EQ(oflite_op_num_attrs(nullptr), 0u);
  EXPECT_STREQ(oflite_op_name(nullptr), "");
  oflite_op_free(leaky);
  oflite_op_free(op);
  oflite_attrs_free(attrs);
  oflite_tensor_free(x);
}

TEST(CApi, ListsTheRegisteredOpsAsSnprintfWould) {
  size_t length = 0;
  ExpectOk(oflite_list_ops(nullptr, 0, &length));
  ASSERT_GT(length, 0u);
  std::vector<char> names(length + 1, 'x');
  size_t again = 0;
  ExpectOk(oflite_list_ops(names.data(), names.size(), &again));
  EXPECT_EQ(again, length);
  const std::string text(names.data());
  EXPECT_EQ(text.size(), length);
  EXPECT_NE(text.find("\nsoftmax\n"), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
  char small[5];
  ExpectOk(oflite_list_ops(small, sizeof(small), &again));
  EXPECT_EQ(again, length);
  EXPECT_EQ(std::string(small), text.substr(0, 4));
  ExpectStatus(oflite_list_ops(nullptr, 0, nullptr), OFLITE_VALUE_ERROR, "length is NULL");
}

TEST(CApi, SoftmaxOverAnyDim) {
  oflite_tensor* x = FromFloats({0, 0, 1, 1}, {2, 2});
  oflite_tensor* y = nullptr;
  ExpectOk(oflite_softmax(x, 0, &y));  // down the columns: 0 vs 1
  const float a = 1.0f / (1.0f + std::exp(1.0f));
  const std::vector<float> got = ToFloats(y, 4);
  const std::vector<float> want = {a, a, 1 - a, 1 - a};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-6) << i;
  }
  oflite_tensor_free(y);
  ExpectOk(oflite_log_softmax(x, -1, &y));
  EXPECT_NEAR(ToFloats(y, 4)[0], std::log(0.5f), 1e-6);
  oflite_tensor_free(y);
  ExpectStatus(oflite_softmax(x, 2, &y), OFLITE_INDEX_ERROR, "dim 2 is out of range");
  ExpectStatus(oflite_softmax(nullptr, 0, &y), OFLITE_VALUE_ERROR, "x is NULL");
  oflite_tensor_free(x);
}

TEST(CApi, MoreAttributeTypes) {
  oflite_tensor* x = FromFloats({1.5f, -2.5f}, {2});
  const oflite_tensor* inputs[] = {x};
  oflite_attrs* attrs = oflite_attrs_new();
  ExpectOk(oflite_attrs_set_dtype(attrs, "dtype", OFLITE_INT32));
  oflite_tensor* y = nullptr;
  size_t count = 0;
  ExpectOk(oflite_call("cast", inputs, 1, attrs, &y, 1, &count));
  EXPECT_EQ(oflite_tensor_dtype(y), OFLITE_INT32);
  oflite_tensor_free(y);
  ExpectStatus(oflite_attrs_set_dtype(attrs, "dtype", 99), OFLITE_VALUE_ERROR, "99");
  const int64_t dims[] = {2, 3};
  ExpectOk(oflite_attrs_set_shape(attrs, "shape", dims, 2));
  const float values[] = {0.5f};
  ExpectOk(oflite_attrs_set_floats(attrs, "values", values, 1));
  ExpectStatus(oflite_attrs_set_shape(attrs, "shape", nullptr, 2), OFLITE_VALUE_ERROR,
               "dims is NULL");
  ExpectStatus(oflite_attrs_set_shape(attrs, "shape", dims, 17), OFLITE_VALUE_ERROR, "17 dims");
  oflite_attrs_free(attrs);
  oflite_tensor_free(x);
}

TEST(CApi, TensorsSayWhereTheyLiveAndMove) {
  oflite_tensor* x = FromFloats({1, 2, 3}, {3});
  EXPECT_EQ(oflite_tensor_device_type(x), OFLITE_DEVICE_CPU);
  EXPECT_EQ(oflite_tensor_device_index(x), 0);
  EXPECT_EQ(oflite_tensor_device_type(nullptr), -1);
  ASSERT_NE(oflite_tensor_data(x), nullptr);
  EXPECT_EQ(static_cast<const float*>(oflite_tensor_data(x))[2], 3.0f);
  EXPECT_EQ(oflite_tensor_data(nullptr), nullptr);
  oflite_tensor* same = nullptr;
  ExpectOk(oflite_tensor_to(x, "cpu", &same));
  EXPECT_EQ(oflite_tensor_data(same), oflite_tensor_data(x));  // already there: no copy
  oflite_tensor_free(same);
  ExpectStatus(oflite_tensor_to(x, "tpu", &same), OFLITE_VALUE_ERROR, "tpu");
  EXPECT_GE(oflite_device_count(OFLITE_DEVICE_CPU), 1);
  EXPECT_EQ(oflite_device_count(7), 0);
  if (oflite_device_count(OFLITE_DEVICE_CUDA) > 0) {
    oflite_tensor* on_gpu = nullptr;
    ExpectOk(oflite_tensor_to(x, "cuda:0", &on_gpu));
    EXPECT_EQ(oflite_tensor_device_type(on_gpu), OFLITE_DEVICE_CUDA);
    EXPECT_EQ(ToFloats(on_gpu, 3), (std::vector<float>{1, 2, 3}));
    ExpectOk(oflite_device_synchronize("cuda:0"));
    void* stream = nullptr;
    ExpectOk(oflite_device_stream("cuda:0", &stream));
    oflite_tensor_free(on_gpu);
  } else {
    ExpectStatus(oflite_tensor_to(x, "cuda:0", &same), OFLITE_DEVICE_ERROR, "cuda");
  }
  ExpectOk(oflite_device_synchronize("cpu"));
  void* stream = &stream;
  ExpectOk(oflite_device_stream("cpu", &stream));
  EXPECT_EQ(stream, nullptr);
  ExpectStatus(oflite_device_synchronize(nullptr), OFLITE_VALUE_ERROR, "device is NULL");
  ExpectStatus(oflite_device_synchronize("tpu"), OFLITE_VALUE_ERROR, "tpu");
  oflite_tensor_free(x);
}

// What a C sink received, through its user_data.
struct CLogLines {
  std::vector<int> severities;
  std::vector<std::string> files;
  std::vector<int> lines;
  std::vector<std::string> messages;
};

void CollectCLine(int severity, const char* file, int line, const char* message, void* user_data) {
  auto* received = static_cast<CLogLines*>(user_data);
  received->severities.push_back(severity);
  received->files.push_back(file);
  received->lines.push_back(line);
  received->messages.push_back(message);
}

TEST(CApi, LogLinesGoToTheCallersSinkUntilTheDefaultIsRestored) {
  CLogLines received;
  testing::internal::CaptureStderr();
  ExpectOk(oflite_set_log_sink(CollectCLine, &received));
  const int logged_at = __LINE__ + 1;
  OFLITE_LOG(WARNING) << "through the library's log, " << 3 << " words";
  OFLITE_LOG(ERROR) << "an error";
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << "a line reached stderr too";
  ASSERT_EQ(received.messages.size(), 2u);
  EXPECT_EQ(received.severities[0], OFLITE_LOG_WARNING);
  EXPECT_NE(received.files[0].find("c_api_test.cpp"), std::string::npos) << received.files[0];
  EXPECT_EQ(received.lines[0], logged_at);
  EXPECT_EQ(received.messages[0], "through the library's log, 3 words");
  EXPECT_EQ(received.severities[1], OFLITE_LOG_ERROR);

  testing::internal::CaptureStderr();
  ExpectOk(oflite_set_log_sink(nullptr, nullptr));
  OFLITE_LOG(WARNING) << "back on stderr";
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(received.messages.size(), 2u) << "the replaced sink still receives lines";
  EXPECT_NE(err.find("] back on stderr"), std::string::npos) << err;
}

}  // namespace

namespace {
// A C allocator over malloc that counts its calls and remembers the queues it was given.
struct CountingC {
  int allocations = 0;
  int frees = 0;
  void* last_stream = reinterpret_cast<void*>(1);
  bool refuse = false;
};
void* CountingAllocate(size_t bytes, void* stream, void* user_data) {
  auto* counts = static_cast<CountingC*>(user_data);
  counts->last_stream = stream;
  if (counts->refuse) {
    return nullptr;
  }
  ++counts->allocations;
  return std::malloc(bytes);
}
void CountingDeallocate(void* ptr, size_t /*bytes*/, void* /*stream*/, void* user_data) {
  ++static_cast<CountingC*>(user_data)->frees;
  std::free(ptr);
}
}  // namespace

TEST(CApi, TheCallersAllocatorServesNewTensorsUntilReset) {
  static CountingC counts;  // outlives every tensor it served
  const oflite_allocator allocator{CountingAllocate, CountingDeallocate, &counts};
  oflite_tensor* x = FromFloats({1, 2, 3, 4}, {2, 2});  // before: the built-in allocator's
  ExpectOk(oflite_set_allocator("cpu", &allocator));
  oflite_tensor* y = nullptr;
  ExpectOk(oflite_softmax(x, -1, &y));
  EXPECT_EQ(counts.allocations, 1);
  EXPECT_EQ(counts.last_stream, nullptr);  // the CPU's queue
  EXPECT_NEAR(ToFloats(y, 4)[1], 0.7310586f, 1e-6f);
  oflite_tensor_free(y);
  EXPECT_EQ(counts.frees, 1);
  oflite_tensor* empty = nullptr;  // zero bytes: still a real block, asked for as 1 byte
  const int64_t none[] = {0};
  ExpectOk(oflite_tensor_from_host(nullptr, 0, none, 1, OFLITE_FLOAT32, "cpu", &empty));
  EXPECT_EQ(counts.allocations, 2);
  EXPECT_NE(oflite_tensor_data(empty), nullptr);
  oflite_tensor_free(empty);
  EXPECT_EQ(counts.frees, 2);
  counts.refuse = true;
  ExpectStatus(oflite_softmax(x, -1, &y), OFLITE_OUT_OF_MEMORY, "could not allocate 16 bytes");
  counts.refuse = false;
  ExpectOk(oflite_set_allocator("cpu", nullptr));
  ExpectOk(oflite_softmax(x, -1, &y));
  EXPECT_EQ(counts.allocations, 2);  // the built-in one again
  oflite_tensor_free(y);
  oflite_tensor_free(x);
  const oflite_allocator missing{nullptr, CountingDeallocate, &counts};
  ExpectStatus(oflite_set_allocator("cpu", &missing), OFLITE_VALUE_ERROR, "allocator->allocate");
  ExpectStatus(oflite_set_allocator("cuda:99", nullptr), OFLITE_DEVICE_ERROR, "cuda:99");
  ExpectStatus(oflite_use_cuda_pool_allocator("cpu", nullptr), OFLITE_NOT_IMPLEMENTED,
               "cuda device");
}

TEST(CApi, AllocatorStatisticsAndEmptyCache) {
  ExpectOk(oflite_empty_cache("cpu"));
  oflite_allocator_stats before{};
  ExpectOk(oflite_allocator_stats_get("cpu", &before));
  EXPECT_EQ(before.reserved_bytes, before.allocated_bytes);  // nothing cached
  oflite_tensor* x = FromFloats(std::vector<float>(1000, 1.0f), {1000});
  oflite_allocator_stats during{};
  ExpectOk(oflite_allocator_stats_get("cpu", &during));
  EXPECT_EQ(during.allocated_bytes, before.allocated_bytes + 4096);  // 4000 rounds to 4096
  EXPECT_EQ(during.allocation_count, before.allocation_count + 1);
  oflite_tensor_free(x);
  ExpectStatus(oflite_allocator_stats_get("cpu", nullptr), OFLITE_VALUE_ERROR, "out is NULL");
  ExpectStatus(oflite_empty_cache("gpu"), OFLITE_VALUE_ERROR, "gpu");
}

TEST(CApi, StreamScopesOnTheCpuTakeOnlyTheNullQueue) {
  oflite_stream_scope* scope = nullptr;
  ExpectOk(oflite_stream_scope_begin("cpu", nullptr, &scope));
  ASSERT_NE(scope, nullptr);
  void* native = reinterpret_cast<void*>(1);
  ExpectOk(oflite_device_stream("cpu", &native));
  EXPECT_EQ(native, nullptr);
  oflite_tensor* x = FromFloats({1, 2}, {2});
  ExpectOk(oflite_tensor_record_stream(x, nullptr));
  int not_a_queue = 0;
  ExpectStatus(oflite_tensor_record_stream(x, &not_a_queue), OFLITE_VALUE_ERROR, "null stream");
  ExpectStatus(oflite_tensor_record_stream(nullptr, nullptr), OFLITE_VALUE_ERROR, "tensor");
  oflite_tensor_free(x);
  oflite_stream_scope_end(scope);
  oflite_stream_scope_end(nullptr);
  oflite_stream_scope* other = nullptr;
  ExpectStatus(oflite_stream_scope_begin("cpu", &not_a_queue, &other), OFLITE_VALUE_ERROR,
               "null stream");
  EXPECT_EQ(other, nullptr);
  ExpectStatus(oflite_stream_scope_begin("cuda:99", nullptr, &other), OFLITE_DEVICE_ERROR,
               "cuda:99");
  ExpectStatus(oflite_stream_scope_begin("cpu", nullptr, nullptr), OFLITE_VALUE_ERROR, "out");
}
