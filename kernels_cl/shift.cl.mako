## a << k or a >> k for a batch: each output limb gathers the two input limbs it straddles.
## One work-item per output limb, so reads and writes are coalesced at every size and no
## work-group limit applies; k = 32*q + rbits arrives at run time (one build per shape).
<%namespace file="blocks/common.mako" import="header"/>
${header()}

__kernel void shift(__global const limb_t *a, ulong sa, __global limb_t *r, uint n, ulong q, uint rbits)
{
    const size_t gid = get_global_id(0);
    if (gid >= (size_t)n * ${MR}u) return;
    const size_t inst = gid / ${MR}u, j = gid % ${MR}u;
    __global const limb_t *ap = a + inst * sa;
% if LEFT:
    /* limb j of a << k takes bits from limbs j - q (shifted up) and j - q - 1 (its top) */
    limb_t hi = (j >= q && j - q < ${MA}u) ? ap[j - q] : 0u;
    limb_t lo = (j >= q + 1 && j - q - 1 < ${MA}u) ? ap[j - q - 1] : 0u;
    r[gid] = rbits ? (hi << rbits) | (lo >> (32u - rbits)) : hi;
% else:
    limb_t lo = (q < ${MA}u && j < ${MA}u - q) ? ap[j + q] : 0u;
    limb_t hi = (q < ${MA}u && j + 1 < ${MA}u - q) ? ap[j + q + 1] : 0u;
    r[gid] = rbits ? (lo >> rbits) | (hi << (32u - rbits)) : lo;
% endif
}
