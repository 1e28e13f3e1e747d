"""tc.nn.utils.rnn, as torch.nn.utils.rnn: PackedSequence and the packing and padding
helpers. Their code is in tc/nn/utils_rnn.py (next to modules_rnn.py, which uses it)."""
from ..utils_rnn import (PackedSequence, __all__, invert_permutation, pack_padded_sequence,  # noqa: F401
                         pack_sequence, pad_packed_sequence, pad_sequence, unpack_sequence, unpad_sequence)
