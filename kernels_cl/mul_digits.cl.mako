## Classical product of a batch in radix-2^30 digits (see blocks/digits.mako): r = a*b mod
## B^MR. Same load-balanced chunk pairs as mul.cl.mako; both operands staged in local memory
## as digits, the result re-cut into limbs on the way out.
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/arith.mako" import="carry_op_defs"/>
<%namespace file="blocks/digits.mako" import="digit_defs, load_digits, group_product30, store_limbs"/>
<%
    WG = IPB * IPI
    LPAD, RPAD = 3 * Q, 2 * Q
    ALD = DA + Q
    BLD = LPAD + DB + RPAD
    RC = C // REGIONS
    DLD = ALD + BLD          # the result's digits reuse the operands' space
    assert C * Q + 2 <= DLD
    LA = lambda i: "As[s * %du + (%s)]" % (ALD, i)
    LB = lambda j: "Bs[s * %du + %d + (%s)]" % (BLD, LPAD, j)
%>
${header()}
${carry_op_defs()}
${digit_defs()}

__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void mul_digits(__global const limb_t *a, ulong sa, __global const limb_t *b, ulong sb,
                __global limb_t *r, uint n)
{
    const uint tid = get_local_id(0), s = tid / ${IPI}u, t = tid % ${IPI}u;
    const uint inst0 = get_group_id(0) * ${IPB}u;
    __local uint ops[${IPB * DLD}];
    __local uint *As = ops, *Bs = ops + ${IPB * ALD};
    __local ulong spl[${IPB * C}];
    __local uint sc[${IPB * C}];
    ${load_digits("As", ALD, 0, "a", "sa", MA, DA, "inst0", "n", "tid", WG, IPB)}
    ${load_digits("Bs", BLD, LPAD, "b", "sb", MB, DB, "inst0", "n", "tid", WG, IPB)}
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint reg = t / ${RC // 2}u, tr = t % ${RC // 2}u;
    const uint c1 = reg * ${RC}u + tr, c2 = reg * ${RC}u + ${RC - 1}u - tr;
    uint r1[${Q}], r2[${Q}];
    ${group_product30("r1", "r2", "c1", "c2", LA, LB, DA, DB, Q, "spl", "sc", "s * %du" % C, C)}
    ${store_limbs([("r1", "c1"), ("r2", "c2")], "ops", DLD, C * Q, "r", MR, TOP_MASK, "inst0", "n", "s", "tid", WG, IPB, Q)}
}
