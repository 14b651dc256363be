"""Containers: Sequential, ModuleList, ModuleDict (submodules registered under "0", "1", ... or
their keys, so state dict names read "layers.0.weight")."""
import operator

from .module import Module


class Sequential(Module):
    """Calls its modules in order, each on the previous one's output.
    ``Sequential(a, b, c)`` or ``Sequential({"name": a, ...})`` (named children)."""

    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], dict):
            for name, module in modules[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(modules):
                self.add_module(str(i), module)

    def forward(self, x):
        for module in self._modules.values():
            x = module(x)
        return x

    def _key(self, index):
        keys = list(self._modules)
        i = operator.index(index)
        if not -len(keys) <= i < len(keys):
            raise IndexError(f"{type(self).__name__} index {i} out of range for {len(keys)} modules")
        return keys[i % len(keys)]

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(dict(list(self._modules.items())[index]))
        return self._modules[self._key(index)]

    def __setitem__(self, index, module):
        self.add_module(self._key(index), module)

    def __delitem__(self, index):
        if isinstance(index, slice):
            for key in list(self._modules)[index]:
                del self._modules[key]
        else:
            del self._modules[self._key(index)]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self


class ModuleList(Module):
    """A list of modules, registered as children "0", "1", ... (it has no forward)."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _key(self, index):
        i = operator.index(index)
        n = len(self._modules)
        if not -n <= i < n:
            raise IndexError(f"ModuleList index {i} out of range for {n} modules")
        return str(i % n)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return ModuleList(list(self._modules.values())[index])
        return self._modules[self._key(index)]

    def __setitem__(self, index, module):
        self.add_module(self._key(index), module)

    def __delitem__(self, index):
        modules = list(self._modules.values())
        del modules[index]
        self._modules.clear()
        self.extend(modules)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def extend(self, modules):
        for module in modules:
            self.append(module)
        return self

    def insert(self, index, module):
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules.clear()
        self.extend(modules)


class ModuleDict(Module):
    """An ordered dict of named modules (it has no forward)."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    def update(self, modules):
        items = modules.items() if hasattr(modules, "items") else modules
        for key, module in items:
            self.add_module(key, module)

    def pop(self, key):
        return self._modules.pop(key)
