## Radix-2^30 digits for multiplication. A 30×30-bit product is below 2^60, so sixteen of them
## can be summed in a plain 64-bit register: the convolution then costs one wide multiply-add
## per product, where 32-bit limbs need extra carry handling (H100: ~1.6× faster). Operands
## are re-cut into digits when staged, and the result is re-cut into 32-bit limbs when stored.
<%namespace file="scan.mako" import="seg_scan"/>

<%def name="digit_defs()">
#define DIGIT_BITS 30
#define DIGIT_MASK 0x3FFFFFFFu
</%def>

## buf[s*ld + l], l in [0, ld): digit l - lo of the source (m_src limbs, d_src digits), zero
## outside, for the IPB instances of the group. Digit i is bits [30i, 30i+30).
<%def name="load_digits(buf, ld, lo, src, stride, m_src, d_src, inst0, n, tid, WG, IPB)">
    for (uint _f = ${tid}; _f < ${IPB}u * ${ld}u; _f += ${WG}u) {
        uint _s = _f / ${ld}u, _l = _f % ${ld}u, _v = 0;
        if (${inst0} + _s < ${n} && _l >= ${lo}u && _l - ${lo}u < ${d_src}u) {
            uint _bit = (_l - ${lo}u) * 30u, _j = _bit >> 5;
            __global const limb_t *_p = ${src} + (size_t)(${inst0} + _s) * ${stride};
            ulong _w = _p[_j];
            if (_j + 1u < ${m_src}u) _w |= (ulong)_p[_j + 1u] << 32;
            _v = (uint)(_w >> (_bit & 31u)) & DIGIT_MASK;
        }
        ${buf}[_f] = _v;
    }
</%def>

## Columns k0..k0+Q-1 of the digit product, as in conv.mako's conv_chunk, but each column is
## one 64-bit sum: after every Q×Q block the bits above 30 move to a 64-bit high sum, so the
## running sum stays below 2^30 + Q·2^60 < 2^64 (Q <= 16). r gets Q digits, spill the rest.
<%def name="conv_chunk30(k0, r, spill, LA, LB, MA, MB, Q)">
    {
        ulong _acc[${Q}], _hi[${Q}]; uint _w[${2 * Q - 1}];
% for q in range(Q):
        _acc[${q}] = 0; _hi[${q}] = 0;
% endfor
        const int _k0 = (int)(${k0});
        const int _ilo = max(0, _k0 - ${MB - 1});
        const int _ihi = min(${MA - 1}, _k0 + ${Q - 1});
        int _i0 = (_ilo / ${Q}) * ${Q};
% for s in range(2 * Q - 1):
        _w[${s}] = ${LB("_k0 - _i0 - %d" % (Q - 1 - s))};
% endfor
        for (; _i0 <= _ihi; _i0 += ${Q}) {
% for u in range(Q):
            {
                const ulong _a = ${LA("_i0 + %d" % u)};
  % for q in range(Q):
                _acc[${q}] += _a * _w[${q - u + Q - 1}];
  % endfor
            }
% endfor
% for q in range(Q):
            _hi[${q}] += _acc[${q}] >> 30; _acc[${q}] &= DIGIT_MASK;
% endfor
% for s in range(2 * Q - 2, Q - 1, -1):
            _w[${s}] = _w[${s - Q}];
% endfor
% for s in range(Q):
            _w[${s}] = ${LB("_k0 - _i0 - %d" % (2 * Q - 1 - s))};
% endfor
        }
        ulong _c = 0;
% for q in range(Q):
        { ulong _s = _acc[${q}] + _c; ${r}[${q}] = (uint)_s & DIGIT_MASK; _c = _hi[${q}] + (_s >> 30); }
% endfor
        ${spill} = _c;
    }
</%def>

## r += sin (< 2^60) in radix 2^30; summary = carry out | all-digits-full << 1.
<%def name="add_spill30(r, sin, Q, summary)">
    {
        uint _t = ${r}[0] + (uint)(${sin} & DIGIT_MASK);
        ${r}[0] = _t & DIGIT_MASK;
        _t = ${r}[1] + (uint)(${sin} >> 30) + (_t >> 30);
        ${r}[1] = _t & DIGIT_MASK;
        uint _c = _t >> 30;
% for j in range(2, Q):
        ${r}[${j}] += _c; _c = ${r}[${j}] >> 30; ${r}[${j}] &= DIGIT_MASK;
% endfor
        uint _ones = 1u;
% for j in range(Q):
        _ones &= (${r}[${j}] == DIGIT_MASK);
% endfor
        ${summary} = _c | (_ones << 1);
    }
</%def>

<%def name="apply_carry30(r, cin, Q)">
    {
        uint _c = ${cin};
% for j in range(Q):
        ${r}[${j}] += _c; _c = ${r}[${j}] >> 30; ${r}[${j}] &= DIGIT_MASK;
% endfor
    }
</%def>

## The digit product's chunks c1, c2 into registers, spills and carries resolved in the group.
<%def name="group_product30(r1, r2, c1, c2, LA, LB, MA, MB, Q, spl, sc, seg, C)">
    {
        ulong _sp1, _sp2;
        ${conv_chunk30("(%s) * %du" % (c1, Q), r1, "_sp1", LA, LB, MA, MB, Q)}
        ${conv_chunk30("(%s) * %du" % (c2, Q), r2, "_sp2", LA, LB, MA, MB, Q)}
        ${spl}[${seg} + (${c1})] = _sp1;
        ${spl}[${seg} + (${c2})] = _sp2;
        barrier(CLK_LOCAL_MEM_FENCE);
        ulong _in1 = (${c1}) > 0 ? ${spl}[${seg} + (${c1}) - 1u] : 0ul;
        ulong _in2 = (${c2}) > 0 ? ${spl}[${seg} + (${c2}) - 1u] : 0ul;
        uint _v1, _v2;
        ${add_spill30(r1, "_in1", Q, "_v1")}
        ${add_spill30(r2, "_in2", Q, "_v2")}
        ${seg_scan(sc, seg, [("_v1", c1), ("_v2", c2)], C, "CARRY_OP", "CARRY_ID")}
        uint _cin1 = (${c1}) > 0 ? (${sc}[${seg} + (${c1}) - 1u] & 1u) : 0u;
        uint _cin2 = (${c2}) > 0 ? (${sc}[${seg} + (${c2}) - 1u] & 1u) : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        ${apply_carry30(r1, "_cin1", Q)}
        ${apply_carry30(r2, "_cin2", Q)}
    }
</%def>

## Store digit chunks as 32-bit limbs: stage them in `D` (ld words per instance), then each
## work-item assembles whole limbs from up to three digits; stores are coalesced.
<%def name="store_limbs(parts, D, ld, CQ, dst, MR, TOP_MASK, inst0, n, s, tid, WG, IPB, Q)">
% for rr, cc in parts:
  % for j in range(Q):
    ${D}[${s} * ${ld}u + (${cc}) * ${Q}u + ${j}u] = ${rr}[${j}];
  % endfor
% endfor
    for (uint _f = ${tid}; _f < ${IPB}u * 2u; _f += ${WG}u)
        ${D}[(_f >> 1) * ${ld}u + ${CQ}u + (_f & 1u)] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint _f = ${tid}; _f < ${IPB}u * ${MR}u; _f += ${WG}u) {
        uint _s = _f / ${MR}u, _j = _f % ${MR}u;
        if (${inst0} + _s < ${n}) {
            uint _bit = _j * 32u, _i = _bit / 30u, _sh = _bit % 30u;
            __local const uint *_d = ${D} + _s * ${ld}u + _i;
            ulong _v = (ulong)_d[0] | ((ulong)_d[1] << 30) | ((ulong)_d[2] << 60);
            limb_t _l = (limb_t)(_v >> _sh);
% if TOP_MASK != 0xFFFFFFFF:
            if (_j == ${MR - 1}u) _l &= ${TOP_MASK}u;
% endif
            ${dst}[(size_t)(${inst0} + _s) * ${MR}u + _j] = _l;
        }
    }
</%def>
