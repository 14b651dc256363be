"""Neural-network building blocks (``sp.nn``): Module and Parameter, layers, containers, losses,
initialization (``sp.nn.init``) and the functional forms (``sp.nn.functional``).

Everything is composed of sampan ops, so autograd (including double backward, which force
training needs) works through every layer and loss.
"""
from . import functional, init
from .containers import ModuleDict, ModuleList, Sequential
from .layers import (
    GELU, MLP, BatchNorm1d, Bilinear, Dropout, Embedding, Identity, LayerNorm, LeakyReLU, Linear, ReLU, SiLU,
    Sigmoid, Softmax, Softplus, Tanh, make_activation,
)
from .losses import BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, L1Loss, MSELoss, NLLLoss
from .module import Module
from .parameter import Parameter
from . import utils

__all__ = [
    "Module", "Parameter", "Sequential", "ModuleList", "ModuleDict", "Identity", "Linear", "Bilinear",
    "Embedding", "LayerNorm", "BatchNorm1d", "Dropout", "ReLU", "GELU", "SiLU", "Tanh", "Sigmoid", "Softplus",
    "LeakyReLU", "Softmax", "MLP", "make_activation", "MSELoss", "L1Loss", "HuberLoss", "BCEWithLogitsLoss",
    "CrossEntropyLoss", "NLLLoss", "functional", "init", "utils",
]
