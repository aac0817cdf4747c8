## Python's a >> k (floor) of signed values in one launch, k = 32*q + rbits at run time: for a
## negative a the magnitude is ceil(|a| / 2^k) = (|a| + 2^k - 1) >> k, so per instance
##   map + carry scan: s = |a| + (2^k - 1 where a is marked negative, else 0), over MA + 1 limbs
##                     (the carry out of |a| lands in limb MA);
##   shift:            s goes to local memory, each output limb is made of two of its limbs.
## A zero marked negative ("-0") gives (2^k - 1) >> k = 0: it stays a -0, which is 0.
## IPB instances per work-group over IPI work-items of Q limbs (IPI * Q >= MA + 1); the host
## clamps k to a's capacity (every bit is shifted out from there on: ceil(|a| / 2^k) = 1).
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/stage.mako" import="stage_in"/>
<%namespace file="blocks/scan.mako" import="seg_scan"/>
<%namespace file="blocks/arith.mako" import="carry_op_defs, add_chunk, apply_carry"/>
<% WG = IPB * IPI; M = IPI * Q %>
${header()}
${carry_op_defs()}

__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void shift_signed(__global const limb_t *a, ulong sa, __global limb_t *r,
                  __global const uchar *na, uint n, uint q, uint rbits)
{
% if IPI > 1:
    __local uint sc[${WG}];
    __local limb_t stage[PADDED(${WG * Q})];
% endif
    const uint tid = get_local_id(0), s = tid / ${IPI}u, p = tid % ${IPI}u;
    const uint inst0 = get_group_id(0) * ${IPB}u, inst = inst0 + s;
    limb_t x[${Q}], z[${Q}];
% if IPI == 1:
    /* one instance per work-item (at most Q = 4 limbs): its limbs straight from global
       memory, no local memory and no barriers (which cost CPU implementations most) */
  % for j in range(Q):
    x[${j}] = ${"inst < n ? a[(size_t)inst * sa + %du] : 0u" % j if j < MA else "0u"};
  % endfor
% else:
    ${stage_in("x", "a", "sa", MA, "inst0", "n", "stage", "tid", WG, Q, M, "0", VEC_A)}
% endif
    /* 2^k - 1: limbs below q all ones, limb q the low rbits bits */
    const limb_t ones = (inst < n && na[inst]) ? LIMB_MAX : 0u, low = ones & ((1u << rbits) - 1u);
    const uint l0 = p * ${Q}u;
    uint v;
    ${add_chunk("z", lambda j: "x[%d]" % j, lambda j: "(l0 + %du < q ? ones : (l0 + %du == q ? low : 0u))" % (j, j), Q, "v")}
% if IPI > 1:
    ${seg_scan("sc", "s * %du" % IPI, [("v", "p")], IPI, "CARRY_OP", "CARRY_ID")}
    const limb_t cin = p > 0 ? (sc[s * ${IPI}u + p - 1u] & 1u) : 0u;
% else:
    const limb_t cin = 0u;
% endif
    ${apply_carry("z", "cin", Q)}
% if IPI == 1:
    /* output limb j from limbs q + j and q + j + 1 of s, all in this work-item */
  % for j in range(MR):
    {
        limb_t lo = 0u, hi = 0u;
    % for i in range(Q):
        lo = (q + ${j}u == ${i}u) ? z[${i}] : lo;
        hi = (q + ${j + 1}u == ${i}u) ? z[${i}] : hi;
    % endfor
        if (inst < n) r[(size_t)inst * ${MR}u + ${j}u] = rbits ? (lo >> rbits) | (hi << (32u - rbits)) : lo;
    }
  % endfor
% else:
    /* stage_in has finished with `stage` (its last barrier): s goes there, limb l of
       instance t at PAD(t * M + l); limbs from MA + 1 up are zero */
% for j in range(Q):
    stage[PAD(tid * ${Q}u + ${j}u)] = z[${j}];
% endfor
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint f = tid; f < ${IPB * MR}u; f += ${WG}u) {
        const uint t = f / ${MR}u, l = f % ${MR}u + q;
        const limb_t lo = l < ${M}u ? stage[PAD(t * ${M}u + l)] : 0u;
        const limb_t hi = l + 1u < ${M}u ? stage[PAD(t * ${M}u + l + 1u)] : 0u;
        if (inst0 + t < n)
            r[(size_t)inst0 * ${MR}u + f] = rbits ? (lo >> rbits) | (hi << (32u - rbits)) : lo;
    }
% endif
}
