"""Parameter: a Tensor that a Module registers as one of its trainable values."""
import copy

import sampan
from .._C import Tensor


class Parameter(Tensor):
    """A leaf Tensor that requires grad (when floating) and that ``Module.__setattr__`` registers
    as a parameter: it shows in ``parameters()``, ``state_dict()`` and the module's repr.

    ``Parameter(data)`` shares ``data``'s storage (as ``data.detach()`` does) but is a new leaf
    of the graph. Results of ops on a Parameter are plain Tensors.
    """

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = sampan.empty(0)
        elif not isinstance(data, Tensor):
            data = sampan.tensor(data)
        super().__init__(data.detach())
        if requires_grad and self.dtype.is_differentiable:
            self.requires_grad_(True)

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = Parameter(self.detach().clone(), self.requires_grad)
        if self.grad is not None:
            result.grad = copy.deepcopy(self.grad, memo)
        memo[id(self)] = result
        return result

    def __reduce__(self):  # pickle: values, dtype and the flag, rebuilt as a Parameter
        return (_rebuild_parameter, (Tensor.__reduce__(self), self.requires_grad))


def _rebuild_parameter(tensor_reduce, requires_grad):
    rebuild, args = tensor_reduce
    return Parameter(rebuild(*args), requires_grad)
