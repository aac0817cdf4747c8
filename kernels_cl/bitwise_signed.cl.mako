## Python's a & b, a | b, a ^ b of signed values (sign and magnitude) in one launch: IPB
## instances per work-group, each over IPI work-items of Q limbs (add.cl.mako's "single" layout).
## In infinite two's complement a negative x is ~|x| + 1, the +1 carrying through the zero limbs
## at the bottom of |x|, so per instance:
##   scan 1 (AND over chunks): which chunks of |a|, |b| lie above zero limbs only; its total
##          says whether |a|, |b| is zero (a zero marked negative, "-0", is 0: no complement);
##   map:   t = a2 OP b2 with a2 = (|a| ^ ia) + (1 where a < 0), b2 likewise (ia, ib all ones
##          where the operand is negative), and r = t ^ io, io the result's sign ea OP eb;
##   scan 2 (AND): the magnitude of a negative result is ~t + 1 = r + 1, the +1 carrying through
##          the limbs where t is zero (where r equals io).
## The result has MR limbs, at least one bit above both operands where a result can be
## negative (clbig/bitwise.py), so no carry leaves it. Sign marks come as bytes with an
## instance stride (0: a broadcast operand); with SIGN_OUT the result's signs go to nr.
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/stage.mako" import="stage_in, stage_out"/>
<%namespace file="blocks/scan.mako" import="seg_scan"/>
<%namespace file="blocks/arith.mako" import="apply_carry"/>
<% WG = IPB * IPI; M = IPI * Q; OPC = {"and": "&", "or": "|", "xor": "^"}[OP] %>
${header()}
#define AND_OP(lo, hi) ((lo) & (hi))

## ex (all lower chunks of the instance have the property, per bit) and tot (the whole
## instance has it) from this chunk's bits v; ID = every bit set.
<%def name="prefix_and(v, ex, tot, ID)">
% if IPI == 1:
    const uint ${ex} = ${ID}, ${tot} = ${v};
% else:
    ${seg_scan("sc", "s * %du" % IPI, [(v, "p")], IPI, "AND_OP", ID)}
    const uint ${ex} = p > 0 ? sc[s * ${IPI}u + p - 1u] : ${ID};
    const uint ${tot} = sc[s * ${IPI}u + ${IPI - 1}u];
    barrier(CLK_LOCAL_MEM_FENCE);   /* every item has read sc before it is written again */
% endif
</%def>

__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void bitwise_signed(__global const limb_t *a, ulong sa, __global const limb_t *b, ulong sb,
                    __global limb_t *r, __global const uchar *na, uint sna,
                    __global const uchar *nb, uint snb, __global uchar *nr, uint n)
{
% if IPI > 1:
    __local uint sc[${WG}];
    __local limb_t stage[PADDED(${WG * Q})];
% endif
    const uint tid = get_local_id(0), s = tid / ${IPI}u, p = tid % ${IPI}u;
    const uint inst0 = get_group_id(0) * ${IPB}u, inst = inst0 + s;
    const bool live = inst < n;
    limb_t x[${Q}], y[${Q}], z[${Q}];
% if IPI == 1:
    /* one instance per work-item (at most Q = 4 limbs): its limbs straight from global
       memory, no local memory and no barriers (which cost CPU implementations most) */
  % for j in range(Q):
    x[${j}] = ${"live ? a[(size_t)inst * sa + %du] : 0u" % j if j < MA else "0u"};
    y[${j}] = ${"live ? b[(size_t)inst * sb + %du] : 0u" % j if j < MB else "0u"};
  % endfor
% else:
    ${stage_in("x", "a", "sa", MA, "inst0", "n", "stage", "tid", WG, Q, M, "0", VEC_A)}
    ${stage_in("y", "b", "sb", MB, "inst0", "n", "stage", "tid", WG, Q, M, "0", VEC_B)}
% endif
    uint v = 3u;   /* bit 0: this chunk of |a| is zero; bit 1: of |b| */
% for j in range(Q):
    v &= (uint)(x[${j}] == 0u) | ((uint)(y[${j}] == 0u) << 1);
% endfor
    ${prefix_and("v", "ex", "tot", "3u")}
    /* effective signs: marked negative and not zero */
    const uint ea = (${"(live && na[(size_t)inst * sna]) ? 1u : 0u" if NA else "0u"}) & ~tot & 1u;
    const uint eb = (${"(live && nb[(size_t)inst * snb]) ? 1u : 0u" if NB else "0u"}) & (~tot >> 1) & 1u;
    const uint eo = ea ${OPC} eb;
    const limb_t ia = ea ? LIMB_MAX : 0u, ib = eb ? LIMB_MAX : 0u, io = eo ? LIMB_MAX : 0u;
    {
        limb_t ca = ea & ex, cb = eb & (ex >> 1);   /* the +1 of ~|x| + 1 reaching this chunk */
% for j in range(Q):
        {
            const limb_t xa = (x[${j}] ^ ia) + ca, yb = (y[${j}] ^ ib) + cb;
            ca &= (xa == 0u); cb &= (yb == 0u);
            z[${j}] = (xa ${OPC} yb) ^ io;
        }
% endfor
    }
    uint w = 1u;   /* this chunk of t = r ^ io is zero */
% for j in range(Q):
    w &= (uint)(z[${j}] == io);
% endfor
    ${prefix_and("w", "exr", "totr", "1u")}
    {
        const limb_t cr = eo & exr;
        ${apply_carry("z", "cr", Q)}
    }
% if SIGN_OUT:
    if (p == 0u && live) nr[inst] = (uchar)eo;
% endif
% if IPI == 1:
  % for j in range(MR):
    if (live) r[(size_t)inst * ${MR}u + ${j}u] = z[${j}];
  % endfor
% else:
    ${stage_out("z", "r", MR, "inst0", "n", "stage", "tid", WG, Q, M, "0", VEC_R)}
% endif
}
