"""clbig.dask on a distributed.LocalCluster: every operation exact against gmpy2 on batches
spread over several chunks, broadcasting one operand, a worker killed in the middle of a
computation, and bad input raising what clbig raises in one process.

One module-scoped cluster of two worker processes (one thread each) serves every test; batches
are BATCH_N rows in chunks of CHUNK (the last chunk short), widths from conftest's WIDTH_PAIRS so
the workers build the kernels the rest of the suite builds (PoCL's disk cache is shared).
Needs the `dask` extra (in `test` too): without it the module is skipped, or fails under CI.
"""
from __future__ import annotations

import importlib
import logging
import os
import signal
import time
import uuid

import gmpy2
import numpy as np
import pytest

import clbig
from conftest import add_pairs, check_values, mask, rand_value, sub_pairs

try:
    import dask
    import dask.array as da
    import distributed
except ImportError as e:   # pragma: no cover - the test extra installs them
    if os.environ.get("CI"):
        raise
    pytest.skip(f"dask / distributed not installed (pip install '.[dask]'): {e}", allow_module_level=True)

import clbig.dask as cd

limbs_to_ints = importlib.import_module("clbig.mpz.array").limbs_to_ints   # clbig.array is the function

BATCH_N = 50          # rows per batch: 4 chunks of CHUNK, the last one of 2 rows
CHUNK = 16
PAIRS = [(96, 64), (100, 1000), (1056, 1056), (32, 2048)]   # (a.bits, b.bits), from WIDTH_PAIRS
TIMEOUT = 120          # seconds for any one wait on the cluster


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
        silence_logs=logging.ERROR, worker_class=distributed.Nanny)
    c = distributed.Client(cluster, timeout=TIMEOUT)
    try:
        yield c
    finally:
        c.close()
        cluster.close()


def compute(*xs):
    """Compute BigIntDaskArrays together (shared chunks once) and return their ints."""
    got = dask.compute(*[x.limbs for x in xs])
    return [limbs_to_ints(g) for g in got]


def divisor(rng, bits):
    v = rand_value(rng, bits)
    return v if v else 1 + rng.getrandbits(min(bits, 8)) % mask(bits)


def _pairs(rng, ba, bb, n=BATCH_N):
    return [(x, y) for x, y in add_pairs(rng, ba, bb, n)]


# -- exactness ------------------------------------------------------------------------------
@pytest.mark.parametrize("ba,bb", PAIRS)
def test_ops_exact(client, rng, ba, bb):
    A, B = zip(*_pairs(rng, ba, bb))
    SA, SB = zip(*sub_pairs(rng, max(ba, bb), min(ba, bb), BATCH_N))
    D = [divisor(rng, bb) for _ in range(BATCH_N)]
    low = max(ba, bb) // 2 + 3
    a, b = cd.from_ints(A, bits=ba, chunks=CHUNK), cd.from_ints(B, bits=bb, chunks=CHUNK)
    sa, sb = cd.from_ints(SA, chunks=CHUNK), cd.from_ints(SB, chunks=CHUNK)
    d = cd.from_ints(D, bits=bb, chunks=CHUNK)
    assert a.npartitions == 4
    q, r = cd.divmod(a, d)
    outs = {"add": cd.add(a, b), "sub": cd.sub(sa, sb), "mul": cd.mul(a, b),
            "mul_low": cd.mul_low(a, b, bits=low), "q": q, "r": r,
            "floordiv": cd.floordiv(a, d), "mod": cd.mod(a, d), "square": a * a}
    got = dict(zip(outs, compute(*outs.values())))
    A, B, SA, SB, D = (list(map(gmpy2.mpz, v)) for v in (A, B, SA, SB, D))
    expect = {"add": [x + y for x, y in zip(A, B)], "sub": [x - y for x, y in zip(SA, SB)],
              "mul": [x * y for x, y in zip(A, B)], "mul_low": [(x * y) % (1 << low) for x, y in zip(A, B)],
              "q": [x // y for x, y in zip(A, D)], "r": [x % y for x, y in zip(A, D)],
              "floordiv": [x // y for x, y in zip(A, D)], "mod": [x % y for x, y in zip(A, D)],
              "square": [x * x for x in A]}
    for k in outs:
        check_values(got[k], expect[k], f"clbig.dask {k} {ba}x{bb}")
    # capacities are clbig's own for the same operands
    ca, cb, cdv = clbig.array(A[:2], bits=ba), clbig.array(B[:2], bits=bb), clbig.array(D[:2], bits=bb)
    one = {"add": clbig.add(ca, cb), "mul": clbig.mul(ca, cb), "mul_low": clbig.mul_low(ca, cb, bits=low),
           "q": clbig.divmod(ca, cdv)[0], "r": clbig.divmod(ca, cdv)[1],
           "floordiv": clbig.floordiv(ca, cdv), "mod": clbig.mod(ca, cdv)}
    for k, v in one.items():
        assert outs[k].bits == v.bits and outs[k].m == v.m, k
    assert outs["sub"].bits == max(sa.bits, sb.bits)


def test_chunks_of_operands_differ(client, rng):
    A, B = zip(*_pairs(rng, 1056, 1056))
    a = cd.from_ints(A, chunks=CHUNK)
    b = cd.from_ints(B, chunks=7)
    p = cd.mul(b, a)
    assert p.chunks == b.chunks   # the first operand's chunks
    check_values(p.to_ints(), [x * y for x, y in zip(A, B)], "mul, chunks 7 against 16")


@pytest.mark.parametrize("how", ["int", "list", "lazy", "numpy"])
def test_broadcast_one_divisor(client, rng, how):
    A = [rand_value(rng, 1056) for _ in range(BATCH_N)]
    v = divisor(rng, 96) | (1 << 95)
    a = cd.from_ints(A, chunks=CHUNK)
    m = {"int": v, "list": [v], "lazy": cd.from_ints([v], bits=96),
         "numpy": cd.from_limbs(np.array([[(v >> (32 * k)) & 0xFFFFFFFF for k in range(3)]], np.uint32))}[how]
    q, r = cd.divmod(a, m)
    assert (q.bits, r.bits) == (1056, 96)
    q, r, s = compute(q, r, cd.add(m, a))
    check_values(q, [x // v for x in A], f"a // one divisor ({how})")
    check_values(r, [x % v for x in A], f"a % one divisor ({how})")
    check_values(s, [x + v for x in A], f"one + a ({how})")


def test_broadcast_one_dividend(client, rng):
    B = [divisor(rng, 96) for _ in range(BATCH_N)]
    u = rand_value(rng, 1000) | (1 << 999)
    got = cd.mod(u, cd.from_ints(B, chunks=CHUNK))
    assert got.bits == 96
    check_values(got.to_ints(), [u % y for y in B], "one dividend % b")


def test_from_limbs_and_to_ints(client, rng):
    A = [rand_value(rng, 100) for _ in range(BATCH_N)]
    limbs = clbig.array(A, bits=128).to_limbs()
    x = cd.from_limbs(da.from_array(limbs, chunks=(CHUNK, 2)), bits=100)
    assert (x.bits, x.m, x.chunks) == (100, 4, (16, 16, 16, 2))
    check_values(cd.to_ints(x), A, "from_limbs(dask uint32)")
    x64 = cd.from_limbs(da.from_array(limbs.view("<u8"), chunks=(CHUNK, 1)), bits=100)
    check_values((x64 + x).to_ints(), [2 * v for v in A], "from_limbs(dask uint64) + x")
    wide = np.concatenate([limbs, np.zeros((BATCH_N, 3), np.uint32)], axis=1)
    check_values(cd.from_limbs(wide, bits=100, chunks=CHUNK).to_ints(), A, "from_limbs(numpy, wider)")
    check_values(cd.to_ints(x.limbs), A, "to_ints(dask array)")
    empty = cd.from_ints([])
    assert cd.add(empty, empty).to_ints() == [] and len(cd.mul(empty, 5)) == 0


def test_without_distributed_scheduler(rng):
    """The same graph on Dask's synchronous scheduler: this process opens its own device."""
    A, B = zip(*_pairs(rng, 96, 64))
    p = cd.mul(cd.from_ints(A, bits=96, chunks=CHUNK), cd.from_ints(B, bits=64, chunks=CHUNK))
    got = limbs_to_ints(p.limbs.compute(scheduler="sync"))
    check_values(got, [x * y for x, y in zip(A, B)], "mul on the sync scheduler")


def test_one_device_per_worker(client):
    devs = cd.worker_devices(client)
    assert len(devs) == 2 and all(isinstance(v, str) and v for v in devs.values())
    # the context is opened once per process and kept
    same = client.run(lambda: cd.worker_context() is cd.worker_context())
    assert all(same.values())


# -- modular arithmetic and gcd over dask ------------------------------------------------------
def test_powmod(client, rng):
    M = [divisor(rng, 1056) | 1 for _ in range(BATCH_N)]
    A = [rand_value(rng, 1056) % m for m in M]
    E = [rand_value(rng, 96) for _ in range(BATCH_N)]
    a, e, m = (cd.from_ints(v, chunks=CHUNK) for v in (A, E, M))
    got = cd.powmod(a, e, m)
    assert got.bits == m.bits
    check_values(got.to_ints(), [gmpy2.powmod(x, y, z) for x, y, z in zip(A, E, M)], "powmod")
    one = M[0]
    got = cd.powmod(cd.from_ints([x % one for x in A], chunks=CHUNK), 65537, one)
    check_values(got.to_ints(), [gmpy2.powmod(x % one, 65537, one) for x in A], "powmod, one e and m")


def test_mulmod(client, rng):
    M = [divisor(rng, 1056) for _ in range(BATCH_N)]     # odd and even moduli
    A = [rand_value(rng, 1056) % m for m in M]
    B = [rand_value(rng, 1056) % m for m in M]
    a, b, m = (cd.from_ints(v, bits=1056, chunks=CHUNK) for v in (A, B, M))
    got = cd.mulmod(a, b, m)
    assert got.bits == 1056
    check_values(got.to_ints(), [x * y % z for x, y, z in zip(A, B, M)], "mulmod")


def test_powmod_zero_modulus(client):
    one = importlib.import_module("clbig.mpz.modular")
    a = cd.from_ints(list(range(1, 40)), chunks=CHUNK)
    _raises_like(lambda: one.powmod(list(range(1, 40)), 3, 0), lambda: cd.powmod(a, 3, 0))
    M = [7] * 39
    M[20] = 0
    _raises_like(lambda: one.powmod(list(range(1, 40)), 3, M),
                 lambda: cd.powmod(a, 3, cd.from_ints(M, chunks=CHUNK)).to_ints())
    zero = cd.from_limbs(da.zeros((1, 1), dtype=np.uint32, chunks=1))
    _raises_like(lambda: one.powmod(list(range(1, 40)), 3, [0]),
                 lambda: cd.powmod(a, 3, zero).to_ints())


def test_invert(client, rng):
    M = [divisor(rng, 1056) | 1 for _ in range(BATCH_N)]
    A = [rand_value(rng, 1056) % m for m in M]
    A = [x if gmpy2.gcd(x, m) == 1 else 1 for x, m in zip(A, M)]
    a, m = cd.from_ints(A, bits=1056, chunks=CHUNK), cd.from_ints(M, bits=1056, chunks=CHUNK)
    got = cd.invert(a, m)
    assert got.bits == 1056
    check_values(got.to_ints(), [pow(x, -1, z) for x, z in zip(A, M)], "invert")
    A[41] = 0
    one = importlib.import_module("clbig.mpz.gcd")
    _raises_like(lambda: one.invert(A, M), lambda: cd.invert(cd.from_ints(A, chunks=CHUNK), M).to_ints())


def test_gcd(client, rng):
    G = [rand_value(rng, 300) for _ in range(BATCH_N)]
    A = [g * rand_value(rng, 700) for g in G]
    B = [g * rand_value(rng, 200) for g in G]
    A[3], B[5] = 0, 0
    a, b = cd.from_ints(A, bits=1000, chunks=CHUNK), cd.from_ints(B, bits=500, chunks=CHUNK)
    got = cd.gcd(a, b)
    assert got.bits == 1000
    check_values(got.to_ints(), [gmpy2.gcd(x, y) for x, y in zip(A, B)], "gcd")


# -- bad input: what clbig raises in one process ----------------------------------------------
def _raises_like(one_process, distributed_call):
    """Both calls raise the same exception type with the same message (up to the name of the
    function that says it expects a sequence)."""
    with pytest.raises(Exception) as want:
        one_process()
    with pytest.raises(want.type) as got:
        distributed_call()
    assert str(got.value).replace("clbig.dask.from_ints", "clbig.array") == str(want.value)


@pytest.mark.parametrize("values,bits", [([1, 2.0], None), ([1, True], None),
                                         ([1, 2 ** 70, 3], 64), ([1], 0), ("abc", None), (1.5, None)])
def test_bad_values(client, values, bits):
    _raises_like(lambda: clbig.array(values, bits=bits), lambda: cd.from_ints(values, bits=bits))


def test_unsigned_only(client, rng):
    """Limbs hold no sign: negative values are refused, a negative difference raises (clbig
    itself may hold signed values; clbig.dask does not)."""
    with pytest.raises(ValueError, match="element 1: negative"):
        cd.from_ints([1, -5, 3])
    a = cd.from_ints(list(range(1, 8)), chunks=3)
    with pytest.raises(ValueError, match="negative"):
        cd.add(a, -1)
    with pytest.raises(ValueError, match="negative"):
        cd.mul(a, [-1])
    A = [rand_value(rng, 96) | (1 << 95) for _ in range(BATCH_N)]
    B = [rand_value(rng, 64) for _ in range(BATCH_N)]
    B[37] = A[37] + 1          # the one negative difference, in the third chunk
    with pytest.raises(ValueError, match=r"^subtraction would be negative: b > a at index 37$"):
        cd.sub(cd.from_ints(A, chunks=CHUNK), cd.from_ints(B, chunks=CHUNK)).to_ints()
    with pytest.raises(ValueError, match=r"at index 0$"):
        cd.sub(cd.from_ints([5], chunks=1), cd.from_ints([6], chunks=1)).to_ints()


def test_bad_operands(client):
    a = cd.from_ints(list(range(1, 8)), chunks=3)
    ca = clbig.array(list(range(1, 8)))
    _raises_like(lambda: clbig.add(ca, [1, 2]), lambda: cd.add(a, [1, 2]))
    _raises_like(lambda: clbig.mul(ca, ca, algorithm="fft"), lambda: cd.mul(a, a, algorithm="fft"))
    _raises_like(lambda: clbig.divmod(ca, ca, algorithm="x"), lambda: cd.divmod(a, a, algorithm="x"))
    _raises_like(lambda: clbig.mul_low(ca, ca, bits=0), lambda: cd.mul_low(a, a, bits=0))
    _raises_like(lambda: clbig.divmod(ca, 0), lambda: cd.divmod(a, 0))        # before any task
    _raises_like(lambda: clbig.mod(ca, [0]), lambda: cd.mod(a, [0]))
    with pytest.raises(TypeError, match="operand b"):
        cd.add(a, "x")
    with pytest.raises(TypeError):
        cd.from_limbs(np.zeros((3, 2), np.int32))
    with pytest.raises(ValueError, match="bits=65"):
        cd.from_limbs(np.zeros((3, 2), np.uint32), bits=65)


def test_bad_rows_named_by_their_index_in_the_batch(client, rng):
    """Errors found while a chunk runs name the row in the whole batch, as clbig does."""
    A = [rand_value(rng, 96) | (1 << 95) for _ in range(BATCH_N)]
    B = [rand_value(rng, 64) for _ in range(BATCH_N)]
    bad = 37          # in the third chunk
    a = cd.from_ints(A, chunks=CHUNK)
    D = [v or 1 for v in B]
    D[bad] = 0
    _raises_like(lambda: clbig.divmod(A, D), lambda: cd.divmod(a, cd.from_ints(D, chunks=CHUNK))[0].to_ints())
    _raises_like(lambda: clbig.mod(A, D), lambda: cd.mod(a, cd.from_ints(D, chunks=CHUNK)).to_ints())
    lazy_zero = cd.from_limbs(da.zeros((1, 2), dtype=np.uint32, chunks=1))
    _raises_like(lambda: clbig.floordiv(A, [0]), lambda: cd.floordiv(a, lazy_zero).to_ints())
    limbs = clbig.array([v >> 6 for v in A], bits=96).to_limbs()   # all fit 90 bits but one
    limbs[bad + 4, 2] = 1 << 30
    _raises_like(lambda: clbig.from_limbs(limbs, bits=90),
                 lambda: cd.from_limbs(da.from_array(limbs, chunks=(CHUNK, 3)), bits=90).to_ints())


# -- a worker lost in the middle (last: the cluster has a new worker afterwards) ---------------
def test_worker_killed_mid_computation(client, rng):
    """Products persisted on the workers, then a computation on them held at a gate while one
    worker (holding some of the products) is killed: the nanny starts a new one, Dask recomputes
    the lost chunks, and the result is still exact."""
    A, B = zip(*_pairs(rng, 1056, 1056))
    a, b = cd.from_ints(A, chunks=CHUNK), cd.from_ints(B, chunks=CHUNK)
    p = cd.mul(a, b).persist()
    distributed.wait(p.limbs, timeout=TIMEOUT)
    gate = f"clbig-gate-{uuid.uuid4().hex}"

    def hold(block):   # a local function: pickled by value, the workers cannot import this file
        distributed.Event(gate).wait(timeout=TIMEOUT)
        return block

    held = cd.BigIntDaskArray(p.limbs.map_blocks(hold, dtype=np.uint32, meta=np.empty((0, 0), np.uint32)), p.bits)
    fut = client.compute(cd.add(held, a).limbs)
    # wait until both workers run a held task, then kill one that holds products
    deadline = time.monotonic() + TIMEOUT
    while True:
        running = {w: ks for w, ks in client.processing().items() if any("hold" in str(k) for k in ks)}
        if len(running) == 2:
            break
        assert time.monotonic() < deadline, f"the held tasks never ran: {client.processing()}"
        time.sleep(0.05)
    owners = client.who_has(p.limbs)
    held_by = {}
    for k, ws in owners.items():
        for w in ws:
            held_by.setdefault(w, []).append(k)
    victim = max(held_by, key=lambda w: len(held_by[w]))
    before = set(client.scheduler_info()["workers"])
    pid = client.run(os.getpid, workers=[victim])[victim]
    os.kill(pid, signal.SIGKILL)   # as a crash would: no goodbye to the scheduler
    deadline = time.monotonic() + TIMEOUT
    while victim in client.scheduler_info()["workers"]:
        assert time.monotonic() < deadline, "the killed worker never left"
        time.sleep(0.05)
    distributed.Event(gate).set()
    got = limbs_to_ints(fut.result(timeout=TIMEOUT))
    check_values(got, [x * y + x for x, y in zip(A, B)], "a*b + a after a worker was killed")
    client.wait_for_workers(2, timeout=TIMEOUT)
    assert set(client.scheduler_info()["workers"]) != before and held_by[victim]
