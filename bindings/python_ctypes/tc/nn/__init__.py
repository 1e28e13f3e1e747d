"""tc.nn: modules with parameters, like torch.nn."""
from . import functional, init
from .modules import (AvgPool2d, Conv2d, CrossEntropyLoss, Dropout, Embedding, Flatten, GELU, Identity,
                      Linear, MaxPool2d, Module, ModuleList, MSELoss, NLLLoss, Parameter, ReLU,
                      Sequential, Sigmoid, Softmax, LogSoftmax, Tanh)

__all__ = ["functional", "init", "Module", "Parameter", "Linear", "Conv2d", "ReLU", "GELU", "Tanh",
           "Sigmoid", "Sequential", "ModuleList", "Dropout", "Flatten", "Identity", "Embedding",
           "MaxPool2d", "AvgPool2d", "Softmax", "LogSoftmax", "CrossEntropyLoss", "NLLLoss", "MSELoss"]
