"""The Context's own guarantees: device selection by index, the poison switch, the launch lock."""
from __future__ import annotations

import numpy as np
import pytest

import clbig
import importlib

devices = importlib.import_module("clbig.runtime.devices")


def test_digit_selector_is_an_index(monkeypatch):
    n = len(clbig.devices())
    for i in range(n):
        assert devices._select(str(i)) == devices._cl_devices()[i]
        assert devices._select(i) == devices._cl_devices()[i]
    for sel in (str(n), n, " %d " % (n + 7)):
        with pytest.raises(ValueError, match=r"out of range(.|\n)*\[0\]"):
            devices._select(sel)
    monkeypatch.setenv("CLBIG_DEVICE", str(n))
    with pytest.raises(ValueError, match="out of range"):
        clbig.Context()


def test_digit_selector_never_matches_names(monkeypatch):
    """With two devices whose names hold a '2' (an H200, an A2), "2" is out of range, not a
    substring match, and "1" is the second device."""
    fake = [object(), object()]
    infos = [devices.DeviceInfo(i, "NVIDIA CUDA", name, "NVIDIA", "GPU", 1, 1, 1)
             for i, name in enumerate(["NVIDIA H200", "NVIDIA A2"])]
    monkeypatch.setattr(devices, "_cl_devices", lambda: fake)
    monkeypatch.setattr(devices, "devices", lambda: infos)
    with pytest.raises(ValueError, match="index 2 out of range"):
        devices._select("2")
    assert devices._select("1") is fake[1]
    assert devices._select("a2") is fake[1]      # a name is still matched as a substring


def test_poison_fills_fresh_buffers(monkeypatch):
    monkeypatch.setenv("CLBIG_POISON", "1")
    ctx = clbig.Context()
    assert ctx.poison
    e = ctx.empty((3, 5), np.uint32).get(queue=ctx.queue)
    assert (e == 0xA5A5A5A5).all()
    host = np.empty(16, np.uint8)
    import pyopencl as cl
    cl.enqueue_copy(ctx.queue, host, ctx.buffer(16))
    assert (host == 0xA5).all()
    assert (ctx.zeros((4, 3)).get(queue=ctx.queue) == 0).all()   # zeros stay zeros
    with ctx:   # and results are exact with every buffer poisoned
        a = clbig.array([2 ** 95 - 1, 5, 0], bits=96)
        assert (a * a).tolist() == [(2 ** 95 - 1) ** 2, 25, 0]
    monkeypatch.setenv("CLBIG_POISON", "0")
    assert not clbig.Context().poison


@pytest.mark.parametrize("shape", [5, (5,), (3, 4), (0,), (0, 7), (7, 0), (2, 3, 4), np.int64(6), (np.int64(2), 3)])
@pytest.mark.parametrize("dtype", [np.uint32, np.uint8, np.uint64])
def test_empty_matches_pyopencl(ctx, shape, dtype):
    """Context.empty (pyopencl's fast constructor where the shape is Python ints) makes the
    array cla.empty makes: shape, dtype, strides, size, bytes, queue and context."""
    import pyopencl.array as cla
    got = ctx.empty(shape, dtype)
    want = cla.empty(ctx.queue, shape, dtype, allocator=ctx.allocator)
    for attr in ("shape", "dtype", "strides", "size", "nbytes", "offset"):
        assert getattr(got, attr) == getattr(want, attr), attr
    assert got.queue is ctx.queue and got.context == ctx.cl_context and got.flags.c_contiguous
    if got.size:
        host = np.arange(got.size, dtype=dtype).reshape(got.shape)
        got.set(host, queue=ctx.queue)
        assert (got.get(queue=ctx.queue) == host).all()
