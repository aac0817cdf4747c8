## Classical product of a batch: r = (a * b) mod B^MR (MR = MA + MB for the full product).
## Result chunks of Q columns are dealt to work-items in load-balanced pairs: within each
## region (the whole result, or each half of a full product) chunk t goes with its mirror,
## so every work-item does about the same number of multiply-adds.
##
## MODE "single": IPB instances per group; a (and b unless B_GLOBAL) staged in local memory
##   with zero margins; the chunks' spills and carries are resolved in the group, then stored
##   straight from registers (staging them through local memory for coalesced stores measured
##   no faster on an H100: 7.24 against 7.01 ms at 2^13 bits). SQUARE: a and b are the same
##   operand, staged once, and each cross product is taken once (conv.mako).
## MODE "multi": operands read from global memory, any number of groups per instance; each
##   work-item writes its chunks to r and their spills to s (zeroed by the host); r + s then
##   finishes the product (a multi-group addition).
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/stage.mako" import="load_local"/>
<%namespace file="blocks/arith.mako" import="carry_op_defs"/>
<%namespace file="blocks/conv.mako" import="conv_pair"/>
<%namespace file="blocks/group.mako" import="group_product"/>
<%
    WG = IPB * IPI if MODE == "single" else IPB  # multi: IPB is just the group size
    LPAD, RPAD = 3 * Q, 2 * Q
    ALD = MA + Q            # a: zeros past MA
    BLD = LPAD + MB + RPAD  # b: zero margins both sides
    RC = C // REGIONS       # chunks per region
    A_OWN = MODE == "single" and not (SQUARE and not B_GLOBAL)   # a staged apart from b
    OPS = IPB * ((ALD if A_OWN else 0) + (0 if B_GLOBAL else BLD))
    if MODE == "single" and A_OWN:
        LA = lambda i, o=0: "(As + s * %du + (%s))[%d]" % (ALD, i, o)
    elif MODE == "single":
        LA = lambda i, o=0: "(Bs + s * %du + %d + (%s))[%d]" % (BLD, LPAD, i, o)
    else:
        LA = lambda i, o=0: "((%s) + %d < %d ? ap[(%s) + %d] : 0u)" % (i, o, MA, i, o)
    if MODE == "single" and not B_GLOBAL:
        LB = lambda j, o=0: "(Bs + s * %du + %d + (%s))[%d]" % (BLD, LPAD, j, o)
    else:
        LB = lambda j, o=0: "((uint)((%s) + %d) < %du ? bp[(%s) + %d] : 0u)" % (j, o, MB, j, o)
%>
${header()}
${carry_op_defs()}

__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void mul(__global const limb_t *a, ulong sa, __global const limb_t *b, ulong sb,
         __global limb_t *r, __global limb_t *sp_out, uint n)
{
    const uint tid = get_local_id(0);
% if MODE == "single":
    const uint s = tid / ${IPI}u, t = tid % ${IPI}u;
    const uint inst0 = get_group_id(0) * ${IPB}u, inst = inst0 + s;
    __local limb_t ops[${OPS}];
  % if A_OWN:
    __local limb_t *As = ops;
    ${load_local("As", ALD, 0, "a", "sa", MA, "inst0", "n", "tid", WG, IPB)}
  % endif
  % if not B_GLOBAL:
    __local limb_t *Bs = ops + ${IPB * ALD if A_OWN else 0};
    ${load_local("Bs", BLD, LPAD, "b", "sb", MB, "inst0", "n", "tid", WG, IPB)}
  % else:
    __global const limb_t *bp = b + (size_t)(inst < n ? inst : 0) * sb;
  % endif
    barrier(CLK_LOCAL_MEM_FENCE);
% else:
    const uint gpi = ${(IPI + WG - 1) // WG}u;
    const uint inst = get_group_id(0) / gpi, t = (get_group_id(0) % gpi) * ${WG}u + tid;
    if (t >= ${IPI}u) return;   /* no local memory or barriers in this mode */
    __global const limb_t *ap = a + (size_t)inst * sa, *bp = b + (size_t)inst * sb;
% endif
    /* this work-item's pair of chunks: t-th from the bottom and from the top of its region */
    const uint reg = t / ${RC // 2}u, tr = t % ${RC // 2}u;
    const uint c1 = reg * ${RC}u + tr, c2 = reg * ${RC}u + ${RC - 1}u - tr;
    limb_t r1[${Q}], r2[${Q}];
% if MODE == "single":
    __local ulong spl[${IPB * C}];
    __local uint sc[${IPB * C}];
    ${group_product("r1", "r2", "c1", "c2", LA, LB, MA, MB, Q, "spl", "sc", "s * %du" % C, C, SQUARE)}
    if (inst < n) {
  % for rr, cc in (("r1", "c1"), ("r2", "c2")):
    %  for j in range(Q):
        if (${cc} * ${Q}u + ${j}u < ${MR}u)
            r[(size_t)inst * ${MR}u + ${cc} * ${Q}u + ${j}u] = ${rr}[${j}]${" & (%s * %du + %du == %du ? %du : 0xFFFFFFFFu)" % (cc, Q, j, MR - 1, TOP_MASK) if TOP_MASK != 0xFFFFFFFF else ""};
    %  endfor
  % endfor
    }
% else:
    ulong sp1, sp2;
    ${conv_pair("c1 * %du" % Q, "c2 * %du" % Q, "r1", "r2", "sp1", "sp2", LA, LB, MA, MB, Q, SQUARE, C * Q)}
  % for rr, cc, ss in (("r1", "c1", "sp1"), ("r2", "c2", "sp2")):
    % for j in range(Q):
    if (${cc} * ${Q}u + ${j}u < ${MR}u) r[(size_t)inst * ${MR}u + ${cc} * ${Q}u + ${j}u] = ${rr}[${j}];
    % endfor
    if ((${cc} + 1u) * ${Q}u < ${MR}u) sp_out[(size_t)inst * ${MR}u + (${cc} + 1u) * ${Q}u] = (limb_t)${ss};
    if ((${cc} + 1u) * ${Q}u + 1u < ${MR}u) sp_out[(size_t)inst * ${MR}u + (${cc} + 1u) * ${Q}u + 1u] = (limb_t)(${ss} >> 32);
  % endfor
% endif
}
