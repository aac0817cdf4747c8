## Addition and subtraction for CPUs: one work-item per instance, its limbs in order with the
## carry in a register (add_n.serial). A CPU runs work-items as loop iterations, so the
## GPUs' kernel (add.cl.mako: limbs over items, carries by a scan through local memory and
## barriers) pays for parallelism a CPU core does not have: 4096 sums of 2048 bits took 1.8 ms
## there against 0.3 here (2-core Xeon, PoCL, 2026-11-27). Intel's runtime vectorizes across
## items itself.
##
## OP "add" or "sub" (a + ~b + 1 over zero-extended operands, so limbs past both operands
## continue the two's complement), or "ctl": per instance, control byte flag[i] (add_n.CTL_*)
## makes r = ((a + ((b & keep) ^ flip)) + cin) ^ notr. MA, MB operand limbs, MR result limbs
## (the top one masked by TOP_MASK); FLAG_LIMB / FLAG_BIT: where flag bit `bits` of the wide
## result lies (None: no flags), possibly past the result's limbs.
<%namespace file="blocks/common.mako" import="header"/>
${header()}
<%
    SUB = OP == "sub"
    CTL = OP == "ctl"
    L = MR if FLAG_LIMB is None else max(MR, FLAG_LIMB + 1)   # limbs the chain runs through
    def B(y):            # the second term: b, ~b, or b under the control byte
        return "((%s) & keep) ^ flip" % y if CTL else ("~(%s)" % y if SUB else y)
    NOTR = " ^ notr" if CTL else ""
%>
__kernel void add_serial(__global const limb_t *a, ulong sa, __global const limb_t *b, ulong sb,
                         __global limb_t *out, __global uchar *flag, uint n)
{
    const uint i = get_global_id(0);
    if (i >= n) return;
    __global const limb_t *ra = a + (size_t)i * sa, *rb = b + (size_t)i * sb;
    __global limb_t *ro = out + (size_t)i * ${MR}u;
% if CTL:
    const uint ctl = flag[i];
    const limb_t keep = (ctl & 8u) ? 0u : LIMB_MAX, flip = (ctl & 1u) ? LIMB_MAX : 0u;
    const limb_t notr = (ctl & 4u) ? LIMB_MAX : 0u;
    dlimb_t c = (ctl >> 1) & 1u;
% else:
    dlimb_t c = ${int(SUB)}ul;
% endif
<%def name="span(lo, hi, x, y)">
% if hi > lo:
    for (uint j = ${lo}u; j < ${hi}u; ++j) {
        c += (dlimb_t)(${x}) + (dlimb_t)(limb_t)(${B(y)});
  % if FLAG_LIMB is not None and lo <= FLAG_LIMB < hi:
        if (j == ${FLAG_LIMB}u) flag[i] = (uchar)(((limb_t)c >> ${FLAG_BIT}u) & 1u);
  % endif
  % if lo < MR:
    % if TOP_MASK != 0xFFFFFFFF and lo <= MR - 1 < hi:
        if (j < ${MR}u) ro[j] = ((limb_t)c${NOTR}) & (j == ${MR - 1}u ? ${TOP_MASK}u : LIMB_MAX);
    % else:
        if (j < ${MR}u) ro[j] = (limb_t)c${NOTR};
    % endif
  % endif
        c >>= 32;
    }
% endif
</%def>
<% lo1 = min(MA, MB, L); hi1 = min(max(MA, MB), L) %>
    ${span(0, lo1, "ra[j]", "rb[j]")}
% if MA > MB:
    ${span(lo1, hi1, "ra[j]", "0u")}
% else:
    ${span(lo1, hi1, "0u", "rb[j]")}
% endif
    ${span(hi1, L, "0u", "0u")}
}
