## Classical product of a few instances, spread over many work-groups by result columns
## (clbig/mul_basecase.py, _mul_cols): r + s = (a * b) mod B^MR.
##
## The one-group kernel (mul.cl.mako) puts a whole instance on one work-group, so a single
## product of a few thousand limbs runs on one compute unit. Here group g of an instance owns
## columns [g·COLS, (g+1)·COLS) and S·COLS work-items: item (s, c) sums column g·COLS + c's
## terms with i in slice s of a's limbs (blocks/columns.mako). The slices' sums are added in
## local memory, one item turns the group's COLS column sums into limbs (r) and the two limbs
## that carry out of them, which go to s at the next group's first columns; the rest of s is
## zero (group 0 zeroes the first COLS limbs, so no fill is needed). The caller adds r + s.
## a should be the shorter operand: its limbs are what the slices divide.
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/columns.mako" import="column_sum, resolve_columns"/>
<% WG = COLS * S; G = -(-MR // COLS); SEG = -(-MA // S) %>
${header()}

__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void mul_cols(__global const limb_t *a, ulong sa, __global const limb_t *b, ulong sb,
              __global limb_t *r, __global limb_t *spill, uint n)
{
    __local ulong lo[${WG}];
    __local uint hi[${WG}];
    __local limb_t res[${COLS + 2}];
    const uint tid = get_local_id(0), c = tid % ${COLS}u, s = tid / ${COLS}u;
    const uint inst = get_group_id(0) / ${G}u, g = get_group_id(0) % ${G}u;   /* inst < n: the grid is n·G groups */
    const uint k0 = g * ${COLS}u;
    __global const limb_t *ap = a + (size_t)inst * sa, *bp = b + (size_t)inst * sb;
    ulong acc = 0; uint top = 0;
    if (k0 + c < ${MR}u) {
        ${column_sum("acc", "top", "ap", "bp", "k0 + c", "s * %du" % SEG, "(s + 1u) * %du" % SEG, MA, MB)}
    }
    lo[tid] = acc; hi[tid] = top;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (s == 0) {
        for (uint t = 1; t < ${S}u; ++t) {
            const ulong x = lo[t * ${COLS}u + c];
            acc += x; top += hi[t * ${COLS}u + c] + (uint)(acc < x);
        }
        lo[c] = acc; hi[c] = top;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid == 0) ${resolve_columns("lo", "hi", "res", COLS)}
    barrier(CLK_LOCAL_MEM_FENCE);
    __global limb_t *rp = r + (size_t)inst * ${MR}u, *sp = spill + (size_t)inst * ${MR}u;
    for (uint j = tid; j < ${COLS}u; j += ${WG}u) {
        if (k0 + j < ${MR}u) rp[k0 + j] = res[j];
        if (k0 + ${COLS}u + j < ${MR}u) sp[k0 + ${COLS}u + j] = (j < 2u) ? res[${COLS}u + j] : 0u;
        if (g == 0 && j < ${MR}u) sp[j] = 0u;
    }
}
