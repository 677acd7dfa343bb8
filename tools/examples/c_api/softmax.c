/* A C11 program against the installed oneflow_lite: softmax of a 2 x 3 tensor through the C API,
 * over its last dim, checked against the values computed here, and an error's kind and message. tools/consumer_test.sh
 * builds it with gcc -std=c11 -pedantic and runs it. */
#include <math.h>
#include <oneflow_lite/c_api.h>
#include <stdio.h>

static int Failed(oflite_status* status, const char* what) {
  if (status == NULL) {
    return 0;
  }
  fprintf(stderr, "%s: error %d: %s\n", what, (int)oflite_status_kind(status),
          oflite_status_message(status));
  oflite_status_free(status);
  return 1;
}

int main(void) {
  const float x[6] = {1, 2, 3, -1, 0, 1};
  const int64_t shape[2] = {2, 3};
  oflite_tensor* input = NULL;
  oflite_tensor* output = NULL;
  size_t count = 0;
  float y[6];
  int i, r;
  oflite_status* status;
  if (Failed(oflite_tensor_from_host(x, sizeof(x), shape, 2, OFLITE_FLOAT32, "cpu", &input),
             "from_host") ||
      Failed(oflite_call("softmax", (const oflite_tensor* const*)&input, 1, NULL, &output, 1,
                         &count),
             "softmax") ||
      Failed(oflite_tensor_copy_to_host(output, y, sizeof(y)), "copy")) {
    return 1;
  }
  for (r = 0; r < 2; ++r) {
    double sum = 0;
    for (i = 0; i < 3; ++i) {
      sum += exp(x[3 * r + i]);
    }
    for (i = 0; i < 3; ++i) {
      const double want = exp(x[3 * r + i]) / sum;
      if (fabs(y[3 * r + i] - want) > 1e-6 * want) {
        fprintf(stderr, "softmax[%d][%d] = %g, want %g\n", r, i, y[3 * r + i], want);
        return 1;
      }
    }
  }
  status = oflite_call("no_such_op", NULL, 0, NULL, NULL, 0, &count);
  if (oflite_status_kind(status) == OFLITE_OK) {
    fprintf(stderr, "an unknown op did not fail\n");
    return 1;
  }
  printf("c_api: softmax of a 2 x 3 tensor matches; an unknown op: %s\n",
         oflite_status_message(status));
  oflite_status_free(status);
  oflite_tensor_free(output);
  oflite_tensor_free(input);
  return 0;
}
