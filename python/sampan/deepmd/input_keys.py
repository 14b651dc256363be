"""The keys of a DeePMD-kit input.json that sampan knows: ONE table per section.

Each section lists DeePMD-kit's own key names (docs: "Training parameters", dargs of
deepmd/utils/argcheck.py) as USED (sampan reads it), IGNORED (DeePMD-kit has it, sampan accepts
it and does not act on it) or an alias of another key (DeePMD-kit's alias; renamed on load);
REQUIRED keys are used and must be given (when their section is).
Any key starting with "_" is a comment (DeePMD-kit's "_comment"). An unknown key is an error
naming its path and the nearest valid key.
"""
import copy
import difflib
import re

USED = "used"
REQUIRED = "required"
IGNORED = "ignored"


def alias(name):
    return ("alias", name)


SECTIONS = {
    "": {
        "model": REQUIRED, "learning_rate": USED, "loss": USED, "training": REQUIRED,
        "nvnmd": IGNORED, "optimizer": IGNORED, "loss_dict": IGNORED,
    },
    "model": {
        "type_map": REQUIRED, "descriptor": REQUIRED, "fitting_net": REQUIRED, "data_stat_nbatch": USED,
        "type": IGNORED, "data_stat_protect": IGNORED, "data_bias_nsample": IGNORED, "type_embedding": IGNORED,
        "modifier": IGNORED, "compress": IGNORED, "spin": IGNORED, "use_srtab": IGNORED,
        "smin_alpha": IGNORED, "sw_rmin": IGNORED, "sw_rmax": IGNORED, "srtab_add_bias": IGNORED,
        "pair_exclude_types": IGNORED, "atom_exclude_types": IGNORED, "preset_out_bias": IGNORED,
        "finetune_head": IGNORED, "out_bias": IGNORED, "model_dict": IGNORED,
    },
    "model.descriptor": {
        "type": USED, "sel": REQUIRED, "rcut": REQUIRED, "rcut_smth": REQUIRED, "neuron": USED, "axis_neuron": USED,
        "activation_function": USED, "resnet_dt": USED, "type_one_side": USED, "seed": USED,
        "precision": IGNORED, "trainable": IGNORED, "exclude_types": IGNORED, "env_protection": IGNORED,
        "set_davg_zero": IGNORED, "tebd_input_mode": IGNORED, "spin": IGNORED,
        "n_axis_neuron": alias("axis_neuron"),
    },
    "model.fitting_net": {
        "type": USED, "neuron": USED, "resnet_dt": USED, "activation_function": USED, "seed": USED,
        "precision": IGNORED, "trainable": IGNORED, "numb_fparam": IGNORED, "numb_aparam": IGNORED,
        "rcond": IGNORED, "atom_ener": IGNORED, "layer_name": IGNORED, "use_aparam_as_mask": IGNORED,
        "dim_case_embd": IGNORED, "default_fparam": IGNORED, "seed_mode": IGNORED,
        "n_neuron": alias("neuron"),
    },
    "learning_rate": {
        "type": USED, "start_lr": USED, "stop_lr": USED, "decay_steps": USED,
        "scale_by_worker": IGNORED, "decay_rate": IGNORED, "warmup_steps": IGNORED, "warmup_ratio": IGNORED,
        "warmup_start_factor": IGNORED, "smooth": IGNORED,
    },
    "loss": {
        "type": USED, "start_pref_e": USED, "limit_pref_e": USED, "start_pref_f": USED, "limit_pref_f": USED,
        "start_pref_v": USED, "limit_pref_v": USED,
        "start_pref_ae": IGNORED, "limit_pref_ae": IGNORED, "start_pref_pf": IGNORED, "limit_pref_pf": IGNORED,
        "start_pref_gf": IGNORED, "limit_pref_gf": IGNORED, "numb_generalized_coord": IGNORED,
        "relative_f": IGNORED, "enable_atom_ener_coeff": IGNORED, "use_l1_all": IGNORED, "inference": IGNORED,
        "use_huber": IGNORED, "huber_delta": IGNORED, "f_use_norm": IGNORED,
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
        "mixed_precision": IGNORED, "opt_type": IGNORED, "gradient_max_norm": IGNORED, "numb_test": IGNORED,
        "stat_file": IGNORED, "data_dict": IGNORED, "model_prob": IGNORED, "warmup_steps": IGNORED,
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
