#include "tools/oflite/function_table.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <string>

#include "oneflow_lite/common/join.h"
#include "oneflow_lite/framework/op_registry.h"
#include "oneflow_lite/functional/functional.h"

namespace oflite {
namespace cli {

namespace {
AttrDef Arg(const std::string& name, AttrType type) { return {name, type, std::nullopt}; }

AttrDef ArgWithDefault(const std::string& name, const AttrValue& value) {
  return {name, value.type(), value};
}

// A call of fn(t0, attr "dim") for the softmax family.
template <Maybe<Tensor> (*kFn)(const Tensor&, int64_t)>
Maybe<Tensor> CallWithDim(const std::vector<Tensor>& t, const AttrMap& a) {
  int64_t dim = 0;
  OFLITE_ASSIGN_OR_RETURN(dim, a.Get<int64_t>("dim"));
  return kFn(t[0], dim);
}

template <Maybe<Tensor> (*kFn)(const Tensor&, const Tensor&, int64_t)>
Maybe<Tensor> CallGradWithDim(const std::vector<Tensor>& t, const AttrMap& a) {
  int64_t dim = 0;
  OFLITE_ASSIGN_OR_RETURN(dim, a.Get<int64_t>("dim"));
  return kFn(t[0], t[1], dim);
}

template <Maybe<Tensor> (*kFn)(const Tensor&, const std::vector<int64_t>&)>
Maybe<Tensor> CallWithPerm(const std::vector<Tensor>& t, const AttrMap& a, const char* name) {
  std::vector<int64_t> perm;
  OFLITE_ASSIGN_OR_RETURN(perm, a.Get<std::vector<int64_t>>(name));
  return kFn(t[0], perm);
}

// Elementwise calls. The template argument picks the (Tensor, Tensor) overload of the binary
// functions (they also take a Scalar on either side, which the CLI has no way to give).
template <Maybe<Tensor> (*kFn)(const Tensor&)>
Maybe<Tensor> CallUnary(const std::vector<Tensor>& t, const AttrMap&) {
  return kFn(t[0]);
}

template <Maybe<Tensor> (*kFn)(const Tensor&, const Tensor&)>
Maybe<Tensor> CallBinary(const std::vector<Tensor>& t, const AttrMap&) {
  return kFn(t[0], t[1]);
}

template <Maybe<Tensor> (*kFn)(const Tensor&, const std::string&)>
Maybe<Tensor> CallWithApproximate(const std::vector<Tensor>& t, const AttrMap& a) {
  std::string approximate;
  OFLITE_ASSIGN_OR_RETURN(approximate, a.Get<std::string>("approximate"));
  return kFn(t[0], approximate);
}

template <Maybe<Tensor> (*kFn)(const Tensor&, const Tensor&, const std::string&)>
Maybe<Tensor> CallGradWithApproximate(const std::vector<Tensor>& t, const AttrMap& a) {
  std::string approximate;
  OFLITE_ASSIGN_OR_RETURN(approximate, a.Get<std::string>("approximate"));
  return kFn(t[0], t[1], approximate);
}

Maybe<Tensor> CallLeakyRelu(const std::vector<Tensor>& t, const AttrMap& a) {
  double alpha = 0;
  OFLITE_ASSIGN_OR_RETURN(alpha, a.Get<double>("alpha"));
  return functional::LeakyRelu(t[0], alpha);
}

Maybe<Tensor> CallLeakyReluGrad(const std::vector<Tensor>& t, const AttrMap& a) {
  double alpha = 0;
  OFLITE_ASSIGN_OR_RETURN(alpha, a.Get<double>("alpha"));
  return functional::LeakyReluGrad(t[0], t[1], alpha);
}

Maybe<Tensor> CallCast(const std::vector<Tensor>& t, const AttrMap& a) {
  DataType dtype = DataType::kFloat32;
  OFLITE_ASSIGN_OR_RETURN(dtype, a.Get<DataType>("dtype"));
  return functional::Cast(t[0], dtype);
}
Maybe<Tensor> CallMatMul(const std::vector<Tensor>& t, const AttrMap& a) {
  MatMulArgs m;
  OFLITE_ASSIGN_OR_RETURN(m, GetMatMulArgs(a));
  return functional::MatMul(t[0], t[1], m.transpose_a, m.transpose_b, m.alpha);
}

Maybe<Tensor> CallFusedMatmulBiasAct(const std::vector<Tensor>& t, const AttrMap& a) {
  std::string activation;
  bool transpose_a = false, transpose_b = false;
  double alpha = 0.01;
  OFLITE_ASSIGN_OR_RETURN(activation, a.Get<std::string>("activation"));
  OFLITE_ASSIGN_OR_RETURN(transpose_a, a.Get<bool>("transpose_a"));
  OFLITE_ASSIGN_OR_RETURN(transpose_b, a.Get<bool>("transpose_b"));
  OFLITE_ASSIGN_OR_RETURN(alpha, a.Get<double>("leaky_alpha"));
  return functional::FusedMatmulBiasAct(t[0], t[1], t[2], activation, transpose_a, transpose_b,
                                        alpha);
}

}  // namespace

const std::vector<FunctionEntry>& Functions() {
  // dim defaults to -1 (the last axis), as users of softmax most often mean.
  static const std::vector<FunctionEntry> functions = {
      {"softmax", {"x"}, {ArgWithDefault("dim", -1)}, CallWithDim<functional::Softmax>},
      {"log_softmax", {"x"}, {ArgWithDefault("dim", -1)}, CallWithDim<functional::LogSoftmax>},
      {"softmax_grad",
       {"y", "dy"},
       {ArgWithDefault("dim", -1)},
       CallGradWithDim<functional::SoftmaxGrad>},
      {"log_softmax_grad",
       {"y", "dy"},
       {ArgWithDefault("dim", -1)},
       CallGradWithDim<functional::LogSoftmaxGrad>},
      {"transpose",
       {"x"},
       {Arg("perm", AttrType::kListInt64)},
       [](const std::vector<Tensor>& t, const AttrMap& a) {
         return CallWithPerm<functional::Transpose>(t, a, "perm");
       }},
      {"permute",
       {"x"},
       {Arg("dims", AttrType::kListInt64)},
       [](const std::vector<Tensor>& t, const AttrMap& a) {
         return CallWithPerm<functional::Permute>(t, a, "dims");
       }},
      // Binary elementwise math: broadcasting, PyTorch's type promotion; comparisons give bool.
      {"add", {"x", "y"}, {}, CallBinary<functional::Add>},
      {"sub", {"x", "y"}, {}, CallBinary<functional::Sub>},
      {"mul", {"x", "y"}, {}, CallBinary<functional::Mul>},
      {"div", {"x", "y"}, {}, CallBinary<functional::Div>},
      {"maximum", {"x", "y"}, {}, CallBinary<functional::Maximum>},
      {"minimum", {"x", "y"}, {}, CallBinary<functional::Minimum>},
      {"pow", {"x", "y"}, {}, CallBinary<functional::Pow>},
      {"eq", {"x", "y"}, {}, CallBinary<functional::Eq>},
      {"ne", {"x", "y"}, {}, CallBinary<functional::Ne>},
      {"lt", {"x", "y"}, {}, CallBinary<functional::Lt>},
      {"le", {"x", "y"}, {}, CallBinary<functional::Le>},
      {"gt", {"x", "y"}, {}, CallBinary<functional::Gt>},
      {"ge", {"x", "y"}, {}, CallBinary<functional::Ge>},
      // Unary elementwise math.
      {"neg", {"x"}, {}, CallUnary<functional::Neg>},
      {"abs", {"x"}, {}, CallUnary<functional::Abs>},
      {"exp", {"x"}, {}, CallUnary<functional::Exp>},
      {"log", {"x"}, {}, CallUnary<functional::Log>},
      {"sqrt", {"x"}, {}, CallUnary<functional::Sqrt>},
      {"rsqrt", {"x"}, {}, CallUnary<functional::Rsqrt>},
      {"sigmoid", {"x"}, {}, CallUnary<functional::Sigmoid>},
      {"tanh", {"x"}, {}, CallUnary<functional::Tanh>},
      {"relu", {"x"}, {}, CallUnary<functional::Relu>},
      {"gelu",
       {"x"},
       {ArgWithDefault("approximate", std::string("none"))},
       CallWithApproximate<functional::Gelu>},
      {"silu", {"x"}, {}, CallUnary<functional::Silu>},
      {"leaky_relu", {"x"}, {ArgWithDefault("alpha", 0.01)}, CallLeakyRelu},
      // Their gradients: dy with the forward output y or input x.
      {"relu_grad", {"dy", "y"}, {}, CallBinary<functional::ReluGrad>},
      {"sigmoid_grad", {"dy", "y"}, {}, CallBinary<functional::SigmoidGrad>},
      {"tanh_grad", {"dy", "y"}, {}, CallBinary<functional::TanhGrad>},
      {"gelu_grad",
       {"dy", "x"},
       {ArgWithDefault("approximate", std::string("none"))},
       CallGradWithApproximate<functional::GeluGrad>},
      {"silu_grad", {"dy", "x"}, {}, CallBinary<functional::SiluGrad>},
      {"leaky_relu_grad", {"dy", "x"}, {ArgWithDefault("alpha", 0.01)}, CallLeakyReluGrad},
      {"cast", {"x"}, {Arg("dtype", AttrType::kDataType)}, CallCast},
      // alpha * a @ b with torch.matmul's rules (batch dims broadcast).
      {"matmul",
       {"a", "b"},
       {ArgWithDefault("transpose_a", false), ArgWithDefault("transpose_b", false),
        ArgWithDefault("alpha", 1.0)},
       CallMatMul},
      // act(a @ b + bias) as one op; leaky_alpha is leaky_relu's slope.
      {"fused_matmul_bias_act",
       {"a", "b", "bias"},
       {ArgWithDefault("activation", std::string("none")), ArgWithDefault("transpose_a", false),
        ArgWithDefault("transpose_b", false), ArgWithDefault("leaky_alpha", 0.01)},
       CallFusedMatmulBiasAct},
  };
  return functions;
}

namespace {
// An op without a typed call (an op library's, say), called by name with its own attrs. Made
// on first use and kept: FindFunction hands out pointers (map nodes stay put). Locked: thread
// ranks look functions up at the same time.
const FunctionEntry* OpFunction(const OpSchema& schema) {
  static std::mutex mutex;
  static std::map<std::string, FunctionEntry> made;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = made.find(schema.name());
  if (it == made.end()) {
    const std::string op_type = schema.name();
    auto call = [op_type](const std::vector<Tensor>& t, const AttrMap& a) -> Maybe<Tensor> {
      std::vector<Tensor> outputs;
      OFLITE_ASSIGN_OR_RETURN(outputs, functional::Call(op_type, t, a));
      OFLITE_CHECK_OR_RETURN(outputs.size() == 1, NotImplemented)
          << op_type << ": has " << outputs.size() << " outputs; the CLI writes one";
      return outputs[0];
    };
    it = made.emplace(op_type, FunctionEntry{op_type, schema.inputs(), schema.attrs(), call}).first;
  }
  return &it->second;
}
}  // namespace

Maybe<const FunctionEntry*> FindFunction(const std::string& name) {
  std::vector<std::string> known;
  for (const FunctionEntry& f : Functions()) {
    if (f.name == name) {
      return &f;
    }
    known.push_back(f.name);
  }
  const Maybe<const OpSchema*> op = OpRegistry::Global().Find(name);
  if (op.ok()) {
    return OpFunction(*op.value());
  }
  return OFLITE_ERROR(ValueError) << "unknown function '" << name << "' (known: " << Join(known)
                                  << ", or any op `oflite ops` lists)";
}

Maybe<MatMulArgs> GetMatMulArgs(const AttrMap& args) {
  MatMulArgs m;
  OFLITE_ASSIGN_OR_RETURN(m.transpose_a, args.Get<bool>("transpose_a"));
  OFLITE_ASSIGN_OR_RETURN(m.transpose_b, args.Get<bool>("transpose_b"));
  OFLITE_ASSIGN_OR_RETURN(m.alpha, args.Get<double>("alpha"));
  return m;
}

Maybe<AttrMap> ParseArgs(const FunctionEntry& function, const std::vector<std::string>& pairs) {
  AttrMap attrs;
  for (const std::string& pair : pairs) {
    const size_t eq = pair.find('=');
    OFLITE_CHECK_OR_RETURN(eq != std::string::npos && eq > 0, ValueError)
        << function.name << ": --arg '" << pair << "' is not NAME=VALUE";
    const std::string name = pair.substr(0, eq);
    const AttrDef* def = FindAttrDef(function.args, name);
    OFLITE_CHECK_OR_RETURN(def != nullptr, ValueError)
        << function.name << ": unknown argument '" << name
        << "' (arguments: " << Join(AttrNames(function.args)) << ")";
    auto parsed = ParseAttrValue(def->type, pair.substr(eq + 1));
    OFLITE_CHECK_OR_RETURN(parsed.ok(), ValueError)
        << function.name << ": argument '" << name
        << "': " << (parsed.ok() ? "" : parsed.error().message());
    attrs.Set(name, parsed.value());
  }
  for (const AttrDef& def : function.args) {  // say how to give it, in the CLI's own terms
    OFLITE_CHECK_OR_RETURN(attrs.Has(def.name) || def.default_value.has_value(), ValueError)
        << function.name << ": missing argument '" << def.name << "' (" << AttrTypeName(def.type)
        << "), give it with --arg " << def.name << "=VALUE";
  }
  return CompleteAttrs(function.name, function.args, attrs);
}

}  // namespace cli
}  // namespace oflite
