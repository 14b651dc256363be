"""Optimizer: parameter groups, per-parameter state, state_dict round trips, zero_grad.

Subclasses implement ``_update(group, param, grad, state)``; ``step()`` calls it for every
parameter with a gradient, under no_grad, and the update writes into the parameter in place
(so the objects a model holds stay the ones being trained).
"""
import copy

import sampan
from .._C import Tensor


class _IdentityDict:
    """A dict keyed by object identity (tensors compare elementwise, so they cannot be plain
    dict keys safely). ``opt.state[param]`` reads as in PyTorch."""

    def __init__(self):
        self._items = {}

    def __getitem__(self, key):
        return self._items[id(key)][1]

    def __setitem__(self, key, value):
        self._items[id(key)] = (key, value)

    def __contains__(self, key):
        return id(key) in self._items

    def __len__(self):
        return len(self._items)

    def get(self, key, default=None):
        item = self._items.get(id(key))
        return default if item is None else item[1]

    def setdefault(self, key, default):
        if id(key) not in self._items:
            self._items[id(key)] = (key, default)
        return self._items[id(key)][1]

    def items(self):
        return list(self._items.values())

    def clear(self):
        self._items.clear()


class Optimizer:
    """Base class: ``params`` is an iterable of tensors or of dicts (parameter groups, each with
    "params" and optional hyperparameters overriding ``defaults``)."""

    def __init__(self, params, defaults):
        self.defaults = dict(defaults)
        self.state = _IdentityDict()
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError(f"{type(self).__name__}: params must be an iterable of tensors or dicts, got a "
                            "single Tensor (wrap it in a list)")
        groups = list(params)
        if not groups:
            raise ValueError(f"{type(self).__name__} got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, group):
        """Adds a group: {"params": [...], hyperparameter overrides}."""
        if not isinstance(group, dict) or "params" not in group:
            raise TypeError(f"{type(self).__name__}: a parameter group is a dict with a 'params' entry")
        params = group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        for i, p in enumerate(params):
            if not isinstance(p, Tensor):
                raise TypeError(f"{type(self).__name__}: parameter {i} of a group is a {type(p).__name__}, "
                                "not a Tensor")
            if not p.is_leaf:
                raise ValueError(f"{type(self).__name__}: parameter {i} is not a leaf tensor (it was computed "
                                 "from others); optimize leaves such as nn.Parameter")
            if not p.dtype.is_differentiable:
                raise TypeError(f"{type(self).__name__}: parameter {i} has dtype {p.dtype}; only floating "
                                "and complex tensors can be optimized")
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if len({id(p) for p in params}) != len(params) or existing & {id(p) for p in params}:
            raise ValueError(f"{type(self).__name__}: a parameter appears more than once in the parameter groups")
        new_group = dict(self.defaults)
        new_group.update({k: v for k, v in group.items() if k != "params"})
        unknown = set(new_group) - set(self.defaults) - {"initial_lr"}
        if unknown:
            raise TypeError(f"{type(self).__name__}: unknown hyperparameter(s) {sorted(unknown)} "
                            f"(known: {sorted(self.defaults)})")
        new_group["params"] = params
        self._check_group(new_group)
        self.param_groups.append(new_group)

    def _check_group(self, group):
        """Subclasses validate hyperparameters here (ValueError naming the bad one)."""
        if group["lr"] < 0:
            raise ValueError(f"{type(self).__name__}: lr must be >= 0, got {group['lr']}")

    def zero_grad(self, set_to_none=True):
        """Clears every parameter's gradient (to None, or to zeros)."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.grad = None if set_to_none else sampan.zeros_like(p.grad)

    def step(self, closure=None):
        """One update of every parameter that has a gradient. ``closure`` (optional) recomputes
        and returns the loss, with gradients enabled; its value is returned."""
        loss = None
        if closure is not None:
            with sampan.enable_grad():
                loss = closure()
        with sampan.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    grad = p.grad
                    if grad is None:
                        continue
                    self._update(group, p, grad.detach(), self.state.setdefault(p, {}))
        return loss

    def _update(self, group, param, grad, state):
        raise NotImplementedError

    # ---- state dict ----------------------------------------------------------------------------

    def state_dict(self):
        """{"state": {"0": {...}, ...}, "param_groups": [{hyperparameters, "params": [0, 1, ...]}]}:
        parameters are numbered across groups in order; state keys are those numbers as strings
        (so that sampan.save can write the dict). Tensors are references, not copies."""
        numbering = {}
        groups = []
        for group in self.param_groups:
            ids = []
            for p in group["params"]:
                numbering.setdefault(id(p), len(numbering))
                ids.append(numbering[id(p)])
            saved = {k: v for k, v in group.items() if k != "params"}
            saved["params"] = ids
            groups.append(saved)
        state = {}
        for group in self.param_groups:
            for p in group["params"]:
                if p in self.state and self.state[p]:
                    state[str(numbering[id(p)])] = dict(self.state[p])
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restores hyperparameters and state from ``state_dict`` (tensors are copied and
        converted to each parameter's dtype and device). The groups must have the same sizes as now."""
        if not isinstance(state_dict, dict) or "state" not in state_dict or "param_groups" not in state_dict:
            raise ValueError(f"{type(self).__name__}.load_state_dict: expected a dict with 'state' and "
                             "'param_groups' (from Optimizer.state_dict())")
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError(f"{type(self).__name__}.load_state_dict: the state dict has {len(saved_groups)} "
                             f"parameter groups, the optimizer {len(self.param_groups)}")
        for i, (saved, group) in enumerate(zip(saved_groups, self.param_groups)):
            if len(saved["params"]) != len(group["params"]):
                raise ValueError(f"{type(self).__name__}.load_state_dict: group {i} has {len(saved['params'])} "
                                 f"parameters in the state dict, {len(group['params'])} in the optimizer")
        by_number = {}
        for saved, group in zip(saved_groups, self.param_groups):
            for number, p in zip(saved["params"], group["params"]):
                by_number[str(number)] = p
        self.state.clear()
        for key, entry in state_dict["state"].items():
            p = by_number.get(str(key))
            if p is None:
                raise ValueError(f"{type(self).__name__}.load_state_dict: state for parameter {key}, which no "
                                 "group lists")
            self.state[p] = {name: self._restore(value, p) for name, value in entry.items()}
        for saved, group in zip(saved_groups, self.param_groups):
            for k, v in saved.items():
                if k != "params":
                    group[k] = tuple(v) if isinstance(v, list) and isinstance(group.get(k), tuple) else v

    @staticmethod
    def _restore(value, param):
        if isinstance(value, Tensor):
            value = value.detach()
            if value.device != param.device:  # state saved from the CPU goes to a GPU parameter's device
                value = value.to(param.device)
            # Moments take the parameter's dtype; counters (integer tensors) keep theirs.
            if value.dtype.is_differentiable and value.dtype != param.dtype:
                return value.to(param.dtype)
            return value.clone()
        return copy.deepcopy(value)

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(group):
                if k != "params":
                    lines.append(f"    {k}: {group[k]}")
        lines.append(")")
        return "\n".join(lines)
