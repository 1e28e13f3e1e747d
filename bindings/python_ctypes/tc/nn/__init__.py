"""tc.nn: modules with parameters, like torch.nn."""
from . import functional, init, utils
from .modules import (AvgPool2d, Conv2d, Dropout, Embedding, Flatten, GELU, Identity,
                      LayerNorm, Linear, MaxPool2d, Module, ModuleList, MSELoss, Parameter, ReLU,
                      RMSNorm, Sequential, Sigmoid, Softmax, LogSoftmax, Tanh)
from .modules import GLU, PReLU  # noqa: E402

__all__ = ["functional", "init", "utils", "LayerNorm", "RMSNorm", "Module", "Parameter", "Linear", "Conv2d", "ReLU", "GELU", "Tanh",
           "Sigmoid", "Sequential", "ModuleList", "Dropout", "Flatten", "Identity", "Embedding",
           "MaxPool2d", "AvgPool2d", "Softmax", "LogSoftmax", "CrossEntropyLoss", "NLLLoss", "MSELoss", "GLU", "PReLU"]

from .modules_loss import (BCELoss, BCEWithLogitsLoss, CosineSimilarity, CrossEntropyLoss, HuberLoss,  # noqa: E402
                           KLDivLoss, L1Loss, NLLLoss, PairwiseDistance, SmoothL1Loss)
from .containers import ModuleDict, ParameterDict, ParameterList  # noqa: E402
from .modules_attention import (MultiheadAttention, TransformerEncoder,  # noqa: E402
                                TransformerEncoderLayer)

__all__ += ["BCELoss", "BCEWithLogitsLoss", "CosineSimilarity", "HuberLoss", "KLDivLoss", "L1Loss",
            "PairwiseDistance", "SmoothL1Loss", "ModuleDict", "ParameterDict", "ParameterList",
            "MultiheadAttention", "TransformerEncoder", "TransformerEncoderLayer"]

# Activations generated from the op table (ops/ops.toml: nn_module), e.g. Softplus.
from .. import _ops_generated as _gen  # noqa: E402
from . import modules as _modules  # noqa: E402

globals().update({_c: getattr(_modules, _c) for _c, _, _ in _gen.NN_MODULES})
__all__ += [_c for _c, _, _ in _gen.NN_MODULES]

from . import parallel  # noqa: E402,F401  (tc.nn.parallel.DistributedDataParallel)

# The layer modules (norms, 1-D/transposed convolutions, pooling, resampling);
# Conv2d, MaxPool2d, AvgPool2d and Embedding there extend the forms above.
from . import modules_layers as _layers  # noqa: E402

globals().update({_c: getattr(_layers, _c) for _c in _layers.__all__})
__all__ += [_c for _c in _layers.__all__ if _c not in __all__]

# ---- more losses (modules_loss_more.py: the margin, embedding, ranking,
# triplet, likelihood and CTC loss modules; modules_adaptive.py:
# AdaptiveLogSoftmaxWithLoss and the deprecated Container).
from . import modules_adaptive as _adaptive  # noqa: E402
from . import modules_loss_more as _losses_more  # noqa: E402

for _m in (_losses_more, _adaptive):
    globals().update({_c: getattr(_m, _c) for _c in _m.__all__})
    __all__ += [_c for _c in _m.__all__ if _c not in __all__]

# ---- more layers of torch.nn 1.13 (padding, 3-D, window, misc, lazy, SyncBatchNorm,
# DataParallel): tc/nn/modules_pad.py, modules_3d.py, modules_misc.py, modules_lazy.py,
# modules_data_parallel.py.
from . import modules_pad as _pad_mods, modules_3d as _mods_3d  # noqa: E402
from . import modules_misc as _misc_mods, modules_lazy as _lazy_mods  # noqa: E402
from . import modules_data_parallel as _dp_mods  # noqa: E402

for _m in (_pad_mods, _mods_3d, _misc_mods, _lazy_mods, _dp_mods):
    globals().update({_c: getattr(_m, _c) for _c in _m.__all__})
    __all__ += [_c for _c in _m.__all__ if _c not in __all__]
del _m

# The transformer modules (tc/nn/modules_transformer.py): the encoder and
# decoder layers and stacks and nn.Transformer; MultiheadAttention stays in
# modules_attention.
from .modules_transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,  # noqa: E402
                                  TransformerEncoder, TransformerEncoderLayer)

__all__ += ["Transformer", "TransformerDecoder", "TransformerDecoderLayer"]

# ---- recurrent layers (modules_rnn.py; packing helpers in utils_rnn.py, as tc.nn.utils.rnn)
from .modules_rnn import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell, RNNCellBase  # noqa: E402

__all__ += ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
# ---- end recurrent layers

# ---- nn.Embedding.from_pretrained (embedding_pretrained.py)
from .embedding_pretrained import from_pretrained as _embedding_from_pretrained  # noqa: E402

Embedding.from_pretrained = classmethod(_embedding_from_pretrained)
del _embedding_from_pretrained
# ---- end nn.Embedding.from_pretrained

# ---- nn.Linear's device/dtype arguments (_linear_factory_kwargs.py) ------------------------------
from . import _linear_factory_kwargs as _linear_factory_kwargs  # noqa: E402

_linear_factory_kwargs.install()
# ---- end of nn.Linear's device/dtype block ---------------------------------------------------------

# ---- the rest of ModuleList's list interface (_module_list_methods.py) ---------------------------
from . import _module_list_methods as _module_list_methods  # noqa: E402

_module_list_methods.install()
# ---- end of the ModuleList block -------------------------------------------------------------------
