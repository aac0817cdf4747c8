## Schoolbook division of a batch (Knuth's Algorithm D; clbig/div_basecase.py): q = u // v and
## r = u % v, each instance with its own divisor length.
##
## Normalization: with L = bitlen(v), v^ = v * 2^(32K - L) has exactly K limbs and its top bit
## set, u^ = u * 2^(32K - L); then u^ // v^ = u // v and r = (u^ mod v^) >> (32K - L). Neither
## is stored: limb_shl makes each limb where it is read. One step per quotient limb j, from the
## top: the window W = R*B + u^[j] (K + 1 limbs) loses qhat*v^, qhat from its top three limbs.
##
## Layout: C work-items per instance, IPB instances per work-group; work-item p holds window and
## divisor limbs [pQ, pQ + Q) in registers (K + 1 = C*Q). The window slides down the dividend,
## so the data never moves in memory: each step shifts every chunk up by one limb, the limb
## leaving chunk p entering chunk p + 1 and u^[j - 1] entering chunk 0.
##   C == 1: one work-item owns its instance; no local memory, no barrier.
##   C > 1 : a step is one barrier in the common case, the partial remainder kept redundant:
##           each chunk subtracts qhat*V locally, keeping its limbs mod B^Q and its borrow-out
##           cy (<= B) owed to the chunk above, publishes cy and its top limb, and takes the
##           cy of the chunk below as `pend`, folded into its next subtraction (one limb
##           later, after the shift) instead of rippling through its limbs now. The top chunk
##           also publishes the next qhat, from its own limbs. All that is exact while no
##           borrow crosses a chunk: an owed cy (<= B) stops within limbs 1..Q-5 unless they are
##           all zero, and the top chunk's cy is 0 unless the step went negative (qhat one too
##           large). A chunk that sees either raises the step's flag, and the whole group then
##           takes the slow path: borrows resolved by a segmented scan, v^ added back where
##           negative, the next qhat recomputed (2 log2(C) + 3 more barriers; rare on random
##           data, every step on remainders full of zero limbs).
## The flag is a per-parity slot set with atomic_min(slot, j): it is true exactly when it holds
## j, so it never needs clearing; the published values are double-buffered by parity too, so
## one barrier separates every write from its reads and the reads from the next writes.
## The slow path sits in a loop run zero times or once, not in an if: PoCL 3.0 (LLVM 14)
## miscompiled the if/else form (barriers in one branch), giving wrong remainders at -O2.
## st (2 per instance): steps that took the slow path, and add-backs (tests reach both).
## STAGE (C == 1 only; MU, MV the row lengths, fixed): the group's rows of u and v are copied
## into local memory first, the quotient and remainder built there and written out at the end,
## every global access coalesced: one work-item walking its own row of u in global memory reads
## one word per 64-128 bytes across a SIMD group (H200, 2^9-bit batches: 18x the product's time).
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/arith.mako" import="carry_op_defs, add_chunk, apply_carry"/>
<%namespace file="blocks/scan.mako" import="seg_scan"/>
<%namespace file="blocks/div.mako" import="div_defs, submul, sub_limb, shift_in, store_shr"/>
<%
    WG = IPB * C
    assert K + 1 == C * Q and K >= 2 and (C == 1 or Q >= 8)
    assert not STAGE or C == 1
    SHL = "limb_shl_l" if STAGE else "limb_shl"
    def ors(lo, hi):
        return " | ".join("R[%d]" % k for k in range(lo, hi))
%>
${header()}
${carry_op_defs()}
${div_defs()}

__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void div_basecase(__global const uint *u, ulong su, uint mu, __global const uint *v, ulong sv,
                  uint mv, __global const uint *len, uint sl, __global uint *qo,
                  __global uint *ro, __global uint *st, uint n)
{
    const uint tid = get_local_id(0), s = tid / ${C}u, p = tid % ${C}u;
    const uint inst = get_group_id(0) * ${IPB}u + s;
    const int live = inst < n;
% if C == 1 and not STAGE:
    if (!live) return;
% endif
    const uint ii = live ? inst : n - 1u;     /* padding instances compute a copy, stored nowhere */
    const uint sh = ${32 * K}u - len[(size_t)ii * sl];
    const uint w = sh >> 5, b = sh & 31u;
% if STAGE:
    __local uint ul[${IPB * (MU + 1)}], vl[${IPB * (MV + 1)}], ql[${IPB * (MU + 1)}], rl[${IPB * (MV + 1)}];
    ${stage_in("ul", "u", "su", MU)}
    ${stage_in("vl", "v", "sv", MV)}
    barrier(CLK_LOCAL_MEM_FENCE);
    __local const uint *up = ul + s * ${MU + 1}u, *vp = vl + s * ${MV + 1}u;
    __local uint *qp = ql + s * ${MU + 1}u, *rp = rl + s * ${MV + 1}u;
% else:
    __global const uint *up = u + (size_t)ii * su, *vp = v + (size_t)ii * sv;
    __global uint *qp = qo + (size_t)ii * mu, *rp = ro + (size_t)ii * mv;
% endif
    /* u^ < B^(mu + w + (b > 0)): quotient limbs above j0 are zero, and the window at j0 < v^ */
    const int j0 = max((int)(mu + w + (b ? 1u : 0u)) - ${K}, -1);
% if C == 1:
    const int J = j0;
    for (int j = J + 1; j < (int)mu; ++j) qp[j] = 0u;
% else:
    __local int jmax, slot[2];
    __local ulong xc[${2 * WG}];
    __local uint xt[${2 * WG}], xq[${2 * IPB}], sc[${WG}], sx[${WG}], sq[${IPB}];
    if (tid == 0u) { jmax = -1; slot[0] = INT_MAX; slot[1] = INT_MAX; }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (live && p == 0u) atomic_max(&jmax, j0);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int J = jmax;                       /* the group's first step: uniform loop bounds */
    if (live)
        for (int j = J + 1 + (int)p; j < (int)mu; j += ${C}) qp[j] = 0u;
% endif
    const int pos0 = (int)(p * ${Q}u), jb = max(J, 0);
    uint nslow = 0u, nback = 0u;
    uint R[${Q}], V[${Q}];
% for k in range(Q):
    R[${k}] = ${SHL}(up, mu, jb + pos0 + ${k}, w, b);
    V[${k}] = pos0 + ${k} < ${K} ? ${SHL}(vp, mv, pos0 + ${k}, w, b) : 0u;
% endfor
    const uint d1 = ${SHL}(vp, mv, ${K - 1}, w, b), d0 = ${SHL}(vp, mv, ${K - 2}, w, b);
    const uint dinv = div_inv(d1, d0);
% if C == 1:
    for (int j = J; j >= 0; --j) {
        const uint unext = j > 0 ? ${SHL}(up, mu, j - 1, w, b) : 0u;
        uint qh = div_3by2(R[${Q - 1}], R[${Q - 2}], R[${Q - 3}], d1, d0, dinv);
        ulong cy;
        ${submul("R", "V", "qh", Q, "cy")}
        if (cy) {                             /* went negative: qhat was one too large */
            uint sm;
            ${add_chunk("R", lambda k: "R[%d]" % k, lambda k: "V[%d]" % k, Q, "sm")}
            qh -= 1u;
            ++nback;
        }
        if (j < (int)mu) qp[j] = qh;
        if (j > 0) {
            ${shift_in("R", "unext", Q)}
        }
    }
    ${store_shr("R", "0u", "0", Q, "w", "b", "rp", "mv")}
    for (int i = ${K + 1} - (int)w; i < (int)mv; ++i) rp[i] = 0u;
% if STAGE:
    barrier(CLK_LOCAL_MEM_FENCE);
    ${stage_out("ql", "qo", MU)}
    ${stage_out("rl", "ro", MV)}
    if (!live) return;
% endif
    st[2 * inst] = 0u;
    st[2 * inst + 1] = nback;
}
% else:
    if (p == ${C - 1}u) sq[s] = div_3by2(R[${Q - 1}], R[${Q - 2}], R[${Q - 3}], d1, d0, dinv);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint qh = sq[s];
    ulong pend = 0;                           /* borrow owed at limb 1: the chunk below's cy */
    const uint seg = s * ${C}u;
    for (int j = J; j >= 0; --j) {
        const uint par = (uint)j & 1u, xo = par * ${WG}u;
        uint unext = 0u;
        if (p == 0u && j > 0) unext = ${SHL}(up, mu, j - 1, w, b);
        ulong cy;
        ${submul("R", "V", "qh", Q, "cy", "pend")}
        int flag = live && qh != 0u && p > 0u && (${ors(1, Q - 4)}) == 0u;
        if (p == ${C - 1}u) {
            flag |= live && cy != 0u;
            xq[par * ${IPB}u + s] = div_3by2(R[${Q - 2}], R[${Q - 3}], R[${Q - 4}], d1, d0, dinv);
        }
        xc[xo + tid] = cy;
        xt[xo + tid] = R[${Q - 1}];
        if (flag) atomic_min(&slot[par], j);
        barrier(CLK_LOCAL_MEM_FENCE);
        const int slow = slot[par] == j;      /* the same for the whole group */
        uint below = unext, qd = qh;
        if (!slow) {                          /* no borrow crosses a chunk: settle locally */
            if (p > 0u) {                     /* the borrow is folded into the next step */
                pend = xc[xo + tid - 1u];
                below = xt[xo + tid - 1u];
            }
            qh = xq[par * ${IPB}u + s];
        }
        for (int once = 0; once < slow; ++once) {  /* a loop, not an if: see the note above */
            ${slow_step()}
        }
        if (live && p == ${C - 1}u && j < (int)mu) qp[j] = qd;
        if (j > 0) {
            ${shift_in("R", "below", Q)}
        }
    }
    {
        uint bo;
        ${sub_limb("R", "pend", Q, "bo")}
    }
    barrier(CLK_LOCAL_MEM_FENCE);             /* sx may still be read by a last slow step */
    sx[tid] = R[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint above = p + 1u < ${C}u ? sx[tid + 1u] : 0u;
    if (live) {
        ${store_shr("R", "above", "pos0", Q, "w", "b", "rp", "mv")}
        for (int i = ${K + 1} - (int)w + (int)p; i < (int)mv; i += ${C}) rp[i] = 0u;
        if (p == ${C - 1}u) { st[2 * inst] = nslow; st[2 * inst + 1] = nback; }
    }
}
% endif

## Borrows resolved across the group (scan), v^ added back where the window went negative,
## then the top limbs and the next qhat published again.
<%def name="slow_step()">
            const ulong m = p > 0u ? xc[xo + tid - 1u] : 0UL;
            pend = 0;
            uint g;
            ${sub_limb("R", "m", Q, "g")}
            uint bs = g | ((uint)((${ors(0, Q)}) == 0u) << 1);
            ${seg_scan("sc", "seg", [("bs", "p")], C, "CARRY_OP", "CARRY_ID")}
            const uint bin = p > 0u ? (sc[seg + p - 1u] & 1u) : 0u;
            const uint neg = (sc[seg + ${C - 1}u] & 1u) | (uint)(xc[xo + seg + ${C - 1}u] != 0UL);
            barrier(CLK_LOCAL_MEM_FENCE);
            {
                uint bo;
                ${sub_limb("R", "bin", Q, "bo")}
            }
            uint av;
            ${add_chunk("R", lambda k: "R[%d]" % k, lambda k: "(V[%d] & (0u - neg))" % k, Q, "av")}
            ${seg_scan("sc", "seg", [("av", "p")], C, "CARRY_OP", "CARRY_ID")}
            const uint cin = p > 0u ? (sc[seg + p - 1u] & 1u) : 0u;
            barrier(CLK_LOCAL_MEM_FENCE);
            ${apply_carry("R", "cin", Q)}
            qd = qh - neg;
            ++nslow;
            nback += neg;
            sx[tid] = R[${Q - 1}];
            if (p == ${C - 1}u) sq[s] = div_3by2(R[${Q - 2}], R[${Q - 3}], R[${Q - 4}], d1, d0, dinv);
            barrier(CLK_LOCAL_MEM_FENCE);
            below = p > 0u ? sx[tid - 1u] : unext;
            qh = sq[s];
</%def>

## Rows of the group between global memory (row stride `stride`, 0 broadcasts; padding rows
## copy the last instance's) and local rows of M + 1 words (odd strides: distinct banks).
<%def name="stage_in(dst, src, stride, M)">
    for (uint _t = tid; _t < ${IPB * M}u; _t += ${WG}u) {
        const uint _r = _t / ${M}u, _c = _t % ${M}u, _i = min((uint)get_group_id(0) * ${IPB}u + _r, n - 1u);
        ${dst}[_r * ${M + 1}u + _c] = ${src}[(size_t)_i * ${stride} + _c];
    }
</%def>
<%def name="stage_out(src, dst, M)">
    for (uint _t = tid; _t < ${IPB * M}u; _t += ${WG}u) {
        const uint _r = _t / ${M}u, _c = _t % ${M}u, _i = (uint)get_group_id(0) * ${IPB}u + _r;
        if (_i < n) ${dst}[(size_t)_i * ${M}u + _c] = ${src}[_r * ${M + 1}u + _c];
    }
</%def>

