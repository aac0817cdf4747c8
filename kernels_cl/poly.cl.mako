## The papers' Poly benchmark, (a·a + b)·(b·b + b) + a·b mod 2^bits in one kernel: four
## low-half products (two of them squares, at about half the work) and three additions on
## registers, a and b staged in local memory once; the result leaves through it, coalesced.
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/stage.mako" import="load_local, store_chunks"/>
<%namespace file="blocks/arith.mako" import="carry_op_defs"/>
<%namespace file="blocks/group.mako" import="group_add, group_product"/>
<%
    WG = IPB * IPI
    LPAD = 3 * Q
    LD = LPAD + M + 2 * Q   # both operands in the zero-margined layout
    RC = C
    P = lambda buf: (lambda i, o=0: "(%s + s * %du + %d + (%s))[%d]" % (buf, LD, LPAD, i, o))
    X = lambda v: (lambda j: "%s[%d]" % (v, j))
    L = lambda buf, c: (lambda j: "%s[s * %du + %d + (%s) * %du + %d]" % (buf, LD, LPAD, c, Q, j))
%>
${header()}
${carry_op_defs()}

__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void poly(__global const limb_t *a, ulong sa, __global const limb_t *b, ulong sb,
          __global limb_t *r, uint n)
{
    const uint tid = get_local_id(0), s = tid / ${IPI}u, t = tid % ${IPI}u;
    const uint inst0 = get_group_id(0) * ${IPB}u, inst = inst0 + s;
    __local limb_t As[${IPB * LD}], Bs[${IPB * LD}];
    __local ulong spl[${IPB * C}];
    __local uint sc[${IPB * C}];
    ${load_local("As", LD, LPAD, "a", "sa", M, "inst0", "n", "tid", WG, IPB)}
    ${load_local("Bs", LD, LPAD, "b", "sb", M, "inst0", "n", "tid", WG, IPB)}
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint c1 = t, c2 = ${C - 1}u - t;
    <% seg = "s * %du" % C %>
    limb_t ab1[${Q}], ab2[${Q}], u1[${Q}], u2[${Q}], v1[${Q}], v2[${Q}], w1[${Q}], w2[${Q}];
    ${group_product("ab1", "ab2", "c1", "c2", P("As"), P("Bs"), M, M, Q, "spl", "sc", seg, C)}
    ${group_product("w1", "w2", "c1", "c2", P("As"), P("As"), M, M, Q, "spl", "sc", seg, C, square=True)}
    ${group_add([("u1", X("w1"), L("Bs", "c1"), "c1"), ("u2", X("w2"), L("Bs", "c2"), "c2")], Q, "sc", seg, C)}
    ${group_product("w1", "w2", "c1", "c2", P("Bs"), P("Bs"), M, M, Q, "spl", "sc", seg, C, square=True)}
    ${group_add([("v1", X("w1"), L("Bs", "c1"), "c1"), ("v2", X("w2"), L("Bs", "c2"), "c2")], Q, "sc", seg, C)}
    /* a and b are dead: the two factors take their places */
% for uu, vv, cc in (("u1", "v1", "c1"), ("u2", "v2", "c2")):
  % for j in range(Q):
    if (${cc} * ${Q}u + ${j}u < ${M}u) {
        As[s * ${LD}u + ${LPAD}u + ${cc} * ${Q}u + ${j}u] = ${uu}[${j}];
        Bs[s * ${LD}u + ${LPAD}u + ${cc} * ${Q}u + ${j}u] = ${vv}[${j}];
    }
  % endfor
% endfor
    barrier(CLK_LOCAL_MEM_FENCE);
    ${group_product("w1", "w2", "c1", "c2", P("As"), P("Bs"), M, M, Q, "spl", "sc", seg, C)}
    ${group_add([("u1", X("w1"), X("ab1"), "c1"), ("u2", X("w2"), X("ab2"), "c2")], Q, "sc", seg, C)}
    /* group_add ended on a barrier: As is free */
    ${store_chunks([("u1", "c1"), ("u2", "c2")], "As", "r", MR, TOP_MASK, "inst0", "n", "s", "tid", WG, IPB, Q)}
}
