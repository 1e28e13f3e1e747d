"""nn.Embedding.from_pretrained (PyTorch's classmethod): an Embedding whose
table is a given 2-D tensor, frozen by default. Attached to tc.nn.Embedding
at the end of tc/nn/__init__.py."""
from .modules import Parameter


def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                    scale_grad_by_freq=False, sparse=False):
    """Creates an Embedding instance from a 2-dimensional tensor.

    Args:
        embeddings (Tensor): the table, [num_embeddings, embedding_dim]; the
            module's weight is a Parameter sharing its memory.
        freeze (bool): the table gets no gradient (weight.requires_grad is
            False). Default: True.
        padding_idx (int, optional): a row that gets no gradient (it keeps
            the given values; it is not zeroed).
        max_norm, norm_type, scale_grad_by_freq, sparse: only their defaults
            (None, 2.0, False, False): tc's Embedding has no such options.

    Returns:
        Embedding: the module.
    """
    assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("torch.nn.Embedding.from_pretrained(max_norm=..., scale_grad_by_freq=True or "
                                  "sparse=True) is not implemented in tc")
    rows, cols = embeddings.shape
    embedding = cls(rows, cols) if padding_idx is None else cls(rows, cols, padding_idx=padding_idx)
    # PyTorch passes the table as _weight: the Parameter shares its memory
    # and the padding row is not zeroed
    embedding.weight = Parameter(embeddings)
    embedding.norm_type = norm_type
    embedding.weight.requires_grad = not freeze
    return embedding
