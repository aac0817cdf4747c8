## Products a * b mod 2^(32 MR) by FP64 digit products (blocks/mont52.mako's split of a 51x51-bit
## product into two exact fma), one work-item per instance, product scanning: the operands'
## digits sit in registers, the columns are summed one after the other (each digit product's
## lo term to its own column, its hi term to the next), and every limb of the result is stored
## as soon as the columns below its top bit are complete.
##
## Why: an int32 product pays two multiply-adds per 32x32-bit product and a carry chain; here a
## 51x51-bit product (2.5 times the bits) is three FP64 operations on their own pipe and two
## 64-bit adds, and a column's bias is a constant known here, so no carry chain at all.
## XLOC: a's digits in local memory, read at each product (volatile, or the compiler would hold
## them all in registers again), when both operands' digits do not fit the registers beside the
## rest (H200, 2026-11-25, 2^11 bits: 41 + 41 doubles spilled).
## MA, MB: the operand limbs that take part (at most MR each); rows at strides sa, sb, so (0
## broadcasts an operand); the top limb is masked by TOP_MASK (a product mod 2^bits).
<%namespace name="m52" file="blocks/mont52.mako" import="mont52_defs"/>
<%
    D = m52.attr.D
    NA = (32 * MA + D - 1) // D
    NB = (32 * MB + D - 1) // D
    NC = min(NA + NB, (32 * MR + D - 1) // D)       # result digits that reach the low MR limbs
    LO, E103, u64 = m52.attr.LO, m52.attr.E103, m52.attr.u64
    digit_bits, limb_bits = m52.attr.digit_bits, m52.attr.limb_bits

    def products(c):     # (i, j) with i + j = c
        return [(i, c - i) for i in range(max(0, c - NB + 1), min(c, NA - 1) + 1)]

    def bias(c):         # column c's patterns: its lo terms and the hi terms of column c - 1
        return u64(len(products(c)) * LO + (len(products(c - 1)) if c else 0) * E103)

    def top_digit(k):    # the highest digit limb k reads
        return min((32 * k + 31) // D, NC - 1)
    def X(i):            # a's digit i: a register, or (XLOC) reloaded from local memory at each use
        return "((volatile __local double *)xs)[%du + tid]" % (i * WG) if XLOC else "x%d" % i
    ready = {}           # column -> limbs complete once it is
    for k in range(MR):
        ready.setdefault(top_digit(k), []).append(k)
%>
${mont52_defs()}

## STAGE: through local memory (row t of the group at t*LD, LD odd: no bank conflicts when every
## item reads its own row), so that a GPU's global loads and stores are coalesced: item by item,
## a warp touches 32 rows per access (H200, 2026-11-25: 1.4-2.2x slower). Without, each item reads and
## writes its own row (CPUs, where barriers cost and caches hold the rows).
<% LD = max(MA, MB, MR) | 1 %>
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void mul52(__global const uint *a, ulong sa, __global const uint *b, ulong sb,
           __global uint *out, ulong so, uint n)
{
    const uint tid = get_local_id(0), g0 = get_group_id(0) * ${WG}u;
% if STAGE:
    __local uint st[${WG * LD}];
    __local uint *mine = st + tid * ${LD}u;
% else:
    if (g0 + tid >= n) return;   /* no barriers */
    __global uint *mine = out + (size_t)(g0 + tid) * so;
% endif
<%def name="load(src, stride, M, name)">
  % if STAGE:
    for (uint f = tid; f < ${WG * M}u; f += ${WG}u) {
        const uint s = f / ${M}u, l = f % ${M}u;
        st[s * ${LD}u + l] = g0 + s < n ? ${src}[(size_t)(g0 + s) * ${stride} + l] : 0u;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    % for w in range(M):
    const uint ${name}${w} = mine[${w}];
    % endfor
    barrier(CLK_LOCAL_MEM_FENCE);
  % else:
    __global const uint *${name} = ${src} + (size_t)(g0 + tid) * ${stride};
    % for w in range(M):
    const uint ${name}${w} = ${name}[${w}];
    % endfor
  % endif
</%def>
    ${load("a", "sa", MA, "la")}
    ${load("b", "sb", MB, "lb")}
% if XLOC:
    __local double xs[${NA * WG}];
  % for j in range(NA):
    xs[${j * WG}u + tid] = dig2d(${digit_bits(j, lambda w: "la%d" % w, MA)});
  % endfor
% else:
  % for j in range(NA):
    const double x${j} = dig2d(${digit_bits(j, lambda w: "la%d" % w, MA)});
  % endfor
% endif
% for j in range(NB):
    const double y${j} = dig2d(${digit_bits(j, lambda w: "lb%d" % w, MB)});
% endfor
    ulong acc, v, nxt = 0ul;
    long cy = 0;
% for c in range(NC):
    acc = nxt; nxt = 0ul;
  % for i, j in products(c):
    { const double xi = ${X(i)}, h = fma(xi, y${j}, C_HI); acc += as_ulong(fma(xi, y${j}, C_LO - h)); nxt += as_ulong(h); }
  % endfor
    v = acc - ${bias(c)} + (ulong)cy;   /* column c's exact value, signed */
    const ulong d${c} = v & M_D;
  % if c + 1 < NC:
    cy = (long)v >> ${D};
  % endif
  % for k in ready.get(c, []):
    mine[${k}] = ${limb_bits(k, lambda j: "d%d" % j, NC)}${" & %du" % TOP_MASK if k == MR - 1 and TOP_MASK != 0xFFFFFFFF else ""};
  % endfor
% endfor
% if STAGE:
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint f = tid; f < ${WG * MR}u; f += ${WG}u) {
        const uint s = f / ${MR}u, l = f % ${MR}u;
        if (g0 + s < n) out[(size_t)(g0 + s) * so + l] = st[s * ${LD}u + l];
    }
% endif
}
