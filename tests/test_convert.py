"""Bulk conversion of Python ints / gmpy2 mpz to limbs and back (clbig/mpn/convert.py): the C
extension clbig.mpn._limbs and the pure-Python path, each checked against limbs computed with
gmpy2 on random and edge values, signs, capacities, batch lengths and bad input."""
from __future__ import annotations

import os
import shutil
import sys
import sysconfig
import tempfile

import gmpy2
import numpy as np
import pytest

import clbig
from clbig.mpn import convert, radix

from conftest import BATCH, edge_values, rand_value

# one limb, odd limb counts, widths that are not limb multiples, digit (30) and limb edges,
# and large ones (several thousand digits per value)
WIDTHS = [1, 7, 30, 31, 32, 33, 60, 63, 64, 65, 96, 100, 256, 1000, 2048, 4128, 65536, 65536 + 5]
LENGTHS = [0, 1, 2, BATCH]
PATHS = [pytest.param(False, id="C"), pytest.param(True, id="python")]


def ref_limbs(vals, bits):
    """The magnitudes' limbs, computed with gmpy2 (not with the code under test)."""
    m = max(1, -(-bits // 32))
    rows = []
    for v in vals:
        mag = abs(gmpy2.mpz(v))
        rows.append([int((mag >> (32 * j)) & 0xFFFFFFFF) for j in range(m)])
    return np.array(rows, dtype=np.uint32).reshape(len(vals), m)


def signed_values(rng, bits, n):
    vals = [rand_value(rng, bits) for _ in range(n)]
    edges = edge_values(bits)
    for i in range(0, n, 3):   # edges in every batch, in random places
        vals[i] = rng.choice(edges)
    return [-v if rng.random() < 0.4 else v for v in vals]


def check_round_trip(vals, bits, pure, want_bits=None):
    limbs, got_bits, neg = convert.from_ints(vals, bits, pure=pure)
    want_bits = bits if want_bits is None else want_bits
    assert got_bits == want_bits
    assert limbs.dtype == np.uint32 and limbs.shape == (len(vals), max(1, -(-want_bits // 32)))
    assert np.array_equal(limbs, ref_limbs(vals, want_bits)), "limbs differ from gmpy2's"
    want_neg = [v < 0 for v in vals]
    if any(want_neg):
        assert neg.tolist() == want_neg
    else:
        assert neg is None
    back = convert.to_ints(limbs, neg, pure=pure)
    assert back == [int(v) for v in vals]
    assert all(type(x) is int for x in back)
    as_mpz = convert.to_ints(limbs, neg, mpz=True, pure=pure)
    assert all(type(x) is type(gmpy2.mpz(0)) for x in as_mpz)
    assert as_mpz == [gmpy2.mpz(v) for v in vals]


@pytest.mark.parametrize("pure", PATHS)
@pytest.mark.parametrize("bits", WIDTHS)
def test_random_signed_values(rng, pure, bits):
    for n in LENGTHS:
        check_round_trip(signed_values(rng, bits, n), bits, pure)


@pytest.mark.parametrize("pure", PATHS)
@pytest.mark.parametrize("bits", [1, 32, 33, 64, 65, 2048, 65536 + 5])
def test_edges(pure, bits):
    top = (1 << bits) - 1   # the capacity's maximum, all-ones limbs
    vals = edge_values(bits)
    check_round_trip(vals, bits, pure)
    check_round_trip([-v for v in vals], bits, pure)
    check_round_trip([top, -top, 0, 1, -1, top], bits, pure)
    check_round_trip([top], bits, pure)
    check_round_trip([-top], bits, pure)


@pytest.mark.parametrize("pure", PATHS)
def test_default_capacity(pure):
    check_round_trip([], None, pure, want_bits=32)
    check_round_trip([0, 0, 0], None, pure, want_bits=32)
    check_round_trip([1], None, pure, want_bits=32)
    check_round_trip([2**32 - 1, 5], None, pure, want_bits=32)
    check_round_trip([5, -(2**32)], None, pure, want_bits=64)
    check_round_trip([3**1000, -7], None, pure, want_bits=1600)


@pytest.mark.parametrize("pure", PATHS)
def test_64_bit_boundaries_coming_back(pure):
    """Values of up to 64 bits come back through CPython's constructors, larger ones through
    digits: both sides of 2^63 and 2^64, signed."""
    vals = [2**62, 2**63 - 1, 2**63, 2**63 + 1, 2**64 - 1, 2**64, 2**64 + 1, 2**90 + 3]
    check_round_trip(vals + [-v for v in vals], 96, pure)


@pytest.mark.parametrize("pure", PATHS)
def test_inputs_of_every_kind(rng, pure):
    x = rng.getrandbits(300)

    class MyInt(int):
        pass

    vals = [gmpy2.mpz(x), -gmpy2.mpz(x), x, MyInt(-x), np.uint64(2**64 - 1), np.int32(-7),
            gmpy2.mpz(0), 0]
    want = [int(v) for v in vals]
    for given in (vals, tuple(vals), (v for v in vals), np.array(vals, dtype=object)):
        limbs, bits, neg = convert.from_ints(given, pure=pure)
        assert bits == 320
        assert np.array_equal(limbs, ref_limbs(want, bits))
        assert neg.tolist() == [v < 0 for v in want]
        assert convert.to_ints(limbs, neg, pure=pure) == want
    # mpz only, a large batch of them
    mp = [gmpy2.mpz(rng.getrandbits(2048)) * (-1) ** i for i in range(BATCH)]
    check_round_trip(mp, 2048, pure)


@pytest.mark.parametrize("pure", PATHS)
@pytest.mark.parametrize("bad", [2.0, "7", None, True, np.bool_(False), 1j, gmpy2.mpq(1, 2)])
def test_non_integers_named_mid_batch(rng, pure, bad):
    vals = [rng.getrandbits(100) for _ in range(BATCH)]
    vals[7] = bad
    vals[12] = 1 << 200     # too large for bits=100, but the type is reported first
    with pytest.raises(TypeError, match=r"^element 7: expected an integer, got "):
        convert.from_ints(vals, 100, pure=pure)
    with pytest.raises(TypeError, match=r"^element 7: "):
        convert.from_ints(iter(vals), pure=pure)


@pytest.mark.parametrize("pure", PATHS)
def test_too_large_named_mid_batch(rng, pure):
    vals = [rng.getrandbits(64) for _ in range(BATCH)]
    vals[9] = -(1 << 64)
    vals[15] = gmpy2.mpz(1) << 70
    with pytest.raises(OverflowError, match=r"^element 9: value of 65 bits does not fit bits=64$"):
        convert.from_ints(vals, 64, pure=pure)
    vals[9] = 5
    with pytest.raises(OverflowError, match=r"^element 15: value of 71 bits does not fit bits=64$"):
        convert.from_ints(vals, 64, pure=pure)
    with pytest.raises(OverflowError, match="element 0: value of 2 bits does not fit bits=1"):
        convert.from_ints([2], 1, pure=pure)


@pytest.mark.parametrize("pure", PATHS)
@pytest.mark.parametrize("bits,exc", [(0, ValueError), (-3, ValueError), (2.5, TypeError), (True, TypeError)])
def test_bad_capacity(pure, bits, exc):
    with pytest.raises(exc, match="bits must be a positive integer"):
        convert.from_ints([1], bits, pure=pure)


@pytest.mark.parametrize("pure", PATHS)
def test_to_ints_input_checks(rng, pure):
    vals = [rng.getrandbits(96) for _ in range(5)]
    big = ref_limbs(vals, 96)
    wide = np.zeros((5, 7), np.uint32)
    wide[:, 1:4] = big
    assert convert.to_ints(wide[:, 1:4], pure=pure) == vals         # not contiguous
    assert convert.to_ints(big.astype(">u4"), pure=pure) == vals    # other byte order
    assert convert.to_ints(big, [False] * 5, pure=pure) == vals
    assert convert.to_ints(np.zeros((3, 2), np.uint32), [True] * 3, pure=pure) == [0, 0, 0]   # -0
    assert convert.to_ints(np.zeros((0, 4), np.uint32), pure=pure) == []
    with pytest.raises(ValueError, match=r"neg must have shape \(5,\)"):
        convert.to_ints(big, [True] * 4, pure=pure)
    with pytest.raises(ValueError, match=r"\(n, m\) limb matrix"):
        convert.to_ints(big.reshape(-1), pure=pure)


@pytest.mark.parametrize("pure", PATHS)
def test_pack_into_out(rng, pure):
    vals = signed_values(rng, 100, BATCH)
    s = convert.scan(vals, 100, pure=pure)
    out = np.full((BATCH, 4), 0xDEADBEEF, np.uint32)   # every limb written, padding included
    assert convert.pack(s, out) is out
    assert np.array_equal(out, ref_limbs(vals, 100))
    with pytest.raises(ValueError, match="C-contiguous uint32 array of shape"):
        convert.pack(s, np.zeros((BATCH, 5), np.uint32))


def _can_build() -> bool:
    """Whether setup.py could have built clbig.mpn._limbs here: CPython 3.9-3.13 (the layouts
    _limbs.c reads), its headers and a C compiler."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return (sys.implementation.name == "cpython" and (3, 9) <= sys.version_info[:2] <= (3, 13)
            and os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))
            and shutil.which(cc) is not None)


def test_extension_where_it_can_be_built():
    """Where the extension can be built it must be there and in use, or the C tests above
    would test the pure path twice (in a checkout: python setup.py build_ext --inplace);
    elsewhere every conversion takes the pure path."""
    if _can_build():
        assert convert._limbs is not None, "clbig.mpn._limbs is not built"
        assert convert._c_ok() and convert.native() == (not convert.PURE)
        _extension_guards(convert._limbs)
    else:
        assert not convert.native()
        assert convert.scan([1, -2], pure=False).c is False


def _extension_guards(L):
    """The extension's own checks, which no call through clbig.mpn.convert reaches: whatever it
    is given, it never writes or reads outside its buffers."""
    with pytest.raises(OverflowError, match="element 1: value of 65 bits does not fit 2 limbs"):
        L.pack([1, -(2**64)], np.empty((2, 2), np.uint32), 2)
    with pytest.raises(TypeError, match="element 0: expected an int, got float"):
        L.pack([1.0], np.empty((1, 1), np.uint32), 1)
    with pytest.raises(ValueError, match="out holds 12 bytes, not 2 values of 2 limbs"):
        L.pack([1, 2], np.empty(3, np.uint32), 2)
    with pytest.raises(ValueError, match="limbs per value must be positive"):
        L.pack([1, 2], np.empty(0, np.uint32), 0)
    with pytest.raises((TypeError, ValueError, BufferError)):   # not C-contiguous
        L.pack([1, 2], np.empty((2, 4), np.uint32)[:, ::2], 2)
    with pytest.raises((TypeError, ValueError, BufferError)):   # read-only
        L.pack([1, 2], np.frombuffer(bytes(16), np.uint32).reshape(2, 2), 2)
    with pytest.raises(ValueError, match="buffer holds 12 bytes, not 2 rows of 2 limbs"):
        L.unpack(np.zeros(3, np.uint32), 2, 2, None, None)
    with pytest.raises(ValueError, match="2 sign bytes for 3 rows"):
        L.unpack(np.zeros(6, np.uint32), 3, 2, np.zeros(2, bool), None)
    with pytest.raises(ValueError, match="bad shape"):
        L.unpack(b"", -1, 1, None, None)
    with pytest.raises(ZeroDivisionError):
        L.unpack(np.ones(4, np.uint32), 2, 2, None, lambda x: 1 // 0)


def test_extension_refused_when_it_disagrees(monkeypatch):
    class Wrong:
        @staticmethod
        def scan(vals, check):
            return 0, None, None

        @staticmethod
        def pack(vals, out, m):
            out[...] = 1

        @staticmethod
        def unpack(buf, n, m, neg, make):
            return [0] * n

    monkeypatch.setattr(convert, "_limbs", Wrong)
    monkeypatch.setattr(convert, "_checked", None)
    monkeypatch.setattr(convert, "PURE", False)
    with pytest.warns(RuntimeWarning, match="disagrees"):
        assert not convert.native()
    assert convert.to_ints(ref_limbs([5, 2**70], 96), [True, False]) == [-5, 2**70]


def test_missing_extension_is_said_once(monkeypatch):
    """Without the extension the first conversion warns once, saying how to get it; the
    conversions still compute; `describe` (python -m clbig info) says which path runs."""
    monkeypatch.setattr(convert, "_limbs", None)
    monkeypatch.setattr(convert, "_checked", None)
    monkeypatch.setattr(convert, "PURE", False)
    with pytest.warns(RuntimeWarning, match="not built.*compiler"):
        assert not convert.native()
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not convert.native()
        assert convert.to_ints(ref_limbs([5, 2**70], 96), [True, False]) == [-5, 2**70]
    assert "not built" in convert.describe()
    monkeypatch.setattr(convert, "PURE", True)
    assert "PURE_PYTHON" in convert.describe()


# -- threads ---------------------------------------------------------------------------------

@pytest.fixture(params=["native", "pool"])
def threaded(monkeypatch, request):
    """Every conversion through the C extension split over 3 threads in ranges of a few rows:
    on the extension's native threads (POSIX builds) and on the Python pool that other builds
    use."""
    if not convert.native():
        pytest.skip("the C extension is not built here")
    if request.param == "pool":
        monkeypatch.setattr(convert, "native_threads", lambda: False)
    elif not convert.native_threads():
        pytest.skip("no native threads in this build")
    monkeypatch.setenv("CLBIG_CONVERT_THREADS", "3")
    for name in ("THREAD_LIMBS", "PACK_THREAD_MIN_LIMBS", "UNPACK_THREAD_MIN_LIMBS", "UNPACK_TASK_LIMBS",
                 "SCAN_THREAD_MIN", "RAW_THREAD_MIN_LIMBS"):
        monkeypatch.setattr(convert, name, 1)


@pytest.mark.parametrize("raw", [pytest.param("1", id="raw"), pytest.param("0", id="locked")])
@pytest.mark.parametrize("bits", [31, 64, 65, 2048, 4128])
def test_threaded_round_trip(rng, threaded, monkeypatch, raw, bits):
    """Ranges of rows on several threads give what one thread gives: signed random and edge
    values, odd batch lengths, one row, an empty batch, as ints and as mpz, from a list and a
    tuple; with the ints made without the interpreter lock (raw) and with it."""
    monkeypatch.setenv("CLBIG_CONVERT_RAW_INTS", raw)
    assert convert.raw_ints() is (raw == "1" and convert._limbs.raw_ints())
    assert convert._ranges(7, 2, 1) is not None
    for n in (0, 1, 7, BATCH + 1):
        vals = signed_values(rng, bits, n)
        check_round_trip(vals, bits, False)
        check_round_trip(tuple(vals), bits, False)


def test_threaded_errors_name_the_element(rng, threaded):
    """A bad value in a later range is named by its index in the whole batch."""
    vals = [rand_value(rng, 100) for _ in range(50)]
    out = np.empty((50, 4), np.uint32)
    bad = list(vals)
    bad[41] = 1 << 200
    with pytest.raises(OverflowError, match="element 41: value of 201 bits"):
        convert._pack_rows(bad, out, 4)
    bad[41] = "x"
    with pytest.raises(TypeError, match="element 41: expected an int, got str"):
        convert._pack_rows(tuple(bad), out, 4)
    from clbig.mpn import _limbs
    with pytest.raises(ValueError, match=r"rows \[5, 60\) of 50"):
        _limbs.pack(vals, out, 4, 5, 60)
    with pytest.raises(ValueError, match=r"rows \[3, 2\) of 50"):
        _limbs.unpack(out, 50, 4, None, None, 3, 2)


def test_threaded_scan_hands_other_values_to_the_full_scan(rng, threaded, monkeypatch):
    """The threads' scan takes exact ints only: a batch with an mpz, a numpy integer or a bool
    anywhere goes to the one-thread scan, which converts the first two and names the third;
    the threads' own result (largest bit length, signs) is the full scan's."""
    vals = signed_values(rng, 700, 40)
    got = convert._scan_threads(vals)
    assert got is not None and got[0] == max(abs(v).bit_length() for v in vals)
    assert got[1].tolist() == [v < 0 for v in vals] and got[2] == tuple(vals)
    assert convert._scan_threads([abs(v) for v in vals])[1] is None
    mixed = list(vals)
    mixed[17], mixed[30] = gmpy2.mpz(mixed[17]), np.int64(-5)
    assert convert._scan_threads(mixed) is None
    s = convert.scan(mixed)
    assert [int(v) for v in s.vals] == [int(v) for v in mixed] and s.neg.tolist() == [v < 0 for v in mixed]
    mixed[33] = True
    with pytest.raises(TypeError, match="element 33: expected an integer, got bool"):
        convert.scan(mixed)
    monkeypatch.setattr(convert, "SCAN_THREAD_MIN", 10 ** 9)      # one thread: the same answers
    one = convert.scan(vals)
    assert convert._scan_threads(vals) is None and one.neg.tolist() == got[1].tolist()


@pytest.mark.parametrize("bits", [1, 31, 64, 100, 2048, 4127])
def test_threads_check_and_pack_in_one_pass_where_bits_are_given(rng, threaded, monkeypatch, bits):
    """from_ints with a capacity: the threads' one pass (scan_ints packing as it scans) gives
    the limbs, capacity and signs of the scan and then the pack, on signed random and edge
    values; a value past `bits` (not a whole number of limbs), a bool or an mpz anywhere sends
    the batch to the full path, which names or converts it."""
    passes = []
    real = convert._scan_pack_threads
    monkeypatch.setattr(convert, "_scan_pack_threads", lambda *a: passes.append(real(*a)) or passes[-1])
    for n in (1, 7, BATCH + 1):
        vals = signed_values(rng, bits, n)
        check_round_trip(vals, bits, False)
        assert passes[-1] is not None
    vals = [rand_value(rng, bits) for _ in range(40)]
    for bad, want in ((1 << bits, OverflowError), (True, TypeError), (gmpy2.mpz(1), None)):
        vals[29] = bad
        if want is None:
            limbs, _, _ = convert.from_ints(vals, bits)
            assert passes[-1] is None and int(limbs[29, 0]) == 1
        else:
            with pytest.raises(want, match="element 29"):
                convert.from_ints(vals, bits)
            assert passes[-1] is None
    from clbig.mpn import _limbs
    tup, negs = tuple(vals[:4]), np.empty(4, np.uint8)
    with pytest.raises(ValueError, match="out holds 12 bytes, not 4 rows of 1 limbs"):
        _limbs.scan_ints(tup, negs, 0, 4, np.empty(3, np.uint32), 1, 32)
    with pytest.raises(ValueError, match="33 bits in rows of 1 limbs"):
        _limbs.scan_ints(tup, negs, 0, 4, np.empty(4, np.uint32), 1, 33)


@pytest.mark.parametrize("bits", [64, 65, 2048, 4127])
def test_deferred_fills_on_threads(rng, threaded, monkeypatch, bits):
    """Ints made range after range on this thread while the pool fills the digits of the ranges
    before (forced for every width here, with the ints made under the lock): the same ints as
    one unpack, signed, the edges, mpz."""
    monkeypatch.setenv("CLBIG_CONVERT_RAW_INTS", "0")
    monkeypatch.setattr(convert, "UNPACK_THREAD_MIN_LIMBS", 10 ** 9)
    monkeypatch.setattr(convert, "DEFER_MIN_LIMBS", 1)
    monkeypatch.setattr(convert, "DEFER_MIN_THREADS", 1)
    calls = []
    real = convert._unpack_deferred
    monkeypatch.setattr(convert, "_unpack_deferred", lambda *a: calls.append(1) or real(*a))
    for n in (1, 7, BATCH + 1):
        vals = signed_values(rng, bits, n)
        limbs, _, neg = convert.from_ints(vals, bits)
        assert convert.to_ints(limbs, neg) == vals
        assert convert.to_ints(limbs, neg, mpz=True) == vals
    assert calls


def test_deferred_fill_checks_its_list(rng):
    """unpack_fill writes digits only into the ints unpack(..., defer) made for those rows."""
    if not convert.native():
        pytest.skip("the C extension is not built here")
    from clbig.mpn import _limbs
    vals = [rng.getrandbits(299) | 1 << 299 for _ in range(6)] + [5]   # 10 digits each, then a small one
    limbs, _, _ = convert.from_ints(vals, 320)
    lst = _limbs.unpack(limbs, 7, 10, None, None, 0, 7, True)
    _limbs.unpack_fill(lst, limbs, 7, 10, None)
    assert lst == vals
    with pytest.raises(ValueError, match="defer takes no make"):
        _limbs.unpack(limbs, 7, 10, None, int, 0, 7, True)
    lst = _limbs.unpack(limbs, 7, 10, None, None, 0, 7, True)
    held = lst[2]                                     # a second reference: not unpack's own
    with pytest.raises(ValueError, match="item 2 is not the int unpack left for row 2"):
        _limbs.unpack_fill(lst, limbs, 7, 10, None)
    del held
    with pytest.raises(ValueError, match="a list of 7 for rows"):
        _limbs.unpack_fill(lst, limbs, 7, 10, None, 0, 6)
    lst[0] = int("9" * 95)                            # another int: one digit more
    with pytest.raises(ValueError, match="item 0 is not the int unpack left"):
        _limbs.unpack_fill(lst, limbs, 7, 10, None)


@pytest.mark.parametrize("pure", PATHS)
def test_joined_hands_the_values_over(rng, pure, monkeypatch):
    """convert.joined (tolist's chunks, a split array's pieces): the values in order, each part
    left empty, every value's reference count as it was (no leak, none freed early); the C
    move refuses a slot already taken, a range past the end and one list twice."""
    monkeypatch.setattr(convert, "PURE", pure)
    parts = [[rng.getrandbits(2048) for _ in range(k)] for k in (5, 0, 1, 7)]
    want = [v for p in parts for v in p]
    counts = [sys.getrefcount(v) for v in want]
    got = convert.joined(parts)
    assert got == want and all(p == [] for p in parts)
    assert [sys.getrefcount(v) for v in want] == counts
    assert convert.joined([[]]) == [] and convert.joined([[3]]) == [3]
    if pure or not convert.native():
        return
    from clbig.mpn import _limbs
    dst = [None, 1, None]
    with pytest.raises(ValueError, match="item 1 of the list is taken"):
        _limbs.move_into(dst, 0, [7, 8])
    with pytest.raises(ValueError, match="2 items at 2 of a list of 3"):
        _limbs.move_into(dst, 2, [7, 8])
    with pytest.raises(TypeError, match="two distinct lists"):
        _limbs.move_into(dst, 0, dst)
    src = [2**300]
    _limbs.move_into(dst, 2, src)
    assert dst == [None, 1, 2**300] and src == []


@pytest.mark.parametrize("pure", PATHS)
def test_zipped_rows_take_their_values(rng, pure, monkeypatch):
    """convert.zipped (clbig.tolist's rows): list(zip(...))'s tuples, the lists left empty,
    every value's reference count as it was; the C rows are untracked tuples and leave the
    collector as they found it; a value the collector tracks takes zip's way; the C call
    refuses lists of two lengths, one list twice, and such a value, changing nothing."""
    import gc
    monkeypatch.setattr(convert, "PURE", pure)
    q = [rng.getrandbits(2048) - (1 << 2047) for _ in range(9)]
    r = list(map(gmpy2.mpz, (rng.getrandbits(70) for _ in range(9))))
    want = list(zip(q, r))
    counts = [sys.getrefcount(v) for v in q + r]
    got = convert.zipped([q, r])
    assert got == want and q == [] and r == [] and all(type(t) is tuple for t in got)
    assert [sys.getrefcount(v) for v in [t[0] for t in want] + [t[1] for t in want]] == counts
    assert convert.zipped([[], []]) == [] and convert.zipped([[4]]) == [(4,)]
    held = [1]
    assert convert.zipped([[held, 2], [3, 4]]) == [(held, 3), (2, 4)]      # a list: zip's way
    if pure or not convert.native():
        return
    from clbig.mpn import _limbs
    assert not gc.is_tracked(_limbs.zip_lists(([10**40], [5]))[0])
    gc.disable()
    try:
        _limbs.zip_lists(([1, 2], [3, 4]))
        assert not gc.isenabled()
    finally:
        gc.enable()
    a, b = [1, 2], [3]
    with pytest.raises(ValueError, match="lists of 2 and 1 items"):
        _limbs.zip_lists((a, b))
    with pytest.raises(ValueError, match="list 1 is list 0 again"):
        _limbs.zip_lists((a, a))
    with pytest.raises(TypeError, match="item 1 of list 0 is a list, which the collector tracks"):
        _limbs.zip_lists(([1, held], [3, 4]))
    assert a == [1, 2] and b == [3]


def test_converting_while_other_threads_mutate_lists(rng, threaded):
    """Conversions on several threads stay exact while other Python threads replace, append
    and drop ints in other lists (the ints read without the interpreter lock are held by
    the conversion's own tuple)."""
    import threading
    stop = threading.Event()
    shared = [[rand_value(rng, 3000) for _ in range(50)] for _ in range(4)]

    def churn(lst, seed):
        import random
        r = random.Random(seed)
        while not stop.is_set():
            lst[r.randrange(len(lst))] = r.getrandbits(3000)
            lst.append(r.getrandbits(500))
            lst.pop(0)

    workers = [threading.Thread(target=churn, args=(lst, i)) for i, lst in enumerate(shared)]
    for w in workers:
        w.start()
    try:
        for _ in range(20):
            vals = signed_values(rng, 4128, 200)
            limbs, _, neg = convert.from_ints(vals)
            assert np.array_equal(limbs, ref_limbs(vals, limbs.shape[1] * 32))
            assert convert.to_ints(limbs, neg) == vals
    finally:
        stop.set()
        for w in workers:
            w.join()


def test_a_list_changed_by_another_thread_converts_as_one_snapshot(rng, threaded):
    """A list that another Python thread keeps changing while it is converted (read in place
    on native threads, the caller holding the interpreter lock; a tuple of it on the pool):
    each row is a value its item held, never one item's sign with another value's magnitude,
    and the limbs and signs agree with the ints they give back."""
    import threading
    n, width = 3000, 700
    pos = [rand_value(rng, width) | 1 for _ in range(n)]
    alt = [-(v + 2) for v in pos]                    # another magnitude, the other sign
    lst = list(pos)
    stop = threading.Event()

    def flip():
        k = 0
        while not stop.is_set():
            for i in range(k % 7, n, 7):
                lst[i] = alt[i] if lst[i] is pos[i] else pos[i]
            k += 1

    t = threading.Thread(target=flip)
    t.start()
    try:
        for bits in (None, width + 2) * 6:
            limbs, _, neg = convert.from_ints(lst, bits)
            back = convert.to_ints(limbs, neg)
            assert all(v == p or v == a for v, p, a in zip(back, pos, alt))
            assert np.array_equal(limbs, ref_limbs(back, limbs.shape[1] * 32))
    finally:
        stop.set()
        t.join()


def test_mid_size_batches_with_a_capacity_share_out_on_native_threads(rng, monkeypatch):
    """Below the scan's threshold, a batch whose capacity is given is still checked and packed
    on native threads where the work is large enough (NATIVE_PACK_WORK): exact, signed, and
    a value past the capacity named by the full path."""
    if not (convert.native() and convert.native_threads()):
        pytest.skip("no native threads here")
    monkeypatch.setenv("CLBIG_CONVERT_THREADS", "2")
    n = convert.NATIVE_PACK_MIN + 1
    assert n < convert.SCAN_THREAD_MIN
    bits = -(-convert.NATIVE_PACK_WORK // n) * 32
    vals = signed_values(rng, bits, n)
    limbs, got_bits, neg = convert._scan_pack_threads(vals, bits)
    assert got_bits == bits and np.array_equal(limbs, ref_limbs(vals, bits))
    assert neg.tolist() == [v < 0 for v in vals]
    assert convert._scan_pack_threads([abs(v) & 0xFFFFFFFF for v in vals], 32) is None   # little work
    vals[n - 5] = 1 << bits
    assert convert._scan_pack_threads(vals, bits) is None
    with pytest.raises(OverflowError, match=f"element {n - 5}: value of {bits + 1} bits"):
        convert.from_ints(vals, bits)


def test_mpz_made_directly_on_the_threads(rng, monkeypatch):
    """Limbs to gmpy2 mpz without an int each (unpack_mpz: gmpy2's constructor, the limbs
    written on the threads): on POSIX builds it runs, and gives gmpy2's own values, types and
    hashes at every width and sign, on one thread and on three; rows and shapes are checked."""
    if not convert.native():
        pytest.skip("the C extension is not built here")
    assert convert.mpz_direct() is (os.name == "posix")
    if not convert.mpz_direct():
        return
    from clbig.mpn import _limbs
    monkeypatch.setenv("CLBIG_CONVERT_THREADS", "3")
    for bits in (1, 32, 63, 64, 65, 127, 128, 129, 4096 + 32):
        vals = signed_values(rng, bits, 41)
        limbs, _, neg = convert.from_ints(vals, bits)
        want = [gmpy2.mpz(v) for v in vals]
        for args in ((), (0, -1, 3, 7), (5, 40, 3, 41)):
            got = _limbs.unpack_mpz(limbs, 41, limbs.shape[1], neg, *args)
            lo = args[0] if args else 0
            hi = args[1] if args and args[1] >= 0 else 41
            assert got == want[lo:hi] and {type(g) for g in got} <= {type(gmpy2.mpz(0))}
            assert list(map(hash, got)) == list(map(hash, want[lo:hi]))
    with pytest.raises(ValueError, match=r"rows \[3, 2\) of 41"):
        _limbs.unpack_mpz(limbs, 41, limbs.shape[1], neg, 3, 2)
    with pytest.raises(ValueError, match="40 sign bytes for 41 rows"):
        _limbs.unpack_mpz(limbs, 41, limbs.shape[1], neg[:40])


_UNKNOWN_GMPY2 = """
import gmpy2
gmpy2.version = lambda: "2.9.0"           # a gmpy2 whose C API nobody has read
from clbig.mpn import convert, _limbs
import numpy as np
assert not _limbs.mpz_direct() and not convert.mpz_direct()
vals = [3**300, -(2**64), 0, 5]
limbs, _, neg = convert.from_ints(vals, 512)
got = convert.to_ints(limbs, neg, mpz=True)
assert got == vals and {type(g) for g in got} == {type(gmpy2.mpz(0))}
print("ok")
"""


def test_mpz_made_from_ints_under_a_gmpy2_version_not_read():
    """A gmpy2 other than 2.2 and 2.3 keeps the old path (an int each, then mpz): its
    constructor might use the context the direct path passes as NULL. Exact either way."""
    if not convert.native():
        pytest.skip("the C extension is not built here")
    import subprocess
    res = subprocess.run([sys.executable, "-c", _UNKNOWN_GMPY2], capture_output=True, text=True,
                         timeout=120, cwd=tempfile.gettempdir())
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == ["ok"]


def test_posix_builds_run_native_threads():
    """The extension's own threads exist wherever there are POSIX threads (a build without
    them would fall back to the Python pool, several times slower, without a word)."""
    if not convert.native():
        pytest.skip("the C extension is not built here")
    assert convert.native_threads() is (os.name == "posix")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_threaded_conversion_after_fork(rng, threaded):
    """The pool is made again in a forked child (the parent's threads do not exist there): a
    child's conversion completes and is exact, instead of waiting forever."""
    import multiprocessing as mp
    vals = signed_values(rng, 2048, 100)
    convert.from_ints(vals)                        # the parent's pool exists
    with mp.get_context("fork").Pool(1) as pool:
        got = pool.apply_async(_child_round_trip, (vals,)).get(timeout=60)
    assert got == vals


def _child_round_trip(vals):
    limbs, _, neg = convert.from_ints(vals)
    return convert.to_ints(limbs, neg)


def test_small_batches_ask_no_thread_count(monkeypatch):
    """A batch too small for threads converts without asking how many there are (the setting
    and the affinity call cost ~2 µs, most of a 3-value from_ints): with a capacity or
    without, signed, wide, and back."""
    if not convert.native():
        pytest.skip("the C extension is not built here")

    def asked():
        raise AssertionError("threads() asked for a small batch")

    monkeypatch.setattr(convert, "threads", asked)
    for vals in ([1, 2, 3], [1, -2, 3 << 100], list(range(-50, 50))):
        for bits in (None, 128):
            limbs, b, neg = convert.from_ints(vals, bits)
            assert convert.to_ints(limbs, neg) == vals and convert.to_ints(limbs, neg, mpz=True) == vals


def test_environment_forces_python(monkeypatch):
    monkeypatch.setattr(convert, "PURE", True)
    assert not convert.native()
    assert convert.scan([1, -2]).c is False


# -- through clbig.array / tolist ------------------------------------------------------------

@pytest.mark.parametrize("pure", PATHS)
@pytest.mark.parametrize("bits", [32, 100, 2048, 2 * radix.FAST_BITS + 5])
def test_array_and_tolist(rng, monkeypatch, pure, bits):
    monkeypatch.setattr(convert, "PURE", pure)
    for n in (1, 2, BATCH):
        vals = signed_values(rng, bits, n)
        a = clbig.array(vals, bits=bits)
        assert a.bits == bits and len(a) == n
        assert np.array_equal(a.to_limbs(magnitude=True), ref_limbs(vals, bits))
        assert a.tolist() == vals
        got = a.tolist(mpz=True)
        assert got == [gmpy2.mpz(v) for v in vals] and all(isinstance(v, type(gmpy2.mpz(0))) for v in got)
        assert clbig.array([gmpy2.mpz(v) for v in vals], bits=bits).tolist() == vals


@pytest.mark.parametrize("pure", PATHS)
def test_array_errors_and_empty(monkeypatch, pure):
    monkeypatch.setattr(convert, "PURE", pure)
    assert clbig.array([]).tolist() == []
    assert clbig.array([]).tolist(mpz=True) == []
    with pytest.raises(TypeError, match="element 2: expected an integer, got float"):
        clbig.array([1, 2, 3.0, 4])
    with pytest.raises(OverflowError, match="element 1: value of 9 bits does not fit bits=8"):
        clbig.array([1, -256, 3], bits=8)


# -- the benchmark (clbig/bench/convert.py) --------------------------------------------------

def test_bench_rows_and_table():
    from clbig.bench import convert as bc
    rows = bc.run_convert((64, 100), mbytes=0.01, reps=1)
    methods = ["baseline", "python"] + (["C"] if convert._c_ok() else [])
    assert [(r["bits"], r["method"], r["direction"]) for r in rows] == [
        (b, m, d) for b in (64, 100) for m in methods for d in ("in", "out", "out mpz")]
    assert all(r["mb_s"] > 0 and r["n"] == int(0.01 * 2**20) // (4 * -(-r["bits"] // 32)) for r in rows)
    table = bc.convert_markdown(rows).splitlines()
    assert len(table) == 2 + 6 and table[2].startswith("| 64 | 1310 | in |")
    assert table[4].startswith("| 64 | 1310 | out mpz |")


def test_bench_stops_on_a_wrong_conversion(monkeypatch):
    from clbig.bench import convert as bc
    real = convert.to_ints
    monkeypatch.setattr(convert, "to_ints", lambda limbs, pure=None: [0] * len(limbs))
    with pytest.raises(AssertionError, match="other ints than from_bytes"):
        bc.measure(256, mbytes=0.01, reps=1)
    monkeypatch.setattr(convert, "to_ints", lambda limbs, mpz=False, pure=None:
                        real(limbs, pure=pure) if not mpz else real(limbs, pure=pure)[::-1])
    with pytest.raises(AssertionError, match="other mpz than gmpy2's"):
        bc.measure(256, mbytes=0.01, reps=1)


# -- ints made without the interpreter lock ----------------------------------------------------

_ALLOCATOR_PROBE = """
import sys, tracemalloc
from clbig.mpn import convert
vals = [(-1) ** i * ((1 << 2047) + 12345 * i) for i in range(3000)] + [0, 1, -5, 2 ** 64, -2 ** 63]
limbs, _, neg = convert.from_ints(vals)
back = convert.to_ints(limbs, neg)
assert back == vals and convert.to_ints(limbs, neg, mpz=True) == vals
print(convert.raw_ints())
if sys.argv[1:] == ["late"]:
    tracemalloc.start()                  # hooks put over ints made without them, freed under them
    assert not convert.raw_ints()
    assert convert.to_ints(limbs, neg) == vals
    del back
    tracemalloc.stop()
    assert convert.raw_ints() and convert.to_ints(limbs, neg) == vals
print("ok")
"""


@pytest.mark.parametrize("env,flags,want", [
    ({}, [], "True"),
    ({"PYTHONMALLOC": "malloc"}, [], "True"),
    ({"PYTHONMALLOC": "debug"}, [], "False"),
    ({}, ["-X", "dev"], "False"),
], ids=["pymalloc", "malloc", "debug-hooks", "dev-mode"])
def test_ints_made_without_the_lock_only_under_cpythons_own_allocators(env, flags, want):
    """Each allocator CPython can be started with, in a fresh process on two conversion
    threads: exact round trips either way; ints made without the lock only where the object
    allocator frees such memory (pymalloc, malloc), never under debug hooks (which check a
    header such memory lacks: the interpreter would abort); tracemalloc started later turns
    it off, and ints made before it are freed under it."""
    if not convert.native():
        pytest.skip("the C extension is not built here")
    import subprocess
    run_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONMALLOC", "PYTHONDEVMODE")}
    run_env.update(env, CLBIG_CONVERT_THREADS="2")
    args = [sys.executable, *flags, "-c", _ALLOCATOR_PROBE] + (["late"] if want == "True" and not env else [])
    res = subprocess.run(args, env=run_env, capture_output=True, text=True, timeout=120,
                         cwd=tempfile.gettempdir())     # the installed clbig, not a checkout's
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == [want, "ok"]


_OUT_OF_MEMORY = """
import importlib.util, resource, sys
import numpy as np
spec = importlib.util.spec_from_file_location("clbig.mpn._limbs", sys.argv[1])
limbs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(limbs)
assert limbs.raw_ints()
m = 1 << 18                                        # 1 MiB a row, and an int of 1 MiB each
arr = np.full((160, m), 0xFFFFFFFF, np.uint32)
with open("/proc/self/statm") as f:
    used = int(f.read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (used + (100 << 20), resource.RLIM_INFINITY))
try:
    limbs.unpack(arr, 160, m, None, None, 0, -1, False, True)
except MemoryError:
    print("MemoryError")
got = limbs.unpack(arr, 160, m, None, None, 0, 80, False, True)   # fits only if the others were freed
assert len(got) == 80 and got[79] == (1 << (32 * m)) - 1
print("ok")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc, limits the address space")
def test_ints_made_without_the_lock_fail_cleanly_without_memory():
    """Where memory runs out part way through a batch, the ints made so far are freed and a
    MemoryError is raised: no crash, no leak (the half batch after it fits only if they
    were freed)."""
    if not convert.native():
        pytest.skip("the C extension is not built here")
    import subprocess
    res = subprocess.run([sys.executable, "-c", _OUT_OF_MEMORY, convert._limbs.__file__],
                         capture_output=True, text=True, timeout=120, cwd=tempfile.gettempdir())
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == ["MemoryError", "ok"]


_TRACEMALLOC_TOGGLED = """
import importlib.util, sys, threading, time, tracemalloc
import numpy as np
spec = importlib.util.spec_from_file_location("clbig.mpn._limbs", sys.argv[1])
limbs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(limbs)
assert limbs.raw_ints()
arr = np.full((20000, 8), 0xFFFFFFFF, np.uint32)
done, wrong = threading.Event(), []
def convert():
    while not done.is_set():
        got = limbs.unpack(arr, 20000, 8, None, None, 0, -1, False, True)
        wrong.extend(x for x in (got[0], got[-1]) if x != (1 << 256) - 1)
t = threading.Thread(target=convert)
t.start()
end = time.monotonic() + 1.0
while time.monotonic() < end:
    time.sleep(0.0003)                 # off: the thread's next batch makes its ints unlocked
    tracemalloc.start()                # and on while that batch runs
    time.sleep(0.0001)
    tracemalloc.stop()
done.set()
t.join()
print("ok" if not wrong else wrong)
"""


def test_ints_made_without_the_lock_while_tracemalloc_starts_and_stops():
    """tracemalloc started and stopped over and over by one thread while another makes ints
    without the lock: no crash, exact ints. Their memory came through PyMem_RawMalloc, which
    tracemalloc.start() hooks with a function that takes the lock: a call waiting for it while
    tracemalloc.stop() ran crashed the interpreter (gh-128679) within a tenth of a second."""
    if not convert.native():
        pytest.skip("the C extension is not built here")
    import subprocess
    res = subprocess.run([sys.executable, "-c", _TRACEMALLOC_TOGGLED, convert._limbs.__file__],
                         capture_output=True, text=True, timeout=120, cwd=tempfile.gettempdir())
    assert res.returncode == 0, (res.returncode, res.stderr[-2000:])
    assert res.stdout.split() == ["ok"]


@pytest.mark.skipif(sys.version_info < (3, 13), reason="PYTHONMALLOC=mimalloc is 3.13's")
def test_ints_made_with_the_lock_under_mimalloc():
    """3.13's mimalloc frees an object with mi_free, which cannot free the raw allocator's
    memory (the interpreter crashed), yet its statistics report success as pymalloc's do: ints
    are made under the lock there, and round trips are exact."""
    if not convert.native():
        pytest.skip("the C extension is not built here")
    import subprocess
    run_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONMALLOC", "PYTHONDEVMODE")}
    run_env.update(PYTHONMALLOC="mimalloc", CLBIG_CONVERT_THREADS="2")
    if subprocess.run([sys.executable, "-c", "pass"], env=run_env, capture_output=True).returncode:
        pytest.skip("this interpreter was built without mimalloc")
    res = subprocess.run([sys.executable, "-c", _ALLOCATOR_PROBE], env=run_env, capture_output=True,
                         text=True, timeout=120, cwd=tempfile.gettempdir())
    assert res.returncode == 0, (res.returncode, res.stderr[-2000:])
    assert res.stdout.split() == ["False", "ok"]


@pytest.mark.skipif(sys.version_info < (3, 13), reason="reference tracers are 3.13's")
def test_ints_made_without_the_lock_reach_a_reference_tracer():
    """A reference tracer (PyRefTracer_SetTracer) is told of every object made, as CPython's
    own constructors tell it: ints made without the lock too, else it would hear of their end
    only. The tracer counts its calls and makes no object (which would call it again)."""
    if not convert.native() or not convert._limbs.raw_ints():
        pytest.skip("ints are made under the lock here")
    import ctypes
    calls = []

    def tracer(count=calls.append):
        count(None)
        return 0

    hook = ctypes.CFUNCTYPE(ctypes.c_int)(tracer)
    set_tracer = ctypes.pythonapi.PyRefTracer_SetTracer
    set_tracer.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    limbs, unpack = np.full((1000, 4), 0xFFFFFFFF, np.uint32), convert._limbs.unpack
    set_tracer(ctypes.cast(hook, ctypes.c_void_p).value, None)
    try:
        before = len(calls)
        back = unpack(limbs, 1000, 4, None, None, 0, -1, False, True)
        told = len(calls) - before
    finally:
        set_tracer(None, None)
    assert told >= 1000 and back == [(1 << 128) - 1] * 1000
