# Computes the expected values of tests/gtest/test_nn_layers.cpp with PyTorch 1.13
# (run: /usr/bin/python3 tests/gtest/nn_layers_expected.py); inputs are sin(a*i+b) sequences.
import torch, math
torch.set_default_dtype(torch.float64)
F = torch.nn.functional
def seq(shape, a=0.37, b=0.1):
    n = math.prod(shape)
    return torch.tensor([math.sin(a * i + b) for i in range(n)]).reshape(shape)
def fmt(name, t):
    v = t.detach().flatten().tolist()
    print("const std::vector<double> %s = {%s};" % (name, ", ".join(repr(float(x)) for x in v)))
x = seq((2, 3, 2)); w = seq((3,), 0.5, 1.0); b = seq((3,), 0.9, 0.2)
rm = torch.zeros(3); rv = torch.ones(3)
fmt("kBatchNormY", F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.1, eps=1e-5)); fmt("kBatchNormRm", rm); fmt("kBatchNormRv", rv)
x = seq((2, 4, 3)); w = seq((4,), 0.5, 1.0); b = seq((4,), 0.9, 0.2)
fmt("kGroupNormY", F.group_norm(x, 2, w, b, 1e-5))
x = seq((1, 2, 3, 3)); w = seq((2, 3, 2, 2), 0.23, 0.4); b = seq((3,), 0.9, 0.2)
fmt("kConvTY", F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1))
x = seq((1, 1, 5, 5), 1.3, 0.2)
v, i = F.max_pool2d(x, 3, 2, 1, ceil_mode=True, return_indices=True); fmt("kMaxPoolY", v); fmt("kMaxPoolI", i.double())
x6 = seq((1, 1, 6, 5), 1.3, 0.2)
v, i = F.max_pool2d(x6, 2, (2, 1), 0, dilation=(2, 2), ceil_mode=True, return_indices=True); print("// shape", tuple(v.shape)); fmt("kMaxPoolDilY", v); fmt("kMaxPoolDilI", i.double())
fmt("kAvgPoolY", F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False))
x = seq((1, 1, 5, 7), 0.7, 0.3)
fmt("kAdaptiveAvgY", F.adaptive_avg_pool2d(x, (2, 3)))
v, i = F.adaptive_max_pool2d(x, (3, 2), return_indices=True); fmt("kAdaptiveMaxY", v); fmt("kAdaptiveMaxI", i.double())
x = seq((1, 1, 3, 4), 0.7, 0.3)
fmt("kBilinearY", F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=False))
fmt("kBilinearAlignY", F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True))
y = F.interpolate(x, scale_factor=1.7, mode="nearest"); print("// shape", tuple(y.shape)); fmt("kNearestY", y)
x = seq((1, 8, 2, 1)); fmt("kPixelShuffleY", F.pixel_shuffle(x, 2))
x = seq((2, 3, 4), 0.7, 0.3); w = seq((3,), 0.5, 1.0); b = seq((3,), 0.9, 0.2); rm = torch.zeros(3); rv = torch.ones(3)
fmt("kInstanceNormY", F.instance_norm(x, rm, rv, w, b, use_input_stats=True, momentum=0.2)); fmt("kInstanceNormRm", rm); fmt("kInstanceNormRv", rv)
