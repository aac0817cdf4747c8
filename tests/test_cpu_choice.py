"""The default CPU runtime by measurement (clbig/runtime/cpu_choice.py, issue 45): the soonest
score wins, ties keep the loader's order, a wrong product puts a runtime last, and a machine
measures once (the file is read back; a corrupt or unwritable one costs a new measurement, not
an error)."""
import json
import os
import types

import pytest

import clbig
from clbig.runtime import cpu_choice


def _dev(name: str):
    plat = types.SimpleNamespace(name=f"{name} platform", version="1.0")
    return types.SimpleNamespace(platform=plat, name=f"{name} cpu", driver_version="7")


@pytest.fixture
def fake(monkeypatch):
    """measure() replaced by a table of scores; calls counted."""
    scores, calls = {}, []

    def measure(dev):
        calls.append(dev.name)
        s = scores[dev.name]
        return {"build_s": s, "run_s": 0.0, "score": s, "exact": s != float("inf")}

    monkeypatch.setattr(cpu_choice, "measure", measure)
    monkeypatch.setattr(cpu_choice, "_memo", {})
    return scores, calls


def test_soonest_wins_and_ties_keep_loader_order(fake, tmp_path):
    scores, calls = fake
    a, b, c = _dev("a"), _dev("b"), _dev("c")
    scores.update({"a cpu": 0.9, "b cpu": 0.2, "c cpu": float("inf")})
    assert cpu_choice.soonest([a, b, c], str(tmp_path)) is b
    assert cpu_choice.soonest([c, b], str(tmp_path)) is b           # a wrong product is last
    scores.update({"d cpu": 0.205})
    d = _dev("d")
    assert cpu_choice.soonest([d, b], str(tmp_path)) is d           # within TIE: loader's order
    assert cpu_choice.soonest([b], str(tmp_path)) is b and cpu_choice.soonest([], str(tmp_path)) is None
    assert sorted(calls) == ["a cpu", "b cpu", "c cpu", "d cpu"]    # each measured once


def test_measured_once_per_machine(fake, tmp_path, monkeypatch):
    scores, calls = fake
    a, b = _dev("a"), _dev("b")
    scores.update({"a cpu": 0.5, "b cpu": 0.3})
    assert cpu_choice.soonest([a, b], str(tmp_path)) is b
    stored = json.loads((tmp_path / cpu_choice.FILE).read_text())
    assert stored[cpu_choice.fingerprint(b)]["score"] == 0.3
    monkeypatch.setattr(cpu_choice, "_memo", {})                    # a later process
    scores.update({"a cpu": 0.1})                                    # not measured again
    assert cpu_choice.soonest([a, b], str(tmp_path)) is b and len(calls) == 2
    assert set(cpu_choice.known(str(tmp_path))) == {cpu_choice.fingerprint(a), cpu_choice.fingerprint(b)}


def test_corrupt_or_unwritable_file_measures_again(fake, tmp_path, monkeypatch):
    scores, calls = fake
    a, b = _dev("a"), _dev("b")
    scores.update({"a cpu": 0.1, "b cpu": 0.3})
    (tmp_path / cpu_choice.FILE).write_text("{not json")
    assert cpu_choice.soonest([a, b], str(tmp_path)) is a and len(calls) == 2
    assert json.loads((tmp_path / cpu_choice.FILE).read_text())[cpu_choice.fingerprint(a)]["score"] == 0.1
    blocked = tmp_path / "file"
    blocked.write_text("")                                           # a file where the folder goes
    monkeypatch.setattr(cpu_choice, "_memo", {})
    assert cpu_choice.soonest([a, b], str(blocked / "sub")) is a and len(calls) == 4


def test_reference_job_on_this_device():
    """The real job on the current device: a finite score and an exact product."""
    got = cpu_choice.measure(clbig.current_context().device)
    assert got["exact"] and got["build_s"] > 0 and got["run_s"] > 0, got
    assert got["score"] == pytest.approx(got["build_s"] + cpu_choice.RUNS * got["run_s"])
