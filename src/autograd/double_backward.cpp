// Which nodes can be differentiated twice: the nodes whose backward formulas,
// run with grad mode on (a backward pass with create_graph), compute their
// results with recorded ops, reading saved outputs through
// output_with_graph. The engine marks the results of every other node under
// create_graph (engine.cpp, NotImplementedBackward), so that a second
// differentiation through it fails with TC_ERR_NOT_IMPLEMENTED naming the
// node instead of giving a silent zero. A name joins this list only with a
// test that differentiates it twice against finite differences and PyTorch
// (tests/python/test_double_backward*.py).
#include <cstring>

#include "autograd/engine.h"
#include "ops/ew_grad_composed.h"

namespace tc::autograd {
namespace {

constexpr const char* kDifferentiable[] = {
    // views and copies (ops/views.cpp), and the nodes their formulas record
    "ViewBackward",
    "ReshapeBackward",
    "PermuteBackward",
    "TransposeBackward",
    "SqueezeBackward",
    "UnsqueezeBackward",
    "ExpandBackward",
    "CloneBackward",
    "ToCopyBackward",
    "NarrowBackward",
    "NarrowBackwardBackward",
    "SliceBackward",
    "SliceBackwardBackward",
    "SelectBackward",
    "SelectBackwardBackward",
    // reductions (ops/reduce.cpp)
    "SumBackward",
    "MeanBackward",
    "LogsumexpBackward",
    "MaxBackward",
    "MinBackward",
    "MaxBackwardBackward",
    // (ops/reduce.cpp, ops/reduce_more.cpp: the input, and the output through
    // output_with_graph, are saved for the recorded formulas)
    "VarBackward",
    "StdBackward",
    "ProdBackward",  // an n x n form per row with zeros; past 2^24 elements, marked
    "NormBackward",
    "AmaxBackward",
    "AminBackward",
    // scans (ops/scan.cpp, ops/transformer.cpp); cumprod with a zero takes
    // PyTorch's O(n^2) form
    "CumsumBackward",
    "CumprodBackward",
    "LogcumsumexpBackward",
    // values picked at saved indices (ops/sort.cpp, ops/scan.cpp, topk in
    // ops/transformer.cpp) and their gradient's node (ops/pick_grad.h)
    "SortBackward",
    "TopkBackward",
    "KthvalueBackward",
    "MedianBackward",
    "ModeBackward",
    "CummaxBackward",
    "CumminBackward",
    "PickBackwardBackward",
    // triangles, diagonals, padding, pieces (ops/transformer.cpp,
    // ops/shape_creation.cpp, ops/shape.cpp)
    "TrilBackward",
    "TriuBackward",
    "DiagonalBackward",
    "DiagonalBackwardBackward",
    "DiagEmbedBackward",
    "ConstantPadNdBackward",
    "SplitBackward",
    "UnbindBackward",
    "IndexPutBackward",
    "ScatterReduceBackward",  // (ops/scatter.cpp) prod: src with two zeros in one place is marked
    // complex views and FFTs (ops/complex.cpp, ops/fft.cpp): their formulas
    // are the adjoint views and transforms, recorded
    "ViewAsRealBackward",
    "ViewAsComplexBackward",
    "FftC2CBackward",
    "FftR2CBackward",
    "FftC2RBackward",
    // the fused recurrent layers (ops/rnn_fused_layer.cpp: the composed
    // layer of ops/rnn.cpp differentiated under create_graph)
    "RnnTanhBackward",
    "RnnReluBackward",
    "LstmBackward",
    "GruBackward",
    // adaptive pooling (ops/adaptive_pool.cpp)
    "AdaptiveAvgPool1DBackward",
    "AdaptiveAvgPool2DBackward",
    "AdaptiveAvgPoolBackwardBackward",
    "AdaptiveMaxPool1DBackward",
    "AdaptiveMaxPool2DBackward",
    "AdaptiveMaxPoolBackwardBackward",
    // concatenation and indexing (ops/shape.cpp, ops/indexing.cpp)
    "CatBackward",
    "GatherBackward",
    "GatherBackwardBackward",
    "IndexSelectBackward",
    "IndexSelectBackwardBackward",
    "IndexBackward",
    "IndexBackwardBackward",
    // elementwise nodes written by hand (ops/elementwise.cpp); the table's
    // rows come from has_composed_grad
    "RsubBackward",
    "ClampBackward",
    "WhereBackward",
    // products (ops/linalg.cpp)
    "MmBackward",
    "DotBackward",
    "MvBackward",
    "MatmulBackward",
    "LinearBackward",
    // linalg (ops/linalg_lapack.cpp: formulas in recorded ops in
    // linalg_backward.cpp, saved outputs read through output_with_graph); a
    // singular det's gradient is the SVD's cofactor, recorded
    "LinalgInvExBackward0",
    "LinalgDetBackward0",
    "LinalgSlogdetBackward0",
    "LinalgSolveExBackward0",
    "LinalgSolveTriangularBackward0",
    "LinalgCholeskyExBackward0",
    "LinalgLuFactorExBackward0",
    "LinalgLuBackward0",
    "LinalgLuSolveBackward0",
    "LinalgQrBackward0",
    // svdvals', eigvalsh' and eigvals' nodes have the vectors as unreturned
    // outputs (as PyTorch's, which call the full decompositions under grad)
    "LinalgSvdBackward0",
    "LinalgEighBackward0",
    // (ops/linalg_more.cpp; lstsq's formula reads the pseudo-inverse, recorded
    // with its own node)
    "LinalgEigBackward0",
    "LinalgHouseholderProductBackward0",
    "LinalgLstsqBackward0",
    "LinalgPinvBackward0",
    // softmax, losses, dropout, embedding (ops/nn.cpp)
    "SoftmaxBackward",
    "CausalSoftmaxBackward",  // (ops/transformer.cpp)
    "LogSoftmaxBackward",
    "CrossEntropyBackward",
    "NllLossBackward",
    "NllLossBackwardBackward",
    "MseLossBackward",
    "DropoutBackward",
    "EmbeddingBackward",
    "EmbeddingBackwardBackward",
    // normalisations (ops/transformer.cpp, ops/norm_layers.cpp: their forward
    // in recorded ops, differentiated)
    "LayerNormBackward",
    "RmsNormBackward",
    "NativeBatchNormBackward",
    "NativeGroupNormBackward",
    // convolution and pooling (ops/conv.cpp)
    "ConvolutionBackward",
    "MaxPool2DBackward",
    "MaxPool2DBackwardBackward",
    "AvgPool2DBackward",
    "AvgPool2DBackwardBackward",
};

}  // namespace

bool has_double_backward(const char* name) {
  for (const char* n : kDifferentiable)
    if (std::strcmp(n, name) == 0) return true;
  return ops::composed::has_composed_grad(name);
}

}  // namespace tc::autograd
