## Limb-wise bitwise map for a batch (a memory-bound map, like 1-Add): one work-item per V
## limbs (V = 4: one 16-byte load per operand) of the flattened (n, MR) result. Per instance a
## control byte picks masks: r = ((a ^ ia) OP (b ^ ib)) ^ io, with ia = all ones where bit 0 is
## set, ib bit 1, io bit 2; OP "select" gives r = (bit 0 ? b : a). Without CTL (every operand
## non-negative) there are no masks and no control bytes to read. Operands are read
## zero-extended to MR limbs, so with the masks they read as infinite two's complement
## (clbig/bitwise.py explains how magnitudes become that view and back). The widths ma, mb, mr
## arrive at run time (mr a multiple of V): one build per operation and vector width, where
## gcdext and iroot built one per pair of widths (issue 43).
<%namespace file="blocks/common.mako" import="header"/>
${header()}
<%
    T = "uint4" if V == 4 else "limb_t"
    expr = {"and": "(x & y)", "or": "(x | y)", "xor": "(x ^ y)", "select": "((x & ~ia) | (y & ia))"}[OP]
%>
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void bitwise(__global const limb_t *a, ulong sa, __global const limb_t *b, ulong sb,
             __global limb_t *r, __global const uchar *ctl, uint n, uint ma, uint mb, uint mr)
{
    const size_t gid = get_global_id(0);
    const uint nv = mr / ${V}u;
    if (gid >= (size_t)n * nv) return;   /* no barriers below: padding items may leave */
    /* a 32-bit division where the index fits (GPUs emulate 64-bit ones) */
    const size_t inst = gid <= 0xFFFFFFFFul ? (size_t)((uint)gid / nv) : gid / nv;
    const size_t j = (gid - inst * nv) * ${V}u;
% if CTL:
    const uint c = ctl[inst];
% else:
    const uint c = 0u;
% endif
    const ${T} ia = (c & 1u) ? (${T})(LIMB_MAX) : (${T})(0u);
% if OP != "select":
    const ${T} ib = (c & 2u) ? (${T})(LIMB_MAX) : (${T})(0u);
    const ${T} io = (c & 4u) ? (${T})(LIMB_MAX) : (${T})(0u);
% endif
% if V == 4:
    const uint4 x0 = j < ma ? vload4(0, a + inst * sa + j) : (uint4)(0u);
    const uint4 y0 = j < mb ? vload4(0, b + inst * sb + j) : (uint4)(0u);
% else:
    const limb_t x0 = j < ma ? a[inst * sa + j] : 0u;
    const limb_t y0 = j < mb ? b[inst * sb + j] : 0u;
% endif
% if OP == "select":
    const ${T} x = x0, y = y0;
    const ${T} z = ${expr};
% else:
    const ${T} x = x0 ^ ia, y = y0 ^ ib;
    const ${T} z = ${expr} ^ io;
% endif
% if V == 4:
    vstore4(z, 0, r + inst * mr + j);
% else:
    r[inst * mr + j] = z;
% endif
}
