## powmod by FP64 Montgomery products (blocks/mont52.mako's mont52_mul_coop) with each instance
## spread over C work-items of S digits (N = C*S digits of 51 bits, R = 2^(51 N) > 4m): for
## moduli whose N columns one item cannot hold in registers (4096 bits and up).
##
## Local memory: xs, the instance's current residue (the multiplier row of every product, and
## where each product leaves its result); ml, each item's S + 1 digits of m (read through a
## volatile pointer at each use, as mont52.cl.mako's MLOC); ex / qx, the products' exchange.
## The multiplicand of a product is private: Y(j), the digits kS + j - 1 (j = 0..S), loaded
## from xs (squares), from the table (products by T[d]), from r2 or a (the table's start), or 1.
## Zero window digits multiply by T[0] (R mod m, x unchanged): every item of the group must
## pass the same barriers, so no instance may skip a product. a, m, r2 arrive as 32-bit limbs
## (MA, NM limbs; strides of 0 broadcast one row), the exponent as ME limbs, the result leaves
## as NM limbs, fully reduced.
<%namespace file="blocks/mont52.mako" import="mont52_defs, digit_rt_defs, window_digit_defs, mont52_mul_coop, mont52_sqr_coop"/>
<%
    TW = 1 << W
    NWIN = (ME * 32 + W - 1) // W
    XLD = N + 1      # odd: the rows of a group's instances start on different banks
    WG = IPB * C
%>
${mont52_defs()}
${digit_rt_defs()}
% if MREG:
#define ML(j) mreg[j]
% else:
#define ML(j) ((volatile __local double *)ml)[(j) * ${WG}u + tid]
% endif
#define Y(j) y[j]

${window_digit_defs(ME, W)}

## y[j] = the multiplicand's digit kS + j - 1 (j = 0..S) given as expression f(P) of the global
## digit index P (uint); y[0] = 0 on item 0.
<%def name="load_y(f)">
% for j in range(S + 1):
    y[${j}] = ${"(k == 0u) ? 0.0 : " if j == 0 else ""}${f("(kS + %du - 1u)" % j if j else "(kS - 1u)")};
% endfor
</%def>
<%def name="tab_at(d, P)">tab[((size_t)(${d}) * ${N}u + ${P}) * nt + inst]</%def>

__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void powmod52c(__global const uint *a, ulong sa, __global const uint *e, ulong se,
               __global const uint *m, ulong sm, __global const uint *r2, ulong sr2,
               __global uint *out, __global double *tab, uint n)
{
    const uint tid = get_local_id(0), s = tid / ${C}u, k = tid % ${C}u, kS = k * ${S}u;
    const uint inst = get_group_id(0) * ${IPB}u + s;
    const int live = inst < n;
    const size_t nt = (size_t)get_num_groups(0) * ${IPB}u;   /* instances the table holds */
    __local double xs[${IPB * XLD}], qx[${2 * IPB}];
% if not MREG:
    __local double ml[${(S + 1) * WG}];
% endif
    __local ulong ex[${2 * WG}];
    __local double *xr = xs + s * ${XLD}u;                     /* this instance's row */
    __global const uint *mr = m + (size_t)inst * sm, *ar = a + (size_t)inst * sa, *rr = r2 + (size_t)inst * sr2;
    __global const uint *ep = e + (size_t)(live ? inst : 0u) * se;
    const uint nm = live ? ${NM}u : 0u, ma = live ? ${MA}u : 0u;
    const ulong minv = mont52_minv(digit_at(mr, nm, 0u) | (live ? 0ul : 1ul));
    double y[${S + 1}];
% if MREG:
    double mreg[${S + 1}];
% endif
% for j in range(S + 1):
    ML(${j}u) = ${"(k == 0u) ? 0.0 : " if j == 0 else ""}dig2d(digit_at(mr, nm, kS + ${j}u - 1u));
% endfor

    for (uint j = 0; j < ${TW}u; ++j) {
        if (j == 0) {               /* T[0] = R^2 / R = R mod m */
            for (uint p = kS; p < kS + ${S}u; ++p) xr[p] = dig2d(digit_at(rr, nm, p));
            ${load_y(lambda P: "(%s == 0u ? 1.0 : 0.0)" % P)}
        } else if (j == 1) {        /* T[1] = a R^2 / R */
            for (uint p = kS; p < kS + ${S}u; ++p) xr[p] = dig2d(digit_at(ar, ma, p));
            ${load_y(lambda P: "dig2d(digit_at(rr, nm, %s))" % P)}
        } else {                    /* T[j] = T[j-1] T[1] / R: xs holds T[j-1] */
            ${load_y(lambda P: tab_at("1u", P))}
        }
        ${mont52_mul_coop("@Y", "@ML", S, N, C, IPB, WG, "xr")}
        for (uint p = kS; p < kS + ${S}u; ++p) ${tab_at("j", "p")} = xr[p];
        barrier(CLK_GLOBAL_MEM_FENCE);      /* T[j] of every item, before T[1] or T[d] is read */
    }
    {   /* x = T[top digit] */
        const uint d = digit(ep, ${(NWIN - 1) * W}u);
        for (uint p = kS; p < kS + ${S}u; ++p) xr[p] = ${tab_at("d", "p")};
    }
<% STEPS = (NWIN - 1) * (W + 1) + 1 %>
    for (uint st = 0; st < ${STEPS}u; ++st) {
        const uint ph = st % ${W + 1}u, win = ${NWIN - 2}u - st / ${W + 1}u;
        barrier(CLK_LOCAL_MEM_FENCE);       /* xs complete (the row set above, or the last product's) */
% if SQR:
        if (ph < ${W}u && st != ${STEPS - 1}u) {   /* square (the branch is the group's: st only) */
            ${load_y(lambda P: "xr[%s]" % P)}
            ${mont52_sqr_coop("@Y", "@ML", S, N, C, IPB, WG, "xr")}
        } else {
% else:
        {
% endif
            if (st == ${STEPS - 1}u) {          /* leave the Montgomery form: x / R */
                ${load_y(lambda P: "(%s == 0u ? 1.0 : 0.0)" % P)}
            } else if (ph < ${W}u) {            /* square by the product */
                ${load_y(lambda P: "xr[%s]" % P)}
            } else {                            /* times T[digit] (T[0] leaves x as it is) */
                const uint d = digit(ep, win * ${W}u);
                ${load_y(lambda P: tab_at("d", P))}
            }
            ${mont52_mul_coop("@Y", "@ML", S, N, C, IPB, WG, "xr")}
        }
    }
    if (k == 0u) {   /* the result is at most m: m itself (a residue of 0) reads 0 */
        long b = 0;
        for (uint p = 0; p < ${N}u; ++p) b = ((long)d2dig(xr[p]) - (long)digit_at(mr, nm, p) + b) >> 51;
        if (b == 0) for (uint p = 0; p < ${N}u; ++p) xr[p] = 0.0;   /* x == m: x <= m, so x >= m means equal */
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (live) {
        for (uint w = k; w < ${NM}u; w += ${C}u) {
            const uint b = 32u * w, p = b / 51u, off = b % 51u;
            ulong v = d2dig(xr[p]) >> off;
            if (off + 32u > 51u && p + 1u < ${N}u) v |= d2dig(xr[p + 1u]) << (51u - off);
            out[(size_t)inst * ${NM}u + w] = (uint)v;
        }
    }
}
