## Population count of a batch (bit_count): work-item (inst, blk) adds the set bits of limbs
## [blk * C, min((blk + 1) * C, M)) of instance inst and writes one uint; the host adds an
## instance's G partial counts. No local memory, no barriers: padding items may leave early.
<%namespace file="blocks/common.mako" import="header"/>
${header()}
<% G = (M + C - 1) // C %>
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void popcount_rows(__global const limb_t *a, ulong sa, __global uint *out, uint n)
{
    const size_t gid = get_global_id(0);
    if (gid >= (size_t)n * ${G}u) return;
    const size_t inst = gid / ${G}u;
    const uint j0 = (uint)(gid % ${G}u) * ${C}u;
    const uint j1 = min(j0 + ${C}u, ${M}u);
    __global const limb_t *x = a + inst * sa;
    uint c = 0u;                      /* at most 32 * C: no overflow */
    for (uint j = j0; j < j1; ++j) c += popcount(x[j]);
    out[gid] = c;
}
