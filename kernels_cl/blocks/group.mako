## Whole-group operations on chunks held in registers, composed from the smaller blocks. Each
## work-item owns one or two chunks of its instance's segment; `pos` expressions give their
## chunk positions 0..C-1. These are what fused kernels (and later division) chain together,
## so intermediates never leave the chip.
<%namespace file="scan.mako" import="seg_scan"/>
<%namespace file="arith.mako" import="add_chunk, apply_carry"/>
<%namespace file="conv.mako" import="conv_pair, add_spill"/>

## dst = x + y (mod B^(C*Q)) for each (dst, x, y, pos) in `parts`; x, y: limb-index -> expr.
<%def name="group_add(parts, Q, sc, seg, C, cin0='0u')">
    {
% for k, (dst, x, y, pos) in enumerate(parts):
        uint _v${k};
        ${add_chunk(dst, x, y, Q, "_v%d" % k)}
        if ((${pos}) == 0) _v${k} = CARRY_OP(${cin0}, _v${k});
% endfor
        ${seg_scan(sc, seg, [("_v%d" % k, pos) for k, (dst, x, y, pos) in enumerate(parts)], C, "CARRY_OP", "CARRY_ID")}
% for k, (dst, x, y, pos) in enumerate(parts):
        uint _cin${k} = ((${pos}) > 0) ? (${sc}[${seg} + (${pos}) - 1u] & 1u) : ${cin0};
% endfor
        barrier(CLK_LOCAL_MEM_FENCE);  /* sc is free again for the next operation */
% for k, (dst, x, y, pos) in enumerate(parts):
        ${apply_carry(dst, "_cin%d" % k, Q)}
% endfor
    }
</%def>

## (r1, r2) = chunks c1 and c2 of the product of LA and LB (columns beyond the chunks carry
## nowhere: the result is the product mod B^(C*Q)). spl (ulong) and sc hold C slots per segment.
## square: LA and LB read the same operand (conv_pair then does about half the work).
<%def name="group_product(r1, r2, c1, c2, LA, LB, MA, MB, Q, spl, sc, seg, C, square=False)">
    {
        ulong _sp1, _sp2;
        ${conv_pair("(%s) * %du" % (c1, Q), "(%s) * %du" % (c2, Q), r1, r2, "_sp1", "_sp2", LA, LB, MA, MB, Q, square, C * Q)}
        ${spl}[${seg} + (${c1})] = _sp1;
        ${spl}[${seg} + (${c2})] = _sp2;
        barrier(CLK_LOCAL_MEM_FENCE);
        ulong _in1 = (${c1}) > 0 ? ${spl}[${seg} + (${c1}) - 1u] : 0ul;
        ulong _in2 = (${c2}) > 0 ? ${spl}[${seg} + (${c2}) - 1u] : 0ul;
        uint _v1, _v2;
        ${add_spill(r1, "_in1", Q, "_v1")}
        ${add_spill(r2, "_in2", Q, "_v2")}
        ${seg_scan(sc, seg, [("_v1", c1), ("_v2", c2)], C, "CARRY_OP", "CARRY_ID")}
        uint _cin1 = (${c1}) > 0 ? (${sc}[${seg} + (${c1}) - 1u] & 1u) : 0u;
        uint _cin2 = (${c2}) > 0 ? (${sc}[${seg} + (${c2}) - 1u] & 1u) : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);  /* spl and sc are free again */
        ${apply_carry(r1, "_cin1", Q)}
        ${apply_carry(r2, "_cin2", Q)}
    }
</%def>
