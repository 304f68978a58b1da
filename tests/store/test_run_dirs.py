"""Default run directories: a new run is named from its configuration and printed; later commands
without --run take the latest run and name the others."""

from __future__ import annotations

import os
from pathlib import Path

from nl2fix.store.run_dirs import dataset_label, default_run_dir, existing_runs


def test_a_run_is_named_from_its_configuration():
    assert default_run_dir("example", "zero-shot", "gpt-4o-mini", 0.8) == Path("runs/example-zero-shot-gpt-4o-mini-0.8")
    assert (
        default_run_dir("nl2fix", "one-shot", "/models/Qwen2.5 Coder/", 0.2).name == "nl2fix-one-shot-Qwen2.5_Coder-0.2"
    )
    assert default_run_dir("x", "reasoning", "org/model:latest", 1.0).name == "x-reasoning-model_latest-1"
    assert dataset_label(None) == "nl2fix" and dataset_label("example") == "example"
    assert dataset_label("/data/nl2fix_dataset.json") == "nl2fix_dataset"


def test_sample_without_run_then_later_commands_find_it(tmp_path, monkeypatch, invoke_cli):
    monkeypatch.chdir(tmp_path)
    common = ["--dataset", "example", "--bug", "Rangekit-1", "--backend", "mutation", "-n", "2", "--quiet"]
    first = invoke_cli("sample", *common)
    assert first.exit_code == 0, first.output
    assert first.output.startswith("run: runs/example-zero-shot-mutation-0.8\n")
    assert (tmp_path / "runs/example-zero-shot-mutation-0.8/run.sqlite").is_file()

    second = invoke_cli("sample", *common, "--temperature", "0.2", "--strategy", "title-only")
    assert "run: runs/example-title-only-mutation-0.2" in second.output
    older = tmp_path / "runs/example-title-only-mutation-0.2/run.sqlite"
    os.utime(older, (1, 1))  # the 0.8 run is now the latest

    ranked = invoke_cli("rank")
    assert ranked.exit_code == 0, ranked.output
    assert (
        "run: runs/example-zero-shot-mutation-0.8 (the latest under runs/; others: "
        "runs/example-title-only-mutation-0.2)"
    ) in ranked.stderr
    shown = invoke_cli("show", "--bug", "Rangekit-1", "-k", "1")
    assert shown.exit_code == 0 and "Rangekit-1:" in shown.output
    assert [p.name for p in existing_runs(Path("runs"))][0] == "example-zero-shot-mutation-0.8"


def test_no_run_to_find_is_a_clear_error(tmp_path, monkeypatch, invoke_cli):
    monkeypatch.chdir(tmp_path)
    result = invoke_cli("report")
    assert result.exit_code == 2
    assert "error: no --run given and no run under runs/" in result.stderr
    assert "nl2fix sample" in result.stderr


def test_readme_sample_of_jxpath_20_without_run(tmp_path, monkeypatch, shared_data, invoke_cli):
    monkeypatch.chdir(tmp_path)
    dataset = shared_data / "nl2fix_dataset.json"
    result = invoke_cli(
        "sample", "--bug", "JXPath-20", "--dataset", dataset, "--backend", "mutation", "-n", "3", "--quiet"
    )
    assert result.exit_code == 0, result.output
    assert "run: runs/nl2fix_dataset-zero-shot-mutation-0.8" in result.output
    assert "3 samples (3 new)" in result.output
