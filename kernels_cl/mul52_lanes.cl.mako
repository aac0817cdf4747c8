## Products a * b mod 2^(32 MR) for CPUs: FP64 digit products (blocks/mont52.mako's exact split
## of a 51x51-bit product into two fma), W instances per work-item held side by side in the
## lanes of one vector (doubleW; W = 1: one instance, for runtimes that vectorize across
## work-items themselves, as Intel's does), columns summed C at a time in registers.
##
## Why this shape on CPUs: GMP's scalar code does one 64x64-bit product per cycle or so; a
## vector of 8 doubles does 8 exact 51x51-bit products in 3 FP64 operations, if the 8 lanes
## hold 8 instances at the same digit (every lane then runs the same loop, with no shuffles).
## PoCL 3 does not vectorize the scalar form itself (its work-item loop is not the innermost
## loop here), hence the explicit vectors. No local memory, no barriers: each item converts its
## own rows to digits in a scratch region of global memory (lane-interleaved: digit j of the
## group's lanes is one contiguous run, so an item's vector of digit j is one load), then reads
## them back. The loops over digits are loops, not unrolled code. Wide operands take their
## widths at run time (RT: one build serves every width, a product tree's levels and a Newton
## iteration's growing operands, issue 43); narrow ones have them written in, where the
## compiler unrolls the short loops (run-time widths cost 12-26% at 512 bits on 2 cores).
##
## A column's terms: hi patterns E103 + H (summed into the next column) and lo patterns
## LO + L (into this one), summed as 64-bit integers; every term of a block, zero-padded ones
## included, adds a known bias, so a column's exact signed value is its sums minus cnt biases.
## Sums stay below 2^63 for NA, NB < 4096 digits (mpn/mul_fp64.LANES_MAX_DIGITS).
##
## Parameters: W (lanes per item), C (columns per pass), WG (items per group); RT, or else MA,
## MB, MR, TOP_MASK written in (the arguments of the same names then unused).
## Arguments: rows of a and b at strides sa, sb (0 broadcasts), out rows at stride so,
## instances first .. n-1 of which this launch takes WG*W per group, scratch of
## SPAN * WG * W doubles per group (SPAN = NA + NB + 2 C digits); ma, mb the operand limbs that
## take part, mr the result limbs, top_mask the top limb's mask.
<%namespace name="m52" file="blocks/mont52.mako" import="mont52_defs"/>
<%
    D = m52.attr.D
    PAD = C                          # zero digits below and above b's: the window never leaves
    LANES = WG * W
    u64 = m52.attr.u64
    V = "" if W == 1 else str(W)
    def lane(x, l):                  # component l of a vector expression
        return x if W == 1 else "%s.s%x" % (x, l)
%>
${mont52_defs()}
#define dv double${V}
#define uv ulong${V}
#define lv long${V}
#define AS_UV as_ulong${V}
#define AS_LV as_long${V}
% if W == 1:
#define LOADV(p) (*(p))
% else:
#define LOADV(p) vload${W}(0, p)
% endif
#define LO_BIAS ${u64(m52.attr.LO)}
#define HI_BIAS ${u64(m52.attr.E103)}

/* Digit j (bits 51j .. 51j+50) of the M-limb row r, as a double. */
inline double row_digit(__global const uint *r, const uint M, const uint j)
{
    const uint bit = ${D}u * j, w = bit >> 5, s = bit & 31u;
    ulong v = 0ul;
    if (w < M) v = (ulong)r[w] >> s;
    if (w + 1u < M) v |= (ulong)r[w + 1u] << (32u - s);
    if (w + 2u < M && s > ${64 - D}u) v |= (ulong)r[w + 2u] << (64u - s);
    return dig2d(v & M_D);
}

__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void mul52_lanes(__global const uint *a, ulong sa, __global const uint *b, ulong sb,
                 __global uint *out, ulong so, uint first, uint n, __global double *scratch,
                 uint ma, uint mb, uint mr, uint top_mask)
{
    const uint lid = get_local_id(0);
    const uint i0 = first + get_global_id(0) * ${W}u;      /* this item's first instance */
    if (i0 >= n) return;                                   /* no barriers */
% if not RT:
    ma = ${MA}u; mb = ${MB}u; mr = ${MR}u; top_mask = ${TOP_MASK}u;
% endif
    const uint na = (32u * ma + ${D - 1}u) / ${D}u, nb = (32u * mb + ${D - 1}u) / ${D}u;
    const int nc = (int)((32u * mr + ${D - 1}u) / ${D}u);  /* columns that reach the low mr limbs */
    /* lane l of digit j: xs[j * LANES + l]; b's digit j at ys[(j + PAD) * LANES] */
    __global double *xs = scratch + (size_t)get_group_id(0) * (na + nb + ${2 * PAD}u) * ${LANES}u
                          + lid * ${W}u;
    __global double *ys = xs + (na + ${PAD}u) * ${LANES}u;
    for (uint l = 0; l < ${W}u; ++l) {
        const uint i = min(i0 + l, n - 1u);                /* lanes past n repeat the last row */
        __global const uint *ra = a + (size_t)i * sa, *rb = b + (size_t)i * sb;
        for (uint j = 0; j < na; ++j) xs[j * ${LANES}u + l] = row_digit(ra, ma, j);
        for (uint j = 0; j < ${PAD}u; ++j) {
            ys[((int)j - ${PAD}) * ${LANES} + (int)l] = 0.0;
            ys[(j + nb) * ${LANES}u + l] = 0.0;
        }
        for (uint j = 0; j < nb; ++j) ys[j * ${LANES}u + l] = row_digit(rb, mb, j);
    }

    uv carry = 0, hprev = 0, dprev = 0;
    uint k = 0;                                            /* the next result limb to store */
    for (int k0 = 0; k0 < nc; k0 += ${C}) {
        const int lo = max(0, k0 - ((int)nb - 1)), hi = min((int)na - 1, k0 + ${C - 1});
        const ulong cnt = hi >= lo ? (ulong)(hi - lo + 1) : 0ul;   /* terms per column */
% for c in range(C):
        uv sl${c} = 0, sh${c} = 0;
% endfor
        if (cnt) {
            /* w_c: b's digit k0 + c - i for the current i (a sliding window down b) */
% for c in range(C):
            dv w${c} = LOADV(ys + (k0 + ${c} - lo) * ${LANES});
% endfor
            for (int i = lo; i <= hi; ++i) {
                const dv x = LOADV(xs + i * ${LANES});
% for c in range(C):
                { const dv h = fma(x, w${c}, (dv)C_HI);
                  sl${c} += AS_UV(fma(x, w${c}, (dv)C_LO - h)); sh${c} += AS_UV(h); }
% endfor
% for c in range(C - 1, 0, -1):
                w${c} = w${c - 1};
% endfor
                w0 = LOADV(ys + (k0 - i - 1) * ${LANES});
            }
        }
% for c in range(C):
        if (k0 + ${c} < nc) {
            const int col = k0 + ${c};
            /* the column's exact signed value: its L terms, column col-1's H terms, the carry */
            const uv t = sl${c} - cnt * LO_BIAS + hprev + carry;
            hprev = sh${c} - cnt * HI_BIAS;
            const uv d = t & M_D;
            carry = AS_UV(AS_LV(t) >> ${D});
            /* store the limbs whose top bit is in this column: bits [32k, 32k+32) start in
               digit col-1 (and end in this one) or in this one */
            for (; k < mr && 32u * k + 31u <= ${D}u * (uint)col + ${D - 1}u; ++k) {
                const uint bit = 32u * k, base = ${D}u * (uint)col;   /* this digit's first bit */
                const uv v = bit >= base ? d >> (bit - base)
                           : (dprev >> (bit + ${D}u - base)) | (d << (base - bit));
                const uint mask = k == mr - 1u ? top_mask : 0xFFFFFFFFu;
% for l in range(W):
                if (i0 + ${l}u < n) out[(size_t)(i0 + ${l}u) * so + k] = (uint)${lane("v", l)} & mask;
% endfor
            }
            dprev = d;
        }
% endfor
    }
}
