"""Module: the base class of layers and models.

Assigning a Parameter, a Module or (after ``register_buffer``) a Tensor to an attribute registers
it, so that ``parameters()``, ``state_dict()``, ``train()``/``eval()`` and ``to()`` reach the
whole tree without any bookkeeping in subclasses::

    class Net(sp.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = sp.nn.Linear(3, 8)
            self.head = sp.nn.Linear(8, 1)
        def forward(self, x):
            return self.head(sp.relu(self.body(x)))
"""
from collections import namedtuple

import sampan
from .._C import Tensor
from .parameter import Parameter

IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


def _addindent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module:
    """Base class of everything with parameters, buffers or submodules. Subclasses call
    ``super().__init__()`` first and define ``forward``; calling the module calls ``forward``."""

    def __init__(self):
        # Set through object.__setattr__: our own __setattr__ looks these dicts up.
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers", set())
        object.__setattr__(self, "_modules", {})

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} does not define forward()")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    # ---- registration ------------------------------------------------------------------------

    def _check_initialized(self, what):
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {what} before {type(self).__name__}.__init__() called "
                                 "super().__init__()")

    def _forget(self, name):
        """Removes `name` from every registry and from the instance dict."""
        for registry in (self.__dict__.get("_parameters"), self.__dict__.get("_buffers"),
                         self.__dict__.get("_modules")):
            if registry is not None:
                registry.pop(name, None)
        self.__dict__.get("_non_persistent_buffers", set()).discard(name)
        self.__dict__.pop(name, None)

    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        buffers = self.__dict__.get("_buffers")
        modules = self.__dict__.get("_modules")
        if isinstance(value, Parameter):
            self._check_initialized("parameters")
            self._forget(name)
            params[name] = value
        elif isinstance(value, Module):
            self._check_initialized("submodules")
            self._forget(name)
            modules[name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign a {type(value).__name__} to parameter '{name}' of "
                                f"{type(self).__name__} (expected a sampan.nn.Parameter or None)")
            params[name] = None
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign a {type(value).__name__} to submodule '{name}' of "
                                f"{type(self).__name__} (expected a Module or None)")
            modules[name] = None
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign a {type(value).__name__} to buffer '{name}' of "
                                f"{type(self).__name__} (expected a Tensor or None)")
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        # Only called when normal lookup fails: parameters, buffers and submodules live in dicts.
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry in d and name in d[registry]:
                return d[registry][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry in d and name in d[registry]:
                del d[registry][name]
                d["_non_persistent_buffers"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers) | set(self._modules))

    @staticmethod
    def _check_name(name, kind):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name must be a str, got {type(name).__name__}")
        if not name or "." in name:
            raise KeyError(f"{kind} name must be non-empty and contain no '.', got '{name}'")

    def register_parameter(self, name, param):
        """Registers ``param`` (a Parameter, or None for an absent optional one) as ``name``."""
        self._check_initialized("parameters")
        self._check_name(name, "parameter")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"register_parameter('{name}'): expected a sampan.nn.Parameter or None, "
                            f"got {type(param).__name__}")
        self._forget(name)
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Registers a Tensor that is state but not a parameter (running statistics, ...):
        ``to()`` converts it, and ``state_dict()`` holds it unless ``persistent=False``."""
        self._check_initialized("buffers")
        self._check_name(name, "buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer('{name}'): expected a Tensor or None, got {type(tensor).__name__}")
        self._forget(name)
        self._buffers[name] = tensor
        if not persistent:
            self._non_persistent_buffers.add(name)

    def add_module(self, name, module):
        """Registers ``module`` (or None) as submodule ``name``."""
        self._check_initialized("submodules")
        self._check_name(name, "module")
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"add_module('{name}'): expected a Module or None, got {type(module).__name__}")
        self._forget(name)
        self._modules[name] = module

    register_module = add_module

    # ---- traversal ---------------------------------------------------------------------------

    def named_modules(self, prefix="", memo=None, remove_duplicate=True):
        """(qualified name, module) for this module and every descendant, depth first."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(f"{prefix}.{name}" if prefix else name, memo, remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, registry, prefix, recurse, remove_duplicate=True):
        seen = set()
        modules = self.named_modules(prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in getattr(module, registry).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield (f"{module_prefix}.{name}" if module_prefix else name), value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(qualified name, Parameter) pairs; a parameter shared by two modules appears once."""
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def num_parameters(self, trainable_only=False):
        """Total number of parameter elements (only those requiring grad when asked)."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad or not trainable_only)

    # ---- modes and gradients -----------------------------------------------------------------

    def train(self, mode=True):
        """Training mode (dropout active, batch statistics) for this module and its descendants."""
        if not isinstance(mode, bool):
            raise TypeError(f"train(mode): mode must be a bool, got {type(mode).__name__}")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self):
        """Evaluation mode: dropout is the identity, normalization uses running statistics."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Clears the gradients of all parameters (to None, or to zeros in place)."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                with sampan.no_grad():
                    p.grad = sampan.zeros_like(p.grad)

    # ---- conversion --------------------------------------------------------------------------

    def apply(self, fn):
        """Calls ``fn(module)`` on every descendant, then on this module; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, dtype=None, device=None):
        """Moves and/or converts the parameters and buffers, as ``Tensor.to`` takes its arguments:
        ``model.to("cuda")``, ``model.to(sp.float64)``, ``model.to("cuda", sp.float32)``.
        Floating (and complex) ones take the dtype; integer buffers (counters) keep theirs and
        only move. Parameters are replaced by new Parameter objects, one per shared parameter
        (tied weights stay tied): create the optimizer after converting. Every copy is made
        before any is installed, so an error (no GPU, say) leaves the module as it was."""
        from .._tensor import parse_to_arguments
        dtype, device = parse_to_arguments(args, dtype, device, "Module.to")
        target = None if dtype is None else sampan.dtype(dtype)

        def converted(t):
            out = t.detach()
            if target is not None and out.dtype.is_differentiable and out.dtype != target:
                out = out.to(target)  # on the CPU, before the copy, when both change
            if device is not None and out.device != device:
                out = out.to(device)
            return out

        replaced = {}  # id of a tensor -> its replacement (shared tensors convert once)
        plan = []      # (registry, name, replacement), installed when every copy succeeded
        with sampan.no_grad():
            for module in self.modules():
                for registry, as_parameter in ((module._parameters, True), (module._buffers, False)):
                    for name, t in registry.items():
                        if t is None:
                            continue
                        if id(t) not in replaced:
                            new = converted(t)
                            changed = new.dtype != t.dtype or new.device != t.device
                            replaced[id(t)] = (Parameter(new, t.requires_grad) if as_parameter else new) if changed else t
                        if replaced[id(t)] is not t:
                            plan.append((registry, name, replaced[id(t)]))
        for registry, name, value in plan:
            registry[name] = value
        return self

    def cuda(self):
        """``to("cuda")``: parameters and buffers on cuda:0."""
        return self.to("cuda")

    def cpu(self):
        """``to("cpu")``."""
        return self.to("cpu")

    def double(self):
        return self.to(sampan.float64)

    def float(self):
        return self.to(sampan.float32)

    # ---- state -------------------------------------------------------------------------------

    def state_dict(self, prefix="", keep_vars=False):
        """An ordered dict from qualified names ("body.weight") to the tensors of every parameter
        and persistent buffer. Values share storage with the module (detached unless keep_vars);
        ``sampan.save(model.state_dict(), path)`` writes a checkpoint."""
        out = {}
        # Every path to a shared submodule gets its keys (as PyTorch), so loading fills them all.
        for module_prefix, module in self.named_modules(prefix.rstrip("."), remove_duplicate=False):
            for name, p in module._parameters.items():
                if p is not None:
                    out[f"{module_prefix}.{name}" if module_prefix else name] = p if keep_vars else p.detach()
            for name, b in module._buffers.items():
                if b is not None and name not in module._non_persistent_buffers:
                    out[f"{module_prefix}.{name}" if module_prefix else name] = b if keep_vars else b.detach()
        return out

    def load_state_dict(self, state_dict, strict=True):
        """Copies values from ``state_dict`` into the parameters and buffers (converted to their
        dtypes). With ``strict``, keys must match exactly; shapes must always match. Every
        problem is reported at once (RuntimeError); nothing is copied unless all is well.
        Returns (missing_keys, unexpected_keys)."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"load_state_dict: expected a dict, got {type(state_dict).__name__}")
        targets = {}  # key -> (module, registry name, entry name)
        for module_prefix, module in self.named_modules(remove_duplicate=False):
            for registry in ("_parameters", "_buffers"):
                for name, value in getattr(module, registry).items():
                    if value is None or (registry == "_buffers" and name in module._non_persistent_buffers):
                        continue
                    targets[f"{module_prefix}.{name}" if module_prefix else name] = (module, registry, name)
        missing = [k for k in targets if k not in state_dict]
        unexpected = [k for k in state_dict if k not in targets]
        problems = []
        for key, (module, registry, name) in targets.items():
            if key not in state_dict:
                continue
            value, current = state_dict[key], getattr(module, registry)[name]
            if not isinstance(value, Tensor):
                problems.append(f"'{key}': expected a Tensor, got {type(value).__name__}")
            elif tuple(value.shape) != tuple(current.shape):
                problems.append(f"'{key}': shape {tuple(value.shape)} in the state dict, "
                                f"{tuple(current.shape)} in the model")
        if strict:
            if missing:
                problems.insert(0, "missing keys: " + ", ".join(f"'{k}'" for k in missing))
            if unexpected:
                problems.insert(1 if missing else 0, "unexpected keys: " + ", ".join(f"'{k}'" for k in unexpected))
        if problems:
            raise RuntimeError(f"error loading the state dict into {type(self).__name__}:\n  " + "\n  ".join(problems))
        with sampan.no_grad():
            for key, (module, registry, name) in targets.items():
                if key in state_dict:
                    target, value = getattr(module, registry)[name], state_dict[key]
                    if isinstance(value, sampan.Tensor) and value.device != target.device:
                        value = value.to(target.device)  # e.g. a CPU checkpoint into a model on the GPU
                    sampan.copy_(target, value)
        return IncompatibleKeys(missing, unexpected)

    # ---- printing ----------------------------------------------------------------------------

    def extra_repr(self):
        """The text inside this module's parentheses in repr (subclasses describe themselves)."""
        return ""

    def __repr__(self):
        lines = []
        extra = self.extra_repr()
        if extra:
            lines.extend(extra.split("\n"))
        for name, module in self._modules.items():
            lines.append(f"({name}): " + _addindent(repr(module), 2))
        main = type(self).__name__ + "("
        if not lines:
            return main + ")"
        if len(lines) == 1 and not self._modules:
            return main + lines[0] + ")"
        return main + "\n  " + "\n  ".join(lines) + "\n)"
