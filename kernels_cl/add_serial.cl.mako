## Addition and subtraction for CPUs: one work-item per instance, its limbs in order with the
## carry in a register (add_n.serial). A CPU runs work-items as loop iterations, so the
## GPUs' kernel (add.cl.mako: limbs over items, carries by a scan through local memory and
## barriers) pays for parallelism a CPU core does not have: 4096 sums of 2048 bits took 1.8 ms
## there against 0.3 here (2-core Xeon, PoCL, 2026-11-27). Intel's runtime vectorizes across
## items itself.
##
## OP "add" or "sub" (a + ~b + 1 over zero-extended operands, so limbs past both operands
## continue the two's complement), or "ctl": per instance, control byte flag[i] (add_n.CTL_*)
## makes r = ((a + ((b & keep) ^ flip)) + cin) ^ notr.
##
## The widths are run-time arguments, not template parameters (issue 43): ma, mb operand limbs,
## mr result limbs (the top one masked by top_mask), flag_limb / flag_bit where flag bit `bits`
## of the wide result lies (NO_FLAG: no flags), possibly past the result's limbs. One build per
## OP then serves every width: a loop whose capacity grows a bit a step built a kernel per step.
## A CPU runs these loops as loops either way; the bounds are uniform across work-items, so
## Intel's runtime still vectorizes across items.
<%namespace file="blocks/common.mako" import="header"/>
${header()}
<%
    SUB = OP == "sub"
    CTL = OP == "ctl"
    def B(y):            # the second term: b, ~b, or b under the control byte
        return "((%s) & keep) ^ flip" % y if CTL else ("~(%s)" % y if SUB else y)
    NOTR = " ^ notr" if CTL else ""
%>
#define NO_FLAG 0xFFFFFFFFu
__kernel void add_serial(__global const limb_t *a, ulong sa, __global const limb_t *b, ulong sb,
                         __global limb_t *out, __global uchar *flag, uint n, uint ma, uint mb,
                         uint mr, uint flag_limb, uint flag_bit, uint top_mask)
{
    const uint i = get_global_id(0);
    if (i >= n) return;
    __global const limb_t *ra = a + (size_t)i * sa, *rb = b + (size_t)i * sb;
    __global limb_t *ro = out + (size_t)i * mr;
% if CTL:
    const uint ctl = flag[i];
    const limb_t keep = (ctl & 8u) ? 0u : LIMB_MAX, flip = (ctl & 1u) ? LIMB_MAX : 0u;
    const limb_t notr = (ctl & 4u) ? LIMB_MAX : 0u;
    dlimb_t c = (ctl >> 1) & 1u;
% else:
    dlimb_t c = ${int(SUB)}ul;
% endif
    // limbs the chain runs through: the result's, and the flag's limb where it lies beyond
    const uint L = (flag_limb == NO_FLAG || flag_limb < mr) ? mr : flag_limb + 1u;
    const uint lo1 = min(min(ma, mb), L), hi1 = min(max(ma, mb), L);
<%def name="span(lo, hi, x, y)">
    for (uint j = ${lo}; j < ${hi}; ++j) {
        c += (dlimb_t)(${x}) + (dlimb_t)(limb_t)(${B(y)});
% if not CTL:
        if (j == flag_limb) flag[i] = (uchar)(((limb_t)c >> flag_bit) & 1u);
% endif
        if (j < mr) ro[j] = ((limb_t)c${NOTR}) & (j == mr - 1u ? top_mask : LIMB_MAX);
        c >>= 32;
    }
</%def>
    ${span("0u", "lo1", "ra[j]", "rb[j]")}
    if (ma > mb) {
        ${span("lo1", "hi1", "ra[j]", "0u")}
    } else {
        ${span("lo1", "hi1", "0u", "rb[j]")}
    }
    ${span("hi1", "L", "0u", "0u")}
}
