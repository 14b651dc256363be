"""The keys of a DeePMD-kit input.json that sampan knows: ONE table per section.

Each section lists DeePMD-kit's own key names (docs: "Training parameters", dargs of
deepmd/utils/argcheck.py) as USED (sampan reads it), IGNORED (DeePMD-kit has it, sampan accepts
it and does not act on it: settings that do not change the model's numbers), ONLY(default) (a
feature sampan lacks: accepted at DeePMD-kit's default, refused otherwise rather than silently
giving another model) or an alias of another key (DeePMD-kit's alias; renamed on load);
REQUIRED keys are used and must be given (when their section is).
Any key starting with "_" is a comment (DeePMD-kit's "_comment"). An unknown key is an error
naming its path and the nearest valid key.
"""
import copy
import difflib
import json
import re

USED = "used"
REQUIRED = "required"
IGNORED = "ignored"


def alias(name):
    return ("alias", name)


def only(value):
    """A key DeePMD-kit has whose other values change the model or the loss in ways sampan does not
    implement: accepted at DeePMD-kit's default `value`, an error naming it otherwise."""
    return ("only", value)


SECTIONS = {
    "": {
        "model": REQUIRED, "learning_rate": USED, "loss": USED, "training": REQUIRED,
        "nvnmd": IGNORED, "optimizer": IGNORED, "loss_dict": IGNORED,
    },
    "model": {
        "type_map": REQUIRED, "descriptor": REQUIRED, "fitting_net": REQUIRED, "data_stat_nbatch": USED,
        "type": only("standard"), "data_stat_protect": only(0.01), "data_bias_nsample": IGNORED,
        "type_embedding": only(None), "modifier": only(None), "compress": IGNORED, "spin": only(None),
        "use_srtab": only(None),
        "smin_alpha": IGNORED, "sw_rmin": IGNORED, "sw_rmax": IGNORED, "srtab_add_bias": IGNORED,
        "pair_exclude_types": only([]), "atom_exclude_types": only([]), "preset_out_bias": only(None),
        "finetune_head": IGNORED, "out_bias": IGNORED, "model_dict": only(None),
    },
    "model.descriptor": {
        "type": USED, "sel": REQUIRED, "rcut": REQUIRED, "rcut_smth": REQUIRED, "neuron": USED, "axis_neuron": USED,
        "activation_function": USED, "resnet_dt": USED, "type_one_side": USED, "seed": USED,
        "precision": IGNORED, "trainable": only(True), "exclude_types": only([]), "env_protection": only(0.0),
        "set_davg_zero": only(False), "tebd_input_mode": IGNORED, "spin": only(None),
        "n_axis_neuron": alias("axis_neuron"),
    },
    "model.fitting_net": {
        "type": USED, "neuron": USED, "resnet_dt": USED, "activation_function": USED, "seed": USED,
        "precision": IGNORED, "trainable": only(True), "numb_fparam": only(0), "numb_aparam": only(0),
        "rcond": IGNORED, "atom_ener": only([]), "layer_name": only(None), "use_aparam_as_mask": only(False),
        "dim_case_embd": only(0), "default_fparam": only(None), "seed_mode": IGNORED,
        "n_neuron": alias("neuron"),
    },
    "learning_rate": {
        "type": USED, "start_lr": USED, "stop_lr": USED, "decay_steps": USED,
        "scale_by_worker": IGNORED, "decay_rate": only(None), "warmup_steps": only(0), "warmup_ratio": only(None),
        "warmup_start_factor": IGNORED, "smooth": only(False),
    },
    "loss": {
        "type": USED, "start_pref_e": USED, "limit_pref_e": USED, "start_pref_f": USED, "limit_pref_f": USED,
        "start_pref_v": USED, "limit_pref_v": USED,
        "start_pref_ae": only(0.0), "limit_pref_ae": only(0.0), "start_pref_pf": only(0.0), "limit_pref_pf": only(0.0),
        "start_pref_gf": only(0.0), "limit_pref_gf": only(0.0), "numb_generalized_coord": only(0),
        "relative_f": only(None), "enable_atom_ener_coeff": only(False), "use_l1_all": only(False),
        "inference": IGNORED, "use_huber": only(False), "huber_delta": IGNORED, "f_use_norm": only(False),
    },
    "training": {
        "training_data": USED, "validation_data": USED, "numb_steps": REQUIRED, "seed": USED, "disp_file": USED,
        "disp_freq": USED, "save_freq": USED, "save_ckpt": USED,
        # the pre-2.0 layout: the data keys directly in "training"
        "systems": USED, "batch_size": USED, "set_prefix": IGNORED,
        "stop_batch": alias("numb_steps"),
        "max_ckpt_keep": IGNORED, "change_bias_after_training": IGNORED, "disp_training": IGNORED,
        "time_training": IGNORED, "profiling": IGNORED, "profiling_file": IGNORED, "enable_profiler": IGNORED,
        "tensorboard": IGNORED, "tensorboard_log_dir": IGNORED, "tensorboard_freq": IGNORED,
        "mixed_precision": only(None), "opt_type": only("Adam"), "gradient_max_norm": only(None), "numb_test": IGNORED,
        "stat_file": IGNORED, "data_dict": only(None), "model_prob": only(None), "warmup_steps": only(0),
        "zero_stage": IGNORED, "disp_avg": IGNORED,
    },
    "training.training_data": {
        "systems": REQUIRED, "batch_size": USED,
        "auto_prob": IGNORED, "sys_probs": IGNORED, "rglob_patterns": IGNORED, "set_prefix": IGNORED,
        "numb_btch": IGNORED, "auto_prob_style": alias("auto_prob"),
    },
    "training.validation_data": {
        "systems": REQUIRED, "numb_btch": USED,
        "batch_size": IGNORED, "auto_prob": IGNORED, "sys_probs": IGNORED, "rglob_patterns": IGNORED,
        "set_prefix": IGNORED, "auto_prob_style": alias("auto_prob"),
    },
}


def _is_default(value, default):
    """Whether an input value means DeePMD-kit's default: equal to it, or a list of it (a per-layer
    `trainable`), or a float equal to a numeric default."""
    if isinstance(value, list) and not isinstance(default, list):
        return all(_is_default(v, default) for v in value)
    if isinstance(default, bool) or isinstance(value, bool):
        return value is default
    if isinstance(default, (int, float)) and isinstance(value, (int, float)):
        return float(value) == float(default)
    return value == default


def _line_of(text, key):
    """1-based line of the first `"key":` in the JSON text (None when not found or no text)."""
    if not text:
        return None
    m = re.search(r'"' + re.escape(key) + r'"\s*:', text)
    return None if m is None else text.count("\n", 0, m.start()) + 1


def checked_input(config, source="input.json", text=None):
    """A copy of the input with DeePMD-kit's aliases renamed; raises ValueError on an unknown key
    (its path, the line in `text`, the nearest valid key) or a section that is not an object."""
    if not isinstance(config, dict):
        raise ValueError(f"{source}: expected a JSON object at the top level, found {type(config).__name__}")
    config = copy.deepcopy(config)
    for path, table in SECTIONS.items():
        section = config
        for part in path.split(".") if path else []:
            if not isinstance(section, dict) or part not in section:
                section = None
                break
            section = section[part]
        if section is None:
            continue
        if not isinstance(section, dict):
            raise ValueError(f"{source}: {path}: expected an object, found {type(section).__name__}")
        for key in list(section):
            if key.startswith("_"):
                continue
            kind = table.get(key)
            full = f"{path}.{key}" if path else key
            if kind is None:
                line = _line_of(text, key)
                where = f"{source}, line {line}" if line else source
                near = difflib.get_close_matches(key, list(table), n=1)
                hint = f"; did you mean '{near[0]}'?" if near else f"; valid keys: {', '.join(sorted(table))}"
                raise ValueError(f"{where}: {full}: unknown key{hint}")
            if isinstance(kind, tuple) and kind[0] == "only":
                if not _is_default(section[key], kind[1]):
                    line = _line_of(text, key)
                    where = f"{source}, line {line}" if line else source
                    raise ValueError(f"{where}: {full} = {json.dumps(section[key])}: not supported by sampan (only "
                                     f"DeePMD-kit's default {json.dumps(kind[1])}); remove the key or use DeePMD-kit")
                continue
            if isinstance(kind, tuple):
                target = kind[1]
                if target in section:
                    raise ValueError(f"{source}: {full} is DeePMD-kit's alias of {target}; give only one of them")
                section[target] = section.pop(key)
        for key, kind in table.items():
            if kind == REQUIRED and key not in section:
                full = f"{path}.{key}" if path else key
                raise ValueError(f"{source}: {full}: missing (DeePMD-kit's input needs it)")
    training = config.get("training", {})
    if "training_data" not in training and "systems" not in training:
        raise ValueError(f"{source}: training.training_data: missing (the training systems)")
    return config
