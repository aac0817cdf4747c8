## Small per-instance helpers of the division (clbig/div_q.py); everything else in the division
## is the library's batch add / sub / mul / shift / compare.
##   bitlen : L = bit length of each instance of a (0 for zero; its ma limbs at run time: one
##            build for every width), one work-item per instance scanning down from the top
##            limb (it stops at the first non-zero limb); and the least L of each work-group
##            (WG, a power of two), so that the host learns of a zero divisor and the shortest
##            one from a word per group, not from every L.
##   vshift : r = floor(a * 2^off) mod 2^(32*MR) with a per-instance bit offset
##            off = sgn * len[inst * sl] + c (left for off > 0, right for off < 0); one work-item
##            per output limb gathering the two input limbs it straddles, as shift.cl.mako does.
##   inv_init: w = floor(2^96 / V) for the normalized two-limb prefix V (2^63 <= V < 2^64) of each
##            divisor: the first Newton iterate, 2 limbs (2^32 < w <= 2^33).
##   div_3by2: the basecase's quotient limb estimate on its own, one work-item per case
##            (n2 n1 n0 d1 d0 in, the 3-by-2 quotient out), for tests against exact division.
## MA / MR: input / output limbs (bitlen: unused, 0), WG the work-group size of bitlen (every
## kernel receives all three: strict_undefined).
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/div.mako" import="div_defs"/>
${header()}

% if KERNEL == "bitlen":
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void bitlen(__global const limb_t *a, ulong sa, __global uint *len, __global uint *gmin, uint n,
            uint ma)
{
    __local uint red[${WG}];
    const size_t i = get_global_id(0);
    const uint t = get_local_id(0);
    uint L = 0xFFFFFFFFu;                 /* padding items: min's neutral element */
    if (i < n) {
        __global const limb_t *ap = a + i * sa;
        L = 0u;
        for (int j = (int)ma - 1; j >= 0; --j) {
            const limb_t x = ap[j];
            if (x) { L = 32u * (uint)j + 32u - clz(x); break; }
        }
        len[i] = L;
    }
    red[t] = L;
    for (uint h = ${WG // 2}u; h > 0u; h >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (t < h) red[t] = min(red[t], red[t + h]);
    }
    if (t == 0u) gmin[get_group_id(0)] = red[0];
}
% elif KERNEL == "vshift":
__kernel void vshift(__global const limb_t *a, ulong sa, __global const uint *len, uint sl, int sgn,
                     long c, __global limb_t *r, uint n)
{
    const size_t gid = get_global_id(0);
    if (gid >= (size_t)n * ${MR}u) return;
    const size_t inst = gid / ${MR}u;
    const long j = (long)(gid % ${MR}u);
    const long off = (long)sgn * (long)len[inst * sl] + c;
    const long src = 32L * j - off;                      /* bit of a landing on bit 0 of limb j */
    const long q = src >= 0 ? src / 32L : -((31L - src) / 32L);   /* floor(src / 32) */
    const uint rb = (uint)(src - 32L * q);
    __global const limb_t *ap = a + inst * sa;
    const limb_t lo = (q >= 0 && q < ${MA}L) ? ap[q] : 0u;
    const limb_t hi = (q + 1 >= 0 && q + 1 < ${MA}L) ? ap[q + 1] : 0u;
    r[gid] = rb ? (lo >> rb) | (hi << (32u - rb)) : lo;
}
% elif KERNEL == "inv_init":
__kernel void inv_init(__global const limb_t *v2, __global limb_t *w, uint n)
{
    const size_t i = get_global_id(0);
    if (i >= n) return;
    const ulong V = ((ulong)v2[2 * i + 1] << 32) | (ulong)v2[2 * i];
    /* 2^64 = q V + r with 0 <= r < V, then 32 steps of restoring division for the low bits */
    ulong q, r;
    if (V == 0x8000000000000000UL) { q = 2UL; r = 0UL; } else { q = 1UL; r = 0UL - V; }
    for (int k = 0; k < 32; ++k) {
        const int top = (int)(r >> 63);                    /* 2r >= 2^64 > V: subtract */
        r <<= 1;
        q <<= 1;
        if (top || r >= V) { r -= V; q |= 1UL; }
    }
    w[2 * i] = (limb_t)q;
    w[2 * i + 1] = (limb_t)(q >> 32);
}
% elif KERNEL == "div_3by2":
${div_defs()}
__kernel void div_3by2_cases(__global const uint *x, __global uint *q, uint n)
{
    const size_t i = get_global_id(0);
    if (i >= n) return;
    __global const uint *c = x + 5 * i;
    q[i] = div_3by2(c[0], c[1], c[2], c[3], c[4], div_inv(c[3], c[4]));
}
% endif
