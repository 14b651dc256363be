"""The `sampan` command dispatches to per-module subcommands."""
import subprocess
import sys

import pytest

from sampan import cli


def test_no_module_is_a_usage_error():
    with pytest.raises(SystemExit) as exit_info:
        cli.main([])
    assert exit_info.value.code == 2


def test_unknown_module_names_the_choice():
    result = subprocess.run([sys.executable, "-m", "sampan", "no-such-module"], capture_output=True, text=True)
    assert result.returncode == 2
    assert "no-such-module" in result.stderr


def test_unavailable_module_says_why(monkeypatch):
    monkeypatch.setitem(cli.MODULE_COMMANDS, "broken", "json.no_such_submodule_for_test")
    monkeypatch.setattr(cli.importlib, "import_module",
                        lambda name: (_ for _ in ()).throw(RuntimeError("library not built")))
    assert cli.main(["broken"]) == 2


def test_bad_input_is_one_line_not_a_traceback(tmp_path):
    bad = tmp_path / "input.json"
    bad.write_text("{bad")
    for argv in (["deepmd", "train", str(bad)], ["deepmd", "train", str(tmp_path / "missing.json")]):
        result = subprocess.run([sys.executable, "-m", "sampan", *argv], capture_output=True, text=True)
        assert result.returncode == 2, result.stderr
        assert "Traceback" not in result.stderr
        assert "sampan: error: deepmd:" in result.stderr
