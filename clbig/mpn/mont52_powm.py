"""Two forms of modular exponentiation on the FP64 Montgomery kernel (kernels_cl/mont52.cl.mako,
one work-item per instance, plans from clbig.mpn.mont52), for odd moduli:

* a fixed base: g^e_i mod m for one g and one m across the batch (Diffie-Hellman keys, ElGamal,
  Schnorr). A table T[j][d] = g^(d 2^(W j)) R mod m, built once on the device and shared by
  every row, turns each row into ceil(bits / W) products and no squares (Yao's / Brickell's
  fixed-base windows), against bits squares and bits / w products for a general power.
* products of powers: b_1^e_1 ... b_K^e_K mod m per row (Straus / Shamir): one chain of
  squares shared by the K powers, K tables of 2^W entries per instance; K = 2 costs about
  bits (1 + 2 / W) products against bits (1 + 1 / W) for one power.

Operands arrive as 32-bit limb rows (a stride of 0 broadcasts one row), bases below R
(mont52.fit) and exponents >= 0; results leave as NM limbs, fully reduced.
"""
from __future__ import annotations

import numpy as np

from . import mont52
from .mont import window, within
from ..runtime import plan as P
from ..runtime.render import launch

MAX_W = 8                 # the fixed-base table: at most 2^8 entries per window
TABLE_SHARE = 4           # a table takes at most 1 / TABLE_SHARE of the largest buffer


def fixed_window(ctx, pl, ebits: int, n: int) -> int:
    """W for a fixed-base table over ebits-bit exponents and n rows: the fewest products, n
    rows of ceil(ebits / W) each plus the table's 2^W entries per window of about 1.5 W + 1
    products each, within MAX_W and the table's memory share."""
    room = ctx.profile.facts.max_alloc // TABLE_SHARE

    def cost(w):
        nwin = P.ceil_div(ebits, w)
        return nwin * (n + (1 << w) * (1.5 * w + 1)), w

    fits = [w for w in range(1, MAX_W + 1)
            if 8 * pl["N"] * P.ceil_div(ebits, w) << w <= room]
    return min(fits or [1], key=cost)


def fixed_table(ctx, pl, g, sg: int, mg: int, m, nm: int, r2, w: int, nwin: int):
    """The device table of G_j = g^(2^(w j)) mod m (nwin rows of mg limbs at g, stride sg):
    T[j][d] = G_j^d R mod m as N doubles per entry, nwin 2^w entries."""
    entries = nwin << w
    pl = dict(pl)
    k = mont52._build(ctx, pl, "mont52.cl.mako", "fixtab52", KERNEL="fixtab", NM=nm, MA=0, MB=0,
                      ME=0, W=w, SQR=False, MSH=False)
    tab = ctx.buffer(8 * pl["N"] * entries)
    launch(ctx, k, P.ceil_div(entries, pl["WG"]), pl["WG"], g, np.uint64(sg), np.uint32(mg), m,
           np.uint64(0), r2, tab, np.uint32(entries))
    return tab


def powmod_fixed(ctx, pl, tab, w: int, nwin: int, e, se: int, me: int, m, nm: int, n: int):
    """g^e mod m for n rows of exponents (me limbs, stride se) below 2^(w nwin), from
    fixed_table's table; an (n, nm) device array."""
    out = ctx.empty((n, nm), np.uint32)
    if n == 0:
        return out
    pl = dict(pl)
    msh = mont52._msh(ctx.profile.settings, pl, 0)
    k = mont52._build(ctx, pl, "mont52.cl.mako", "fixpow52", KERNEL="fixpow", NM=nm, MA=0, MB=0,
                      ME=0, W=w, SQR=False, MSH=msh)
    launch(ctx, k, P.ceil_div(n, pl["WG"]), pl["WG"], tab, e, np.uint64(se), np.uint32(me), m,
           np.uint64(0), out.data, np.uint32(nwin), np.uint32(n))
    return out


def multi_window(ctx, pl, ebits: int, k: int, n: int) -> int:
    """W for k tables per instance: the general power's (mont.window: ebits / W + 2^W products,
    each term k times over), smaller where the tables would pass the largest buffer."""
    inst = P.ceil_div(max(n, 1), pl["IPB"]) * pl["IPB"]
    return within(window(ebits), 8 * pl["N"] * k * inst, ctx.profile.facts.max_alloc)


def multi_powmod(ctx, pl, bases, exps, m, sm: int, nm: int, r2, sr2: int, n: int, ebits: int,
                 w: int | None = None):
    """prod_k b_k^e_k mod m for n instances: bases and exps are K (buffer, stride, limbs) rows
    (bases below R, exponents below 2^ebits); an (n, nm) device array."""
    out = ctx.empty((n, nm), np.uint32)
    if n == 0:
        return out
    K = len(bases)
    pl = dict(pl)
    s = ctx.profile.settings
    w = w or s.mont_w or multi_window(ctx, pl, ebits, K, n)
    sqr = pl["N"] <= s.get("mont52_sqr_max", mont52.SQR_MAX if P.is_gpu(ctx) else 0)
    k = mont52._build(ctx, pl, "mont52.cl.mako", "multipow52", KERNEL="multipow", NM=nm, MA=0,
                      MB=0, ME=0, K=K, W=w, SQR=sqr, MSH=mont52._msh(s, pl, sm))
    groups = P.ceil_div(n, pl["IPB"])
    tab = ctx.buffer(8 * groups * pl["IPB"] * pl["N"] * K << w)
    args = []
    for (b, sb, mb), (e, se, me) in zip(bases, exps):
        args += [b, np.uint64(sb), np.uint32(mb), e, np.uint64(se), np.uint32(me)]
    launch(ctx, k, groups, pl["WG"], *args, m, np.uint64(sm), r2, np.uint64(sr2), out.data, tab,
           np.uint32(P.ceil_div(ebits, w)), np.uint32(n))
    return out
