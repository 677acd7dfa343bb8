// The C API (oneflow_lite/c_api.h): tensors in and out, any op by name with attributes, DLPack
// both ways, and every error as a status with the C++ error's kind and message, NULL arguments
// included. (tools/consumer_test.sh also builds a C11 program against the installed package.)
#include "oneflow_lite/c_api.h"

#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

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

}  // namespace
