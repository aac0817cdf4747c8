## Limb-vector operations on a work-item's private chunk of Q limbs (arrays indexed by
## compile-time constants only, so they live in registers).
##
## The carry operator packs a chunk's carry behaviour in two bits: bit 0 "generates" a carry
## out, bit 1 "propagates" an incoming one (the chunk is all ones). Combining a lower chunk lo
## with the next higher hi: g = g_hi | (p_hi & g_lo), p = p_lo & p_hi.
<%def name="carry_op_defs()">
#define CARRY_OP(lo, hi) (((hi) & 1u) | (((hi) >> 1) & (lo) & 1u) | ((hi) & (lo) & 2u))
#define CARRY_ID 2u
/* Comparison summaries: 0 equal, 1 less, 2 greater; the more significant non-equal wins. */
#define CMP_OP(lo, hi) ((hi) ? (hi) : (lo))
#define CMP_ID 0u
</%def>

## r = a + b (b complemented when `negate_b`), carry-in 0; `summary` gets the carry bits.
## a and b are expressions taking the limb index, r a private array.
<%def name="add_chunk(r, a, b, Q, summary, negate_b=False)">
    {
        limb_t _c = 0; uint _ones = 1u;
% for j in range(Q):
        {
            limb_t _x = ${a(j)}, _y = ${'~' if negate_b else ''}(${b(j)});
            limb_t _s = _x + _y; limb_t _c1 = _s < _x;
            _s += _c; _c1 |= _s < _c;
            ${r}[${j}] = _s; _c = _c1; _ones &= (_s == LIMB_MAX);
        }
% endfor
        ${summary} = (uint)_c | (_ones << 1);
    }
</%def>

## Summary of a chunk that already holds its value (no carry out of its own).
<%def name="ones_summary(r, Q, summary)">
    {
        uint _ones = 1u;
% for j in range(Q):
        _ones &= (${r}[${j}] == LIMB_MAX);
% endfor
        ${summary} = _ones << 1;
    }
</%def>

## r += cin (0 or 1), the carry rippling through the chunk.
<%def name="apply_carry(r, cin, Q)">
    {
        limb_t _c = ${cin};
% for j in range(Q):
        ${r}[${j}] += _c; _c &= (${r}[${j}] == 0);
% endfor
    }
</%def>

## Compare chunk a with chunk b: `summary` = 0 equal, 1 a<b, 2 a>b.
<%def name="cmp_chunk(a, b, Q, summary)">
    {
        uint _c = 0;
% for j in range(Q):
        { limb_t _x = ${a(j)}, _y = ${b(j)}; _c = (_x != _y) ? ((_x < _y) ? 1u : 2u) : _c; }
% endfor
        ${summary} = _c;
    }
</%def>

## Keep only `bits` bits of a value held as limbs: zero the limbs above, mask the top one.
<%def name="mask_top(r, Q, limb0, m_keep, top_mask)">
% for j in range(Q):
    if (${limb0} + ${j}u >= ${m_keep}u) ${r}[${j}] = 0;
    else if (${limb0} + ${j}u == ${m_keep}u - 1u) ${r}[${j}] &= ${top_mask}u;
% endfor
</%def>

## Three operands: r = a + b + ~c (a + b - c at a fixed width, with a carry-in of 1 at the
## bottom) makes carries of 0, 1 or 2 (3(B - 1) + 2 < 3B), so a chunk's carry behaviour is a
## map cin -> cout on {0, 1, 2}, packed two bits per entry (bits 2c, 2c+1: cout for cin = c).
## CARRY3_OP(lo, hi) is hi after lo (lo less significant); CARRY3_AT(f, c) = f(c).
<%def name="carry3_defs()">
#define CARRY3_AT(f, c) (((f) >> (2u * (c))) & 3u)
#define CARRY3_OP(lo, hi) (CARRY3_AT(hi, CARRY3_AT(lo, 0u)) | (CARRY3_AT(hi, CARRY3_AT(lo, 1u)) << 2) | (CARRY3_AT(hi, CARRY3_AT(lo, 2u)) << 4))
#define CARRY3_ID 0x24u
</%def>

## r = a + b + ~c on private chunks of Q limbs, carry-in 0; `summary` gets the chunk's carry
## map: with h the carry out of this sum, cin = k adds h + [r + k >= B^Q], which is h + 1 only
## for r all ones (k >= 1) or all ones but a low limb of B - 2 (k = 2), and never makes 3.
<%def name="add3_chunk(r, a, b, c, Q, summary)">
    {
        uint _h = 0u, _ones = 1u, _m1 = 1u;
% for j in range(Q):
        {
            const ulong _t = (ulong)${a}[${j}] + (ulong)${b}[${j}] + (ulong)(~${c}[${j}]) + (ulong)_h;
            ${r}[${j}] = (limb_t)_t; _h = (uint)(_t >> 32);
  % if j == 0:
            _ones = (${r}[0] == LIMB_MAX); _m1 = (${r}[0] == LIMB_MAX - 1u);
  % else:
            _ones &= (${r}[${j}] == LIMB_MAX); _m1 &= (${r}[${j}] == LIMB_MAX);
  % endif
        }
% endfor
        ${summary} = _h | ((_h + _ones) << 2) | ((_h + (_ones | _m1)) << 4);
    }
</%def>

## r += cin (0, 1 or 2), the carry rippling through the chunk.
<%def name="apply_carry3(r, cin, Q)">
    {
        const ulong _t = (ulong)${r}[0] + (ulong)(${cin});
        ${r}[0] = (limb_t)_t; limb_t _c = (limb_t)(_t >> 32);
% for j in range(1, Q):
        ${r}[${j}] += _c; _c &= (${r}[${j}] == 0);
% endfor
    }
</%def>

## The scalar arguments of the additions that take their operation at run time (add.cl.mako's
## map-scan modes, add_serial.cl.mako's run-time form), after n, packed in two words:
## wid = ma | mb << 32 (operand limbs) and op = how | bits << 8, the result taken mod 2^bits in
## ceil(bits / 32) limbs and how's low 4 bits the control byte (add_n.CTL_*; 0 adds, NOT_B|CIN
## subtracts), HOW_PER: each instance's control byte read from the flag buffer instead,
## HOW_FLAG: bit `bits` of the wide result written to the flag buffer (the carry of a + b, or 1
## where a - b borrowed). Two words, not the eight they stand for: pyopencl sets every argument
## at every launch, 0.7-0.8 us apiece on an H200's host (2026-11-29), which tiny sums pay.
<%def name="add_how_defs()">
#define HOW_PER 16u
#define HOW_FLAG 32u
#define NO_FLAG 0xFFFFFFFFu
</%def>
<%def name="add_how_unpack()">
    const uint ma = (uint)wid, mb = (uint)(wid >> 32), how = (uint)op & 0xFFu;
    const uint mr = (uint)(((op >> 8) + 31ul) >> 5), flag_bit = (uint)(op >> 8) & 31u;
    const limb_t top_mask = flag_bit ? (1u << flag_bit) - 1u : LIMB_MAX;
    const uint flag_limb = (how & HOW_FLAG) ? (uint)(op >> 13) : NO_FLAG;
</%def>
