"""Issue 36: transfers through page-locked staging buffers (clbig.runtime.staging) and
pipelined host operands (clbig.scale.stream: chunks of host(...) operands that overlap).

Both are for GPUs; here they are forced on (CLBIG_STAGING=on, CLBIG_PIPELINE=on) with tiny chunks,
so that CI on PoCL runs the staged and pipelined paths across many chunk boundaries. Every
expected value comes from gmpy2 / Python ints.
"""
from __future__ import annotations

import gmpy2
import numpy as np
import pytest

import clbig
from conftest import in_threads
from clbig.scale import stream
from clbig.runtime import staging
from clbig.scale import stream as stream_mod

M = 64                      # limbs of a 2048-bit value (a width the suite builds anyway)
ROW = 4 * M                 # bytes per row


def _ints(limbs) -> list[int]:
    return [int.from_bytes(r.tobytes(), "little") for r in np.ascontiguousarray(limbs, "<u4")]


def _limbs(rng, n, m=M):
    a = np.frombuffer(rng.randbytes(4 * n * m), "<u4").reshape(n, m).astype(np.uint32)
    if n > 2:
        a[1] = 0xFFFFFFFF          # all-ones limbs: the maximum value
        a[2] = 0                   # zero
    return a


def _signed(rng, n, bits=2048):
    vals = [rng.getrandbits(bits) * rng.choice((1, -1)) for _ in range(n)]
    for i, v in enumerate([0, 1, -1, 2 ** bits - 1, -(2 ** bits - 1)][:n]):
        vals[i * 3 % max(n, 1)] = v
    return vals


@pytest.fixture
def counted(monkeypatch):
    """Staging forced on, in chunks of 4 rows, counting the staged transfers (every one, of
    bytes or of rows made on the host, passes through upload_rows or download_rows)."""
    calls = {"upload": 0, "download": 0}
    for name in calls:
        real = getattr(staging.Staging, name + "_rows")

        def wrapped(self, *a, _real=real, _name=name, **k):
            calls[_name] += 1
            return _real(self, *a, **k)
        monkeypatch.setattr(staging.Staging, name + "_rows", wrapped)
    monkeypatch.setenv("CLBIG_STAGING", "on")
    monkeypatch.setenv("CLBIG_STAGING_MIN", "0")
    monkeypatch.setenv("CLBIG_STAGING_CHUNK", str(4 * ROW))
    return calls


# -- staging -------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 8, 9, 21])     # chunk = 4 rows: below, at, above
def test_staged_round_trip(ctx, rng, counted, n):
    a = _limbs(rng, n)
    x = clbig.from_limbs(a)
    assert counted["upload"] == (1 if n else 0)
    assert np.array_equal(x.to_limbs(), a)
    out = np.full_like(a, 7)
    assert x.to_limbs(out=out) is out and np.array_equal(out, a)
    assert x.tolist() == _ints(a)
    assert counted["download"] == (3 if n else 0)
    want = [v * v for v in _ints(a)]
    assert (x * x).tolist() == want


@pytest.mark.parametrize("threads", [1, 3, 8])
def test_staged_copies_split_over_threads(ctx, rng, counted, monkeypatch, threads):
    """Chunks of several MiB are copied into and out of staging by several threads: every byte
    lands once, in its place, at an odd size and with a last chunk that is not whole."""
    monkeypatch.setattr(staging, "THREADS", threads)
    monkeypatch.setattr(staging, "_PIECE", 4096)
    monkeypatch.setenv("CLBIG_STAGING_CHUNK", str(3 * 65536 + 12))
    a = _limbs(rng, 1000 + 13)                       # about 1 MiB: 5 chunks, the last a part
    x = clbig.from_limbs(a)
    assert np.array_equal(x.to_limbs(), a)
    assert counted["upload"] == 1 and counted["download"] == 1
    assert (x + 1).tolist()[:5] == [v + 1 for v in _ints(a[:5])]


@pytest.mark.parametrize("chunk", [1, 4, 1000, ROW, 3 * ROW + 4])   # not a row, a limb, or a row
def test_staged_chunk_sizes(ctx, rng, counted, monkeypatch, chunk):
    monkeypatch.setenv("CLBIG_STAGING_CHUNK", str(chunk))
    a = _limbs(rng, 9 if chunk > 4 else 2)
    x = clbig.from_limbs(a)
    assert np.array_equal(x.to_limbs(), a) and counted == {"upload": 1, "download": 1}


@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 9, 21])
@pytest.mark.parametrize("chunk", [4 * ROW, 3 * ROW + 4, 100])   # whole rows, not, less than a row
def test_staged_lists(ctx, rng, counted, monkeypatch, n, chunk):
    """Python ints to the device and back with the limbs made and read in the staging buffers
    themselves, chunk by chunk (issue 47): signs, the edges, mpz out, a product's wider rows."""
    monkeypatch.setenv("CLBIG_STAGING_CHUNK", str(chunk))
    vals = _signed(rng, n)
    x = clbig.array(vals, bits=2048)
    assert counted["upload"] == (1 if n else 0)
    assert x.tolist() == vals
    gm = x.tolist(mpz=True)
    assert gm == vals and all(type(v) is type(gmpy2.mpz(0)) for v in gm)
    assert counted["download"] == (2 if n else 0)
    assert (x * x).tolist() == [v * v for v in vals]


def test_staged_lists_on_threads(ctx, rng, counted, monkeypatch):
    """A chunk's rows split over the conversion threads (tiny thread ranges forced), with
    mpz and numpy values among the ints: the one pass stops at the first chunk, and the scan
    converts them (two uploads begun)."""
    from clbig.mpn import convert
    monkeypatch.setattr(convert, "THREAD_LIMBS", 8)
    monkeypatch.setenv("CLBIG_CONVERT_THREADS", "3")
    monkeypatch.setenv("CLBIG_STAGING_CHUNK", str(5 * ROW + 8))
    vals = _signed(rng, 37)
    vals[4], vals[5] = gmpy2.mpz(vals[4]), np.int64(-12345)
    x = clbig.array(vals, bits=2048)
    assert x.tolist() == [int(v) for v in vals] and counted["upload"] == 2


@pytest.mark.parametrize("devices", [1, 2])
def test_a_capacity_reads_each_int_once(ctx, rng, counted, monkeypatch, devices):
    """clbig.array with a capacity, on one device or spread over two (here the same one
    twice): each int checked and packed in one pass, chunk by chunk, no scan; signs and edges
    kept. A value the pass does not take, in the last chunk (an mpz, one too wide, a float):
    the scan then converts it, or names it."""
    from clbig.mpn import convert
    if not convert.packs_in_one_pass():
        pytest.skip("no one-pass packing here (no extension, or a Python pool of threads)")
    scans, passes = [], []
    real_scan, real_pass = convert.scan, convert.scan_pack_range
    monkeypatch.setattr(convert, "scan", lambda *a, **k: (scans.append(1), real_scan(*a, **k))[1])
    monkeypatch.setattr(convert, "scan_pack_range",
                        lambda v, sg, b, out, a, z: (passes.append((a, z)), real_pass(v, sg, b, out, a, z))[1])
    monkeypatch.setenv("CLBIG_STAGING_CHUNK", str(3 * ROW + 4))
    vals = _signed(rng, 23)
    where = clbig.Context([ctx, ctx]) if devices == 2 else ctx
    with where:
        x = clbig.array(vals, bits=2048)
        assert scans == [] and counted["upload"] == devices and sorted(passes)[0][0] == 0
        assert sum(z - a for a, z in passes) == 23 and all(z - a <= 3 for a, z in passes)
        assert x.tolist() == vals and (x * 3).tolist() == [3 * v for v in vals]
        for bad, check in ((gmpy2.mpz(-5), None), (2 ** 2048, (OverflowError, "element 22")),
                           (1.5, (TypeError, "element 22"))):
            scans.clear()
            if check is None:
                assert clbig.array(vals[:22] + [bad], bits=2048).tolist() == vals[:22] + [-5]
            else:
                with pytest.raises(check[0], match=check[1]):
                    clbig.array(vals[:22] + [bad], bits=2048)
            assert scans == [1]


def test_staged_lists_over_several_devices(ctx, rng, counted, monkeypatch):
    """A list spread over two devices (here the same one twice) with an mpz among its ints:
    the one pass stops, then the batch is scanned once and each device's rows packed from
    their offset straight into its staging buffers, signs and mpz kept."""
    from clbig.mpn import convert
    packed = []
    real = convert.pack_range
    monkeypatch.setattr(convert, "pack_range", lambda s, out, a, b: (packed.append((a, b)), real(s, out, a, b)))
    monkeypatch.setenv("CLBIG_STAGING_CHUNK", str(3 * ROW + 4))
    vals = _signed(rng, 23)
    vals[17] = gmpy2.mpz(vals[17])
    with clbig.Context([ctx, ctx]):
        x = clbig.array(vals, bits=2048)
        pieces = [(r0, r1) for _, r0, r1 in x.placement]
        assert len(pieces) == 2 and counted["upload"] == 4
        assert sorted(packed) == [(r0 + a, min(r0 + a + 3, r1)) for r0, r1 in pieces   # 3-row chunks
                                  for a in range(0, r1 - r0, 3)]
        assert x.tolist() == vals and (x * x).tolist() == [v * v for v in vals]
        assert x.tolist(mpz=True) == list(map(gmpy2.mpz, vals))


def test_staged_lists_from_several_threads(ctx, rng, counted, monkeypatch):
    """Threads converting lists through one context's staging buffers at once (each transfer
    takes its own pair), the deferred fills forced on: every result exact, in its own thread."""
    from clbig.mpn import convert
    monkeypatch.setattr(convert, "THREAD_LIMBS", 8)
    monkeypatch.setattr(convert, "DEFER_MIN_LIMBS", 3)
    monkeypatch.setattr(convert, "DEFER_MIN_THREADS", 1)
    monkeypatch.setenv("CLBIG_CONVERT_THREADS", "3")
    monkeypatch.setenv("CLBIG_STAGING_CHUNK", str(3 * ROW + 4))
    inputs = [_signed(rng, 23 + i) for i in range(4)]
    got = [None] * 4

    def work(i):
        with ctx:
            x = clbig.array(inputs[i], bits=2048)
            got[i] = ((x * x).tolist(), x.tolist())
    in_threads(work, 4)
    for vals, (sq, back) in zip(inputs, got):
        assert back == vals and sq == [v * v for v in vals]
    assert counted["upload"] == 4 and counted["download"] == 8


def test_staged_get_with_offset_and_get_many(ctx, rng, counted, monkeypatch):
    monkeypatch.setenv("CLBIG_STAGING_MIN", "64")       # the 12-byte array goes directly
    a = _limbs(rng, 21)
    d = ctx.to_device(a)
    assert np.array_equal(ctx.get(d[5:]), a[5:])          # a view that starts inside its buffer
    small = ctx.to_device(np.arange(3, dtype=np.uint32))
    big, tiny = ctx.get_many(d, small)
    assert np.array_equal(big, a) and np.array_equal(tiny, np.arange(3))
    assert counted["download"] == 2


def test_pinned_and_small_transfers_skip_staging(ctx, rng, counted, monkeypatch):
    a = _limbs(rng, 9)
    p = clbig.pinned_empty(a.shape)
    p[...] = a
    x = clbig.from_limbs(p)
    out = clbig.pinned_empty(a.shape)
    x.to_limbs(out=out)
    assert np.array_equal(out, a) and counted == {"upload": 0, "download": 0}
    monkeypatch.setenv("CLBIG_STAGING_MIN", str(a.nbytes + 1))
    assert np.array_equal(clbig.from_limbs(a).to_limbs(), a) and counted == {"upload": 0, "download": 0}


def test_staging_settings(ctx, rng, monkeypatch):
    monkeypatch.setenv("CLBIG_STAGING_MIN", "0")
    monkeypatch.setenv("CLBIG_STAGING", "auto")
    assert ctx.staged(1 << 30) == staging.separate_memory(ctx.device)
    if ctx.device.type & 2:        # CL_DEVICE_TYPE_CPU: a transfer is a memcpy already
        assert not ctx.staged(1 << 30)
    monkeypatch.setenv("CLBIG_STAGING", "off")
    assert not ctx.staged(1 << 30)
    monkeypatch.setenv("CLBIG_STAGING", "On ")
    assert ctx.staged(1 << 30)
    monkeypatch.setenv("CLBIG_STAGING", "sometimes")
    with pytest.raises(ValueError, match="CLBIG_STAGING must be auto, on or off, not 'sometimes'"):
        clbig.from_limbs(_limbs(rng, 3))
    monkeypatch.setenv("CLBIG_STAGING", "on")
    monkeypatch.setenv("CLBIG_STAGING_CHUNK", "big")
    with pytest.raises(ValueError, match="CLBIG_STAGING_CHUNK"):
        clbig.from_limbs(_limbs(rng, 3))


def test_staging_buffers_are_reused(ctx, rng, counted):
    a = _limbs(rng, 9)
    for _ in range(3):
        assert np.array_equal(clbig.from_limbs(a).to_limbs(), a)
    pool = ctx._staging()
    assert len(pool._free) == 2 and {b[0] for b in pool._free} == {4 * ROW}


# -- pipelining ----------------------------------------------------------------------------------
@pytest.fixture
def piped(monkeypatch):
    """Pipelining forced on, in chunks of 8 rows of two 2048-bit operands; staging on too."""
    monkeypatch.setenv("CLBIG_PIPELINE", "on")
    monkeypatch.setenv("CLBIG_PIPELINE_MIN", "0")
    monkeypatch.setenv("CLBIG_PIPELINE_CHUNK", str(8 * 2 * ROW))
    monkeypatch.setenv("CLBIG_STAGING", "on")
    monkeypatch.setenv("CLBIG_STAGING_MIN", "0")
    monkeypatch.setenv("CLBIG_STAGING_CHUNK", "1000")


def _chunks(p) -> int:
    notes = [t for t in p.notes if t.startswith("pipelined:")]
    return int(notes[0].split(" chunks")[0].rsplit(" ", 1)[1]) if notes else 0


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 16, 17, 21])
def test_pipelined_lists(ctx, rng, piped, n):
    a, b = _signed(rng, n), _signed(rng, n)
    with clbig.profile() as p:
        c = clbig.mul(stream.host(a), stream.host(b))
        d = clbig.sub(stream.host(a), stream.host(b))
    assert _chunks(p) == (-(-n // 8) if n > 8 else 0)
    assert c.tolist() == [int(gmpy2.mpz(x) * y) for x, y in zip(a, b)]
    assert d.tolist() == [x - y for x, y in zip(a, b)]
    assert len(c) == n and list(c.sign()) == [(v > 0) - (v < 0) for v in c.tolist()]
    if n > 8:
        assert c.placement == [("host", 0, n)]   # one block of rows


@pytest.mark.parametrize("n", [9, 21])
def test_pipelined_numpy(ctx, rng, piped, n):
    a, b = _limbs(rng, n), _limbs(rng, n)
    with clbig.profile() as p:
        c = clbig.mul(stream.host(a), stream.host(b))
    assert _chunks(p) == -(-n // 8)
    got = c.to_limbs()
    assert got.shape == (n, 2 * M) and not got.flags.writeable     # the result's own rows, no copy
    assert _ints(got) == [int(gmpy2.mpz(x) * y) for x, y in zip(_ints(a), _ints(b))]
    out = np.zeros((n, 2 * M), np.uint32)
    assert c.to_limbs(out=out) is out and np.array_equal(out, got)
    div = np.ascontiguousarray(b[:, :M // 2])
    div[2] = 1                                                     # _limbs made row 2 zero
    q, r = divmod(c, stream.host(div))                             # tuple results, a narrower divisor
    bs = _ints(div)
    assert q.tolist() == [x // y for x, y in zip(_ints(got), bs)]
    assert r.tolist() == [x % y for x, y in zip(_ints(got), bs)]


def test_pipelined_with_scalars_lists_and_devices(ctx, rng, piped):
    a, b = _signed(rng, 21), _signed(rng, 21)
    h = stream.host(a)
    assert clbig.mul(h, 3).tolist() == [3 * x for x in a]
    assert clbig.add(h, b).tolist() == [x + y for x, y in zip(a, b)]     # a plain list beside it
    with clbig.profile() as p:
        dev = clbig.mul(h, clbig.array(b))        # a device operand: uploaded, not pipelined
    assert _chunks(p) == 0 and dev.tolist() == [x * y for x, y in zip(a, b)]


def test_pipelined_error_mid_batch(ctx, rng, piped, monkeypatch):
    n = 41                                    # 6 chunks of 8 rows
    a = [rng.getrandbits(2048) for _ in range(n)]
    b = [rng.getrandbits(1024) + 1 for _ in range(n)]
    b[19] = 0                                 # third chunk
    ran = []
    real = stream_mod._to_host
    monkeypatch.setattr(stream_mod, "_to_host", lambda r, *x: ran.append(1) or real(r, *x))
    with pytest.raises(ZeroDivisionError, match="index 19$"):
        clbig.floordiv(stream.host(a), stream.host(b))
    assert len(ran) < 6                       # chunks after the failing one were not started
    bad = list(a)
    bad[33] = "7"
    with pytest.raises(TypeError, match="element 33: expected an integer"):
        clbig.mul(stream.host(bad), stream.host(b))
    with pytest.raises(OverflowError, match="element 17: value of 2049 bits"):
        clbig.mul(stream.host(a[:17] + [2 ** 2048] + a[18:], bits=2048), stream.host(a))
    neg = clbig.mul(stream.host(a), stream.host([1] * 30 + [-1] + [1] * 10))
    with pytest.raises(ValueError, match="element 30 is negative"):
        neg.to_limbs()
    assert _ints(neg.to_limbs(magnitude=True)) == a


def test_pipeline_settings(ctx, rng, monkeypatch):
    a = _signed(rng, 21)
    monkeypatch.setenv("CLBIG_PIPELINE_MIN", "0")
    monkeypatch.setenv("CLBIG_PIPELINE_CHUNK", str(8 * ROW))
    monkeypatch.setenv("CLBIG_PIPELINE", "auto")
    with clbig.profile() as p:
        c = clbig.mul(stream.host(a), stream.host(a))
    assert (_chunks(p) > 0) == staging.separate_memory(ctx.device)
    assert c.tolist() == [x * x for x in a]
    monkeypatch.setenv("CLBIG_PIPELINE", "off")
    with clbig.profile() as p:
        assert clbig.mul(stream.host(a), stream.host(a)).tolist() == [x * x for x in a]
    assert _chunks(p) == 0
    monkeypatch.setenv("CLBIG_PIPELINE", "maybe")
    with pytest.raises(ValueError, match="CLBIG_PIPELINE must be auto, on or off, not 'maybe'"):
        clbig.mul(stream.host(a), stream.host(a))
    monkeypatch.setenv("CLBIG_PIPELINE", "on")
    with pytest.raises(ValueError, match="length mismatch: 21 and 9"):
        clbig.mul(stream.host(a), stream.host(a[:9]))
    with pytest.raises(TypeError, match="sign= goes with limbs"):
        stream.host(a, sign=[1] * 21)
    with pytest.raises(TypeError, match="clbig.stream.host expects"):
        stream.host("123")


def test_bench_e2e_small(ctx, monkeypatch):
    """clbig.bench's end-to-end workloads (`python -m clbig.bench --e2e`) on a few rows, the
    staged and pipelined paths forced on: every workload runs and is checked against gmpy2."""
    from clbig.bench import endtoend
    for k, v in {"CLBIG_STAGING": "on", "CLBIG_STAGING_MIN": "0", "CLBIG_PIPELINE": "on",
                 "CLBIG_PIPELINE_MIN": "0", "CLBIG_PIPELINE_ROWS": "2"}.items():
        monkeypatch.setenv(k, v)
    keys = ["mul2048", "mul2048pipe", "mul4096np", "mul4096pipe", "divmod4096", "gcd2048"]
    rows = endtoend.run_e2e(ctx, keys, quick=True, scale=8, gmpy2_seconds=0.05, workers=1, log=lambda s: None)
    assert [r["key"] for r in rows] == keys and all(r["ok"] for r in rows)
    assert all(r["n"] == max(1, endtoend.workloads()[r["key"]].n_quick >> 8) for r in rows)
    assert "| 2048-bit products, list -> list, pipelined (stream.host) |" in endtoend.markdown(rows)

@pytest.mark.parametrize("n", [1, 17])
def test_pipelined_big_ints_go_up_as_digits(ctx, rng, piped, monkeypatch, n):
    """Values of 2^14 bits and more from host(list) upload through mpn.radix, as clbig.array's do."""
    from clbig.mpn import radix
    if not radix.pyint.usable():
        pytest.skip("this Python's int layout is not the one mpn.pyint reads")
    monkeypatch.setenv("CLBIG_PIPELINE_CHUNK", str(8 * 2 * 4 * 512))
    used = []
    real = radix.upload
    monkeypatch.setattr(radix, "upload", lambda c, v, m: used.append(len(v)) or real(c, v, m))
    a = [rng.getrandbits(2 ** 14) * rng.choice((1, -1)) for _ in range(n)]
    b = [rng.getrandbits(2 ** 14) for _ in range(n)]
    assert clbig.add(stream.host(a), stream.host(b)).tolist() == [x + y for x, y in zip(a, b)]
    assert sum(used) == 2 * n
