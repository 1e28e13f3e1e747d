"""placeholder"""


def install(namespace, tensor_class):
    """placeholder"""
