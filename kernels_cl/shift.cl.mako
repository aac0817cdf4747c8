## a << k or a >> k for a batch, k = 32*q + rbits at run time (one build per shape). One
## work-item per output limb of the flattened (n, MR) result, so no work-group limit applies and
## every size takes the same path. PER_ROW: k per instance, from a ulong array (a << [1, 2, 3]).
## Each output limb straddles two input limbs; each work-item
## reads one from global memory (coalesced: neighbours read neighbours) and stages it in local
## memory, where its neighbour picks it up as the other half. Only the ends of a group's tile
## (and of an instance, on a right shift) read their second limb themselves.
<%namespace file="blocks/common.mako" import="header"/>
${header()}

<%
    # src(j): the input limb that output limb j shifts into place, zero outside a
    if LEFT:
        src = lambda j: "((%(j)s) >= q && (%(j)s) - q < %(m)du ? ap[(%(j)s) - q] : 0u)" % dict(j=j, m=MA)
    else:
        src = lambda j: "(q < %(m)du && (%(j)s) < %(m)du - q ? ap[(%(j)s) + q] : 0u)" % dict(j=j, m=MA)
%>
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
% if PER_ROW:
void shift(__global const limb_t *a, ulong sa, __global limb_t *r, uint n,
           __global const ulong *ks, ulong sk)
% else:
void shift(__global const limb_t *a, ulong sa, __global limb_t *r, uint n, ulong q, uint rbits)
% endif
{
    __local limb_t L[${WG + 1}];
    const uint tid = get_local_id(0);
    const size_t gid = get_global_id(0), total = (size_t)n * ${MR}u;
    const bool live = gid < total;
    const size_t inst = live ? gid / ${MR}u : 0, j = live ? gid % ${MR}u : 0;
% if PER_ROW:
    /* k of this instance (stride sk: 0 broadcasts one count). A neighbour in local memory that
       belongs to another instance is never read (j > 0 / j + 1 < MR below), so work-items of
       one group may shift by different counts. */
    const ulong k = ks[inst * sk], q = k >> 5;
    const uint rbits = (uint)(k & 31u);
% endif
    __global const limb_t *ap = a + inst * sa;
    const limb_t own = live ? ${src("j")} : 0u;
% if LEFT:
    /* limb j of a << k: its own source shifted up, the top bits of the source of limb j - 1 */
    L[tid + 1] = own;
    if (tid == 0) L[0] = (live && j > 0) ? ${src("j - 1")} : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    const limb_t lo = j > 0 ? L[tid] : 0u;
    if (live) r[gid] = rbits ? (own << rbits) | (lo >> (32u - rbits)) : own;
% else:
    /* limb j of a >> k: its own source shifted down, the low bits of the source of limb j + 1 */
    L[tid] = own;
    if (tid == ${WG - 1}u) L[${WG}] = (live && j + 1 < ${MR}u) ? ${src("j + 1")} : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* an instance's last limb: the limb above it is the next instance's, so read it here */
    const limb_t hi = j + 1 < ${MR}u ? L[tid + 1] : (live ? ${src("j + 1")} : 0u);
    if (live) r[gid] = rbits ? (own >> rbits) | (hi << (32u - rbits)) : own;
% endif
}
