## Addition and subtraction one work-item per instance, its limbs in order with the carry in a
## register (add_n.serial: on CPUs, and for small batches on GPUs, where the launch costs more
## than either kernel's work and one build serves every width). A CPU runs work-items as loop
## iterations, so the
## GPUs' kernel (add.cl.mako: limbs over items, carries by a scan through local memory and
## barriers) pays for parallelism a CPU core does not have: 4096 sums of 2048 bits took 1.8 ms
## there against 0.3 here (2-core Xeon, PoCL, 2026-11-27). Intel's runtime vectorizes across
## items itself.
##
## OP "add" or "sub" (a + ~b + 1 over zero-extended operands, so limbs past both operands
## continue the two's complement), or "ctl": per instance, control byte flag[i] (add_n.CTL_*)
## makes r = ((a + ((b & keep) ^ flip)) + cin) ^ notr.
##
## Two forms (issue 43). With WIDTHS, (name, value) pairs of MA, MB, MR, TOP_MASK, FLAG_LIMB
## and FLAG_BIT, the widths are built in: MA, MB operand limbs, MR result limbs (the top one masked by TOP_MASK),
## FLAG_LIMB / FLAG_BIT where flag bit `bits` of the wide result lies (None: no flags), possibly
## past the result's limbs. Without, they are run-time arguments and so is the operation (OP
## "any": wid and op, blocks/arith.mako's add_how_defs): one build serves every width and
## operation, where a loop whose capacity grows a bit a step built a kernel per step, and
## gcdext one per operation. PoCL runs the run-time form's loops about 2x slower (2048 sums
## of 512 bits: 25-36 against 54-85 µs, 2-core EPYC, 2026-11-28), so add_n builds the widths
## in for batches whose run time matters (add_n.SERIAL_FIXED_LIMBS). The scalar arguments are the same in both forms.
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/arith.mako" import="add_how_defs, add_how_unpack"/>
${header()}
${add_how_defs()}
<%
    SUB = OP == "sub"
    CTL = OP in ("ctl", "any")
    def B(y):            # the second term: b, ~b, or b under the control byte
        return "((%s) & keep) ^ flip" % y if CTL else ("~(%s)" % y if SUB else y)
    NOTR = " ^ notr" if CTL else ""
    if WIDTHS:   # (name, value) pairs: a hashable template parameter
        W = dict(WIDTHS)
        MA, MB, MR, TOP_MASK = W["MA"], W["MB"], W["MR"], W["TOP_MASK"]
        FLAG_LIMB, FLAG_BIT = W["FLAG_LIMB"], W["FLAG_BIT"]
        L = MR if FLAG_LIMB is None else max(MR, FLAG_LIMB + 1)   # limbs the chain runs through
%>
__kernel void add_serial(__global const limb_t *a, ulong sa, __global const limb_t *b, ulong sb,
                         __global limb_t *out, __global uchar *flag, uint n, ulong wid,
                         ulong op)
{
    const uint i = get_global_id(0);
    if (i >= n) return;
    __global const limb_t *ra = a + (size_t)i * sa, *rb = b + (size_t)i * sb;
% if WIDTHS:
    __global limb_t *ro = out + (size_t)i * ${MR}u;
% else:
    ${add_how_unpack()}
    __global limb_t *ro = out + (size_t)i * mr;
% endif
% if CTL:
    const uint ctl = ${"(how & HOW_PER) ? flag[i] : (how & 15u)" if OP == "any" else "flag[i]"};
    const limb_t keep = (ctl & 8u) ? 0u : LIMB_MAX, flip = (ctl & 1u) ? LIMB_MAX : 0u;
    const limb_t notr = (ctl & 4u) ? LIMB_MAX : 0u;
    dlimb_t c = (ctl >> 1) & 1u;
% else:
    dlimb_t c = ${int(SUB)}ul;
% endif
% if WIDTHS:
## -- widths built in: every bound a constant ------------------------------------------------
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
% else:
## -- widths at run time ----------------------------------------------------------------------
    const uint L = (flag_limb == NO_FLAG || flag_limb < mr) ? mr : flag_limb + 1u;   // limbs the chain runs through
    const uint lo1 = min(min(ma, mb), L), hi1 = min(max(ma, mb), L);
<%def name="rspan(lo, hi, x, y)">
    for (uint j = ${lo}; j < ${hi}; ++j) {
        c += (dlimb_t)(${x}) + (dlimb_t)(limb_t)(${B(y)});
        if (j == flag_limb) flag[i] = (uchar)(((limb_t)c >> flag_bit) & 1u);
        if (j < mr) ro[j] = ((limb_t)c${NOTR}) & (j == mr - 1u ? top_mask : LIMB_MAX);
        c >>= 32;
    }
</%def>
    ${rspan("0u", "lo1", "ra[j]", "rb[j]")}
    if (ma > mb) {
        ${rspan("lo1", "hi1", "ra[j]", "0u")}
    } else {
        ${rspan("lo1", "hi1", "0u", "rb[j]")}
    }
    ${rspan("hi1", "L", "0u", "0u")}
% endif
}
