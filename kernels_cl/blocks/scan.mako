## Segmented inclusive scan across the work-items of a group, in local memory.
## Each work-item owns one or more positions of its segment (instance); `own` lists pairs
## (value variable, position expression). Positions run 0..C-1 within each segment, and the
## segment's slots start at sc[seg]. On return each value variable holds the inclusive scan
## at its position. The operator is a C macro OP(lo, hi) (lo = less significant), identity ID.
## Hillis–Steele: ceil(log2 C) steps, barriers between reads and writes; no lock-step assumed.
<%def name="seg_scan(sc, seg, own, C, OP, ID)">
% for v, p in own:
    ${sc}[${seg} + (${p})] = ${v};
% endfor
    barrier(CLK_LOCAL_MEM_FENCE);
% if C > 1:
    for (uint d = 1; d < ${C}u; d <<= 1) {
    % for k, (v, p) in enumerate(own):
        uint o${k} = ((${p}) >= d) ? ${sc}[${seg} + (${p}) - d] : ${ID};
    % endfor
        barrier(CLK_LOCAL_MEM_FENCE);
    % for k, (v, p) in enumerate(own):
        ${v} = ${OP}(o${k}, ${v});
        ${sc}[${seg} + (${p})] = ${v};
    % endfor
        barrier(CLK_LOCAL_MEM_FENCE);
    }
% endif
</%def>

## Exclusive value at position p after seg_scan (the inclusive value one position below).
<%def name="seg_prev(sc, seg, p, ID)">(((${p}) > 0) ? ${sc}[${seg} + (${p}) - 1] : ${ID})</%def>
