## The papers' 6-Add benchmark, 6a + 10b mod 2^bits by six chained additions in one kernel:
## t1 = a+b, t2 = t1+t1, t3 = t2+b, t4 = t3+t3, t5 = t4+t3, r = t5+b, all kept in registers.
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/stage.mako" import="stage_in, stage_out"/>
<%namespace file="blocks/arith.mako" import="carry_op_defs"/>
<%namespace file="blocks/group.mako" import="group_add"/>
<% WG = IPB * IPI; M = IPI * Q; X = lambda v: (lambda j: "%s[%d]" % (v, j)) %>
${header()}
${carry_op_defs()}

__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void six_add(__global const limb_t *a, ulong sa, __global const limb_t *b, ulong sb,
             __global limb_t *r, uint n)
{
    __local limb_t stage[PADDED(${WG * Q})];
    __local uint sc[${WG}];
    const uint tid = get_local_id(0), s = tid / ${IPI}u, p = tid % ${IPI}u;
    const uint inst0 = get_group_id(0) * ${IPB}u;
    limb_t x[${Q}], y[${Q}], t1[${Q}], t2[${Q}];
    ${stage_in("x", "a", "sa", MA, "inst0", "n", "stage", "tid", WG, Q, M, "0", VEC_A)}
    ${stage_in("y", "b", "sb", MB, "inst0", "n", "stage", "tid", WG, Q, M, "0", VEC_B)}
    <% seg = "s * %du" % IPI %>
    ${group_add([("t1", X("x"), X("y"), "p")], Q, "sc", seg, IPI)}
    ${group_add([("t2", X("t1"), X("t1"), "p")], Q, "sc", seg, IPI)}
    ${group_add([("t1", X("t2"), X("y"), "p")], Q, "sc", seg, IPI)}
    ${group_add([("t2", X("t1"), X("t1"), "p")], Q, "sc", seg, IPI)}
    ${group_add([("x", X("t2"), X("t1"), "p")], Q, "sc", seg, IPI)}
    ${group_add([("t1", X("x"), X("y"), "p")], Q, "sc", seg, IPI)}
% if TOP_MASK != 0xFFFFFFFF:
  % for j in range(Q):
    if (p * ${Q}u + ${j}u == ${MR - 1}u) t1[${j}] &= ${TOP_MASK}u;
  % endfor
% endif
    ${stage_out("t1", "r", MR, "inst0", "n", "stage", "tid", WG, Q, M, "0", VEC_R)}
}
