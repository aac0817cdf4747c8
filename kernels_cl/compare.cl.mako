## Three-way comparison of a batch by the LTop reduction: each work-item compares its chunk,
## then a segmented scan keeps the most significant difference. Multi-group instances
## (MODE "summary") write one result per block; the host keeps the top non-equal block.
## The widths ma, mb arrive at run time (anything up to the plan's IPI*Q*G limbs): one kernel
## per launch shape, not per pair of widths (issue 43).
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/stage.mako" import="stage_in"/>
<%namespace file="blocks/scan.mako" import="seg_scan"/>
<%namespace file="blocks/arith.mako" import="carry_op_defs, cmp_chunk"/>
<% WG = IPB * IPI; M = IPI * Q %>
${header()}
${carry_op_defs()}

__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void compare(__global const limb_t *a, ulong sa, __global const limb_t *b, ulong sb,
             __global uchar *out, uint n, uint ma, uint mb)
{
    __local limb_t stage[PADDED(${WG * Q})];
    __local uint sc[${WG}];
    const uint tid = get_local_id(0), s = tid / ${IPI}u, p = tid % ${IPI}u;
% if MODE == "single":
    const uint inst0 = get_group_id(0) * ${IPB}u, block = 0;
% else:
    const uint inst0 = get_group_id(0) / ${G}u, block = get_group_id(0) % ${G}u;
% endif
    const uint limb_off = block * ${M}u, inst = inst0 + s;
    limb_t x[${Q}], y[${Q}];
    ${stage_in("x", "a", "sa", "ma", "inst0", "n", "stage", "tid", WG, Q, M, "limb_off", VEC)}
    ${stage_in("y", "b", "sb", "mb", "inst0", "n", "stage", "tid", WG, Q, M, "limb_off", VEC)}
    uint v;
    ${cmp_chunk(lambda j: "x[%d]" % j, lambda j: "y[%d]" % j, Q, "v")}
    ${seg_scan("sc", "s * %du" % IPI, [("v", "p")], IPI, "CMP_OP", "CMP_ID")}
    if (p == ${IPI - 1}u && inst < n) out[(size_t)inst * ${G}u + block] = (uchar)v;
}
