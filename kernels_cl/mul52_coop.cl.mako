## Products a * b mod 2^(32 MR) by FP64 digit products (blocks/mont52.mako's split of a 51x51-bit
## product into two exact fma), each instance spread over C work-items: for operands whose
## digits one item cannot hold in registers (mul52.cl.mako spills from 2^11 bits).
##
## The result's NC digit columns are cut into blocks of W; item k of an instance owns the blocks
## BLOCKS[k] (a balance of their costs chosen here, at build time), and sums a block as a
## product scan over the multiplier's digits i: W column accumulators (and one more for the top
## column's hi terms) take x_i * b_(c0 + j - i), j = 0..W-1, from a window of W digits of b
## held in registers. The window moves down one digit per i; unrolled W times, its registers
## rotate instead of moving (W loads, no moves). b's row in local memory is padded with W - 1
## zeros both sides, so every step does all W products: a zero product adds exactly its bias.
##
## Items are k-major (tid = k * IPB + s): a GPU's warp then holds one k, so its items run the
## same blocks and loop lengths (no divergence) and read 32 rows at one column (LD odd: no bank
## conflicts). Local memory: the group's digit rows of a and b (doubles), and apart from them
## (the rows are read until every item is done) the column sums (ulong) and each block's top
## carry; one pass of carries per instance by item k = 0; every item then cuts 32-bit limbs
## from the digits and stores them row by row.
## MA, MB: the operand limbs that take part (at most MR each); strides sa, sb (0 broadcasts);
## the top limb is masked by TOP_MASK.
<%namespace name="m52" file="blocks/mont52.mako" import="mont52_defs, digit_rt_defs"/>
<%
    D = m52.attr.D
    LO, E103, u64 = m52.attr.LO, m52.attr.E103, m52.attr.u64
    NA = (32 * MA + D - 1) // D
    NB = (32 * MB + D - 1) // D
    NC = min(NA + NB, (32 * MR + D - 1) // D)
    NBLK = (NC + W - 1) // W
    PAD = W - 1
    XLD = NA | 1                       # a's row (odd: banks)
    YLD = (NB + 2 * PAD) | 1           # b's padded row
    CLD = (NC + NBLK) | 1              # columns, then the blocks' top carries
    WG = C * IPB

    def cost(c0):
        """Steps of block c0: the multiplier digits i with a product in its columns."""
        return max(0, min(NA - 1, c0 + W - 1) - max(0, c0 - NB + 1) + 1)

    # Longest-first onto the least loaded item: every warp of a group then runs about as long.
    load = [0] * C
    own = [[] for _ in range(C)]
    for c0 in sorted(range(0, NBLK * W, W), key=lambda c0: -cost(c0)):
        k = min(range(C), key=lambda k: load[k])
        own[k].append(c0)
        load[k] += cost(c0)
    MAXB = max(len(o) for o in own)
%>
${mont52_defs()}
${digit_rt_defs()}

## Block c0 (a uint expression) of instance row xr (a) / yr (b, padded), left in cr (columns)
## and cr[NC + c0 / W] (its top column's hi terms, for column c0 + W).
<%def name="block(c0)">
    {
        const uint c0 = ${c0};
        const uint ilo = c0 + 1u > ${NB}u ? c0 + 1u - ${NB}u : 0u;
        const uint ihi = min(${NA - 1}u, c0 + ${W - 1}u);
% for j in range(W + 1):
        ulong A${j} = 0ul;
% endfor
        /* window register r holds b_(c0 - ilo + t) where t = r (mod W) is its offset */
% for r in range(W):
        double Y${r} = yr[${PAD}u + c0 - ilo + ${r}u];
% endfor
        uint i = ilo;
        double xn = xr[i];
        for (;;) {
% for u in range(W):
            {
                const double x = xn;
                xn = xr[i + 1u];   /* the next step's, early (past ihi it reads the rows' next word, unused) */
  % for j in range(W):
<% r = (j - u) % W %>
                { const double h = fma(x, Y${r}, C_HI); A${j} += as_ulong(fma(x, Y${r}, C_LO - h)); A${j + 1} += as_ulong(h); }
  % endfor
                if (i == ihi) break;
                ++i;
                Y${(-u - 1) % W} = yr[${PAD}u + c0 - i];   /* offset -(u+1): column 0's next digit */
            }
% endfor
        }
        const ulong it = (ulong)(ihi - ilo + 1u);
% for j in range(W):
        if (c0 + ${j}u < ${NC}u) cr[c0 + ${j}u] = A${j} - it * ${u64(LO + (E103 if j else 0))};
% endfor
        cr[${NC}u + c0 / ${W}u] = A${W} - it * ${u64(E103)};
    }
</%def>

<% OWN = [own[k] + [NBLK * W] * (MAXB - len(own[k])) for k in range(C)] %>
__constant uint blocks[${C * MAXB}] = {${", ".join("%du" % c0 for o in OWN for c0 in o)}};

__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void mul52c(__global const uint *a, ulong sa, __global const uint *b, ulong sb,
            __global uint *out, ulong so, uint n)
{
    const uint tid = get_local_id(0), k = tid / ${IPB}u, s = tid % ${IPB}u;
    const uint g0 = get_group_id(0) * ${IPB}u;
    __local double rows[${IPB * (XLD + YLD)}];
    __local ulong cols[${IPB * CLD}];
    __local const double *xr = rows + s * ${XLD}u;
    __local const double *yr = rows + ${IPB * XLD}u + s * ${YLD}u;
    __local ulong *cr = cols + s * ${CLD}u;

    /* loops of a trip count known here, unrolled: every global load of a row in flight at once */
#pragma unroll
    for (uint t = 0; t < ${-(-IPB * XLD // WG)}u; ++t) {
        const uint f = tid + t * ${WG}u, r = f / ${XLD}u, j = f % ${XLD}u;
        if (f < ${IPB * XLD}u)
            rows[f] = g0 + r < n && j < ${NA}u ? dig2d(digit_at(a + (size_t)(g0 + r) * sa, ${MA}u, j)) : 0.0;
    }
#pragma unroll
    for (uint t = 0; t < ${-(-IPB * YLD // WG)}u; ++t) {
        const uint f = tid + t * ${WG}u, r = f / ${YLD}u, j = f % ${YLD}u;
        if (f < ${IPB * YLD}u)
            rows[${IPB * XLD}u + f] = g0 + r < n && j >= ${PAD}u && j < ${PAD + NB}u
                ? dig2d(digit_at(b + (size_t)(g0 + r) * sb, ${MB}u, j - ${PAD}u)) : 0.0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint q = 0; q < ${MAXB}u; ++q) {
        const uint cb = blocks[k * ${MAXB}u + q];
        if (cb >= ${NBLK * W}u) continue;
        if (cb > ${NA + NB - 2}u) {   /* above every product: the block below's top carry only */
            for (uint j = cb; j < min(cb + ${W}u, ${NC}u); ++j) cr[j] = 0ul;
            cr[${NC}u + cb / ${W}u] = 0ul;
            continue;
        }
        ${block("cb")}
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (k == 0u) {   /* columns to digits: one pass of signed carries (lo terms may be negative) */
        long cy = 0;
#pragma unroll 8
        for (uint c = 0; c < ${NC}u; ++c) {
            ulong v = cr[c] + (ulong)cy;
            if (c % ${W}u == 0u && c != 0u) v += cr[${NC}u + c / ${W}u - 1u];
            cy = (long)v >> ${D};
            cr[c] = v & M_D;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint t = 0; t < ${-(-IPB * MR // WG)}u; ++t) {
        const uint f = tid + t * ${WG}u, r = f / ${MR}u, w = f % ${MR}u;
        if (f >= ${IPB * MR}u || g0 + r >= n) continue;
        __local const ulong *dr = cols + r * ${CLD}u;
        const uint bit = 32u * w, p = bit / ${D}u, off = bit % ${D}u;
        ulong v = p < ${NC}u ? dr[p] >> off : 0ul;
        if (off + 32u > ${D}u && p + 1u < ${NC}u) v |= dr[p + 1u] << (${D}u - off);
% if TOP_MASK != 0xFFFFFFFF:
        if (w == ${MR - 1}u) v &= ${TOP_MASK}u;
% endif
        out[(size_t)(g0 + r) * so + w] = (uint)v;
    }
}
