## Limb-wise bitwise map for a batch (a memory-bound map, like 1-Add): one work-item per V
## limbs (V = 4: one 16-byte load per operand) of the flattened (n, MR) result. Per instance a
## control byte picks masks: r = ((a ^ ia) OP (b ^ ib)) ^ io, with ia = all ones where bit 0 is
## set, ib bit 1, io bit 2; OP "select" gives r = (bit 0 ? b : a). Without CTL (every operand
## non-negative) there are no masks and no control bytes to read. Operands are read
## zero-extended to MR limbs, so with the masks they read as infinite two's complement
## (clbig/bitwise.py explains how magnitudes become that view and back).
<%namespace file="blocks/common.mako" import="header"/>
${header()}
<%
    NV = MR // V
    T = "uint4" if V == 4 else "limb_t"
    expr = {"and": "(x & y)", "or": "(x | y)", "xor": "(x ^ y)", "select": "((x & ~ia) | (y & ia))"}[OP]
%>
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void bitwise(__global const limb_t *a, ulong sa, __global const limb_t *b, ulong sb,
             __global limb_t *r, __global const uchar *ctl, uint n)
{
    const size_t gid = get_global_id(0);
    if (gid >= (size_t)n * ${NV}u) return;   /* no barriers below: padding items may leave */
    const size_t inst = gid / ${NV}u, j = (gid % ${NV}u) * ${V}u;
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
    const uint4 x0 = j < ${MA}u ? vload4(0, a + inst * sa + j) : (uint4)(0u);
    const uint4 y0 = j < ${MB}u ? vload4(0, b + inst * sb + j) : (uint4)(0u);
% else:
    const limb_t x0 = j < ${MA}u ? a[inst * sa + j] : 0u;
    const limb_t y0 = j < ${MB}u ? b[inst * sb + j] : 0u;
% endif
% if OP == "select":
    const ${T} x = x0, y = y0;
    const ${T} z = ${expr};
% else:
    const ${T} x = x0 ^ ia, y = y0 ^ ib;
    const ${T} z = ${expr} ^ io;
% endif
% if V == 4:
    vstore4(z, 0, r + inst * ${MR}u + j);
% else:
    r[inst * ${MR}u + j] = z;
% endif
}
