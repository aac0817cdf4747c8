## Batched GCD and modular inverse (clbig/gcd_n.py): one work-item per instance, every instance
## of a SIMD group stepping through the same branch-free rounds (blocks/gcd.mako): 30 binary
## steps on 64-bit approximations give a 2x2 matrix, applied to the whole digit vectors.
##
## gcd_batch: z = the common trailing zeros of a and b; x = a >> z, y = b >> z in 30-bit digits,
##   swapped so that y is odd. Rounds until x = 0 keep gcd(x, y) (y stays odd, and each round's
##   matrix has determinant +-2^30); the result y << z is stored in MR limbs where its bit length
##   fits `cap` (else the instance is flagged and stores nothing: the host retries wider).
## inv_batch: x = a, y = w = the modulus (odd; M digits, 2w < 2^(30 M)), u = 1, v = 0 with
##   x = u a, y = v a (mod w) throughout; u, v take the rounds' rows divided by 2^30 mod w
##   (Montgomery-style), COF rounds at once (2: the product of two rounds' matrices, applied by
##   one pass over u, v, w per two rounds: the cofactors run the full length of w while x, y
##   shrink, so they are most of the work and of the memory traffic), and lazily reduced (kept
##   in [0, 2w), see cof_update). At x = 0, y = gcd(a, w): the inverse is v where y = 1. Even
##   and zero moduli are flagged (clbig/gcd.py computes the even ones from an odd modulus).
## Digits of an instance live in private arrays (STORE "private") or in the scratch buffer, digit
## j of vector k at scratch[(k M + j) np + instance] (STORE "global", coalesced).
## RT (CPUs' first tier, private store): the digits come at run time (mdig), the arrays sized
## for M, the most the store holds, so one build serves every width, where a CPU runtime built
## one per width (PoCL: 0.5-0.8 s each with its first launch); the loops run over the active
## length L either way. Without RT, mdig is not read.
## st (per instance): bit 0 ok (gcd: fits cap; inv: invertible), bit 1 round cap exceeded (never
## expected: the rounds are bounded by ceil((2 bitlen - 1) / 30), Pornin's bound), bit 2 even
## modulus, bit 3 zero modulus; rounds << 8.
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/gcd.mako" import="gcd_defs"/>
<%
    NV = 2 if MODE == "gcd" else 5
    RT = context.get("RT", False)     # M digits at run time (mdig), M only the arrays' capacity
    assert not RT or STORE == "private"
    MD = "mdig" if RT else "%du" % M
    def md(k):                        # k vectors' digits
        return "%du * mdig" % k if RT else "%du" % (k * M)
%>
${header()}
${gcd_defs(STORE)}

<%def name="vectors()">
% if STORE == "private":
    const uint st = 1u;
    uint buf[${NV * M}];
    SP uint *base = buf;
% else:
    const uint st = (uint)np;
    SP uint *base = scratch + i;
% endif
</%def>

## Shrink the active length L while the top digits of x and y are both zero.
<%def name="shrink()">
        while (L > 1u && (AT(x, L - 1u) | AT(y, L - 1u)) == 0u) --L;
</%def>

## One round on (x, y): approximations, 30 steps, the matrix applied, signs made positive.
## Leaves the matrix in mt (rows negated with their numbers) and `live` = (x != 0).
<%def name="round()">
        const uint hb = (L - 1u) * DIG + bitlen32(AT(x, L - 1u) | AT(y, L - 1u));
        int mt[4];
        divsteps(approx(x, st, L, hb), approx(y, st, L, hb), mt);
        const uint fl = update_pair(x, y, st, L, mt);
        if (fl & 1u) { negate(x, st, L); mt[0] = -mt[0]; mt[1] = -mt[1]; }
        if (fl & 2u) { negate(y, st, L); mt[2] = -mt[2]; mt[3] = -mt[3]; }
        live = (fl >> 2) & 1u;
</%def>

% if MODE == "gcd":
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void gcd_batch(__global const uint *a, ulong sa, uint ma, __global const uint *b, ulong sb,
               uint mb, __global uint *out, uint mr, uint cap, __global uint *stat,
               __global uint *scratch, ulong np, uint n, uint mdig)
{
    const uint i = get_global_id(0);
    if (i >= n) return;
    __global const uint *ap = a + (size_t)i * sa, *bp = b + (size_t)i * sb;
    __global uint *op = out + (size_t)i * mr;
    uint z = 0u, any = 0u;                    /* z: trailing zeros of a | b */
    for (uint j = 0; j < max(ma, mb); ++j) {
        const uint t = ld32(ap, ma, j) | ld32(bp, mb, j);
        if (t) { z = 32u * j + (31u - clz(t & (0u - t))); any = 1u; break; }
    }
    if (!any) {                               /* gcd(0, 0) = 0 */
        for (uint j = 0; j < mr; ++j) op[j] = 0u;
        stat[i] = 1u;
        return;
    }
    ${vectors()}
    SP uint *x = base, *y = base + (size_t)${MD} * st;
    /* y must be odd: where b >> z is even, a goes to y and b to x. The order is chosen by
       selecting the digits' values as they are stored, not by swapping the pointers x and y
       afterwards (issue #33): Intel's CPU runtime (2026.22.10, OpenCL 3.1) lays a private
       array out transposed across the 16 work-items it vectorises together, and addressed
       reads through such a per-work-item pointer as if it were not transposed (in every
       work-item, digit j read digit 0 of the j-th work-item's vector): every gcd wrong, at
       every M tried (2 to 137 digits). Valid OpenCL C, a compiler fault: the reduced kernel
       is tests/intel_reduced_gcd_swap.py, how it was found docs/devices.rst; each built
       kernel is checked on known answers (clbig/kernel_check.py, clbig/gcd_check.py). */
    const uint yodd = get_digit(bp, mb, z) & 1u;
    for (uint j = 0; j < ${MD}; ++j) {
        const uint da = get_digit(ap, ma, j * DIG + z), db = get_digit(bp, mb, j * DIG + z);
        AT(x, j) = yodd ? da : db;
        AT(y, j) = yodd ? db : da;
    }
    uint L = ${MD};
    ${shrink()}
    uint live = 0u;
    for (uint j = 0; j < L; ++j) live |= AT(x, j);
    uint rounds = 0u, fail = 0u;
    const uint limit = 2u * L + 4u;
    while (live) {
        if (++rounds > limit) { fail = 1u; break; }
        ${round()}
        ${shrink()}
    }
    /* the result y << z: its bit length must fit cap */
    const uint bl = (L - 1u) * DIG + bitlen32(AT(y, L - 1u)) + z;
    const uint ok = !fail && bl <= cap;
    if (ok)
        for (uint j = 0; j < mr; ++j) op[j] = get32(y, st, L, (int)(32u * j) - (int)z);
    stat[i] = ok | (fail << 1) | (rounds << 8);
}

% else:
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void inv_batch(__global const uint *a, ulong sa, uint ma, __global const uint *w, ulong sw,
               uint mw, __global uint *out, __global uint *stat, __global uint *scratch,
               ulong np, uint n, uint mdig)
{
    const uint i = get_global_id(0);
    if (i >= n) return;
    __global const uint *ap = a + (size_t)i * sa, *wp = w + (size_t)i * sw;
    __global uint *op = out + (size_t)i * mw;
    const uint w0 = wp[0];
    uint wnz = 0u, wbig = 0u;
    for (uint j = 0; j < mw; ++j) { wnz |= wp[j]; if (j) wbig |= wp[j]; }
    if (!(w0 & 1u)) {                         /* even or zero modulus: the host's case */
        for (uint j = 0; j < mw; ++j) op[j] = 0u;
        stat[i] = wnz ? 4u : 8u;
        return;
    }
    ${vectors()}
    SP uint *x = base, *y = base + (size_t)(${MD}) * st, *u = base + (size_t)(${md(2)}) * st;
    SP uint *v = base + (size_t)(${md(3)}) * st, *wd = base + (size_t)(${md(4)}) * st;
    const uint one = (wbig || w0 != 1u) ? 1u : 0u;   /* 1 mod w (0 when w = 1) */
    for (uint j = 0; j < ${MD}; ++j) {
        AT(x, j) = get_digit(ap, ma, j * DIG);
        const uint d = get_digit(wp, mw, j * DIG);
        AT(y, j) = d;
        AT(wd, j) = d;
        AT(u, j) = j ? 0u : one;
        AT(v, j) = 0u;
    }
    const ulong ninv = neg_inverse60(AT(wd, 0) | ((ulong)AT(wd, 1) << 30));
    uint L = ${MD};
    ${shrink()}
    uint live = 0u;
    for (uint j = 0; j < L; ++j) live |= AT(x, j);
    uint rounds = 0u, fail = 0u, lazy = 0u;   /* lazy: cof_update's flags (u, v >= w) */
    const uint limit = 2u * L + 4u;
    long P[4];                                /* the pending product of round matrices */
    uint pend = 0u;
    while (live) {
        if (++rounds > limit) { fail = 1u; break; }
        ${round()}
        ${shrink()}
% if COF == 2:
        /* (u, v) by every second round: P = this round's matrix times the previous one */
        if (!pend) {
            for (int k = 0; k < 4; ++k) P[k] = mt[k];
            pend = 1u;
            continue;
        }
        const long p0 = (long)mt[0] * P[0] + (long)mt[1] * P[2];
        const long p1 = (long)mt[0] * P[1] + (long)mt[1] * P[3];
        const long p2 = (long)mt[2] * P[0] + (long)mt[3] * P[2];
        const long p3 = (long)mt[2] * P[1] + (long)mt[3] * P[3];
        P[0] = p0; P[1] = p1; P[2] = p2; P[3] = p3;
% else:
        for (int k = 0; k < 4; ++k) P[k] = (long)mt[k] << 30;
% endif
        cof_update(u, v, wd, st, ${MD}, P, &lazy, ninv);
        pend = 0u;
    }
    if (pend) {                               /* one round left over: its matrix times 2^30 */
        for (int k = 0; k < 4; ++k) P[k] <<= 30;
        cof_update(u, v, wd, st, ${MD}, P, &lazy, ninv);
    }
    cof_reduce(v, wd, st, ${MD}, lazy & 2u);
    uint one_left = L == 1u && AT(y, 0) == 1u;  /* gcd(a, w) = 1 */
    const uint ok = !fail && one_left;
    for (uint j = 0; j < mw; ++j) op[j] = ok ? get32(v, st, ${MD}, (int)(32u * j)) : 0u;
    stat[i] = ok | (fail << 1) | (rounds << 8);
}
% endif
