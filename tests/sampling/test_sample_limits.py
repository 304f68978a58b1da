"""What `nl2fix sample` does with an -n beyond a run's size (refused at once), a large -n (asked and stored in
batches, so memory is bounded whatever -n), and a command that fails before it stores anything (no run
folder is left behind to become "the latest run")."""

from __future__ import annotations

import json
import resource
import time

from nl2fix.core.domain import Strategy
from nl2fix.dataset.load import open_dataset
from nl2fix.sampling import stage
from nl2fix.sampling.backends.mutation_backend import MutationBackend
from nl2fix.store.records import RunConfig
from nl2fix.store.run_store import RunStore

SAMPLE = ["sample", "--dataset", "example", "--bug", "Textkit-1", "--quiet"]


def test_an_n_beyond_what_a_run_holds_is_refused_at_once(tmp_path, invoke_cli):
    started, before = time.monotonic(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = invoke_cli(*SAMPLE, "--backend", "mutation", "-n", "100000000", "--run", tmp_path / "run")
    assert result.exit_code == 2 and "100000000 is not in the range 1<=x<=100000" in result.output
    assert time.monotonic() - started < 5 and resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000
    assert not (tmp_path / "run").exists()


class _Recording(MutationBackend):
    def __init__(self):
        super().__init__()
        self.asked: list[int] = []

    def generate(self, requests):
        self.asked += [len(r.indices) for r in requests]
        return super().generate(requests)


def test_a_large_n_is_asked_and_stored_in_batches(tmp_path, monkeypatch):
    monkeypatch.setattr(stage, "BATCH", 10)
    ds = open_dataset("example")
    backend = _Recording()
    config = RunConfig(
        dataset="example", backend="mutation", model="mutation", strategy=Strategy.ZERO_SHOT, temperature=0.8, n=25
    )
    summary = stage.sample(
        tmp_path / "run",
        config,
        [ds.bugs["Textkit-1"], ds.bugs["Textkit-2"]],
        dataset=ds,
        progress=False,
        backend=backend,
    )
    assert backend.asked == [10, 10, 10, 10, 5, 5] and summary.samples == 50 and summary.new_samples == 50
    with RunStore(tmp_path / "run", read_only=True) as store:
        assert store.sample_indices("Textkit-2") == set(range(25))


def test_a_command_that_fails_before_storing_leaves_no_run_folder(tmp_path, invoke_cli):
    run_dir = tmp_path / "runs" / "replayed"
    result = invoke_cli(
        *SAMPLE, "--backend", "replay", "--replay-file", tmp_path / "missing.json", "-n", "2", "--run", run_dir
    )
    assert result.exit_code == 2 and "patch file" in result.output and "not found" in result.output
    assert not run_dir.exists()

    run_dir.mkdir()  # a folder the user made stays, empty
    result = invoke_cli(
        *SAMPLE, "--backend", "replay", "--replay-file", tmp_path / "missing.json", "-n", "2", "--run", run_dir
    )
    assert result.exit_code == 2 and list(run_dir.iterdir()) == []


def test_a_replayed_bug_without_patches_fails_like_a_missing_one(tmp_path, invoke_cli):
    patches = tmp_path / "patches.json"
    patches.write_text(json.dumps({"Textkit-1": {"prompt": "p"}, "Textkit-2": {"prompt": "p", "patches": []}}))
    for bug in ("Textkit-1", "Textkit-2", "Textkit-3"):
        result = invoke_cli(
            "sample",
            "--dataset",
            "example",
            "--bug",
            bug,
            "--quiet",
            "--backend",
            "replay",
            "--replay-file",
            patches,
            "-n",
            "2",
            "--run",
            tmp_path / bug,
        )
        assert result.exit_code == 1, (bug, result.output)
        said = "is not in" if bug == "Textkit-3" else "has no patches in"
        assert f"{bug}: {bug} {said} the patch file {patches}" in result.output
