## Montgomery multiplication by CIOS (Koç, Acar & Kaliski, 1996: the reduction interleaved with
## the product, one row of each per limb of a) for residues of NP = C*Q limbs, R = B^NP.
##
## Layout: an instance spread over C work-items ("items") of Q limbs each, s its slot in the
## group and k its item; C = 1: one item holds the whole number and nothing is shared. The
## kernel declares (names fixed here):
##   xs[IPB*XLD]   a, the multiplier, staged row by row (its limbs a_i are broadcast)
##   C > 1: ex[2*IPB*C] each iteration's limb handed down, qx[2*IPB] the next quotient digit,
##          cyx[IPB*C] the top carries, sc[IPB*C] the carry scans
##   POW2:  lo[IPB*XLD] the limbs shifted out (the product's low half)
## and minv (-m^-1 mod B, item 0's). m's chunk is the operand MM (render parameter): "mm" a
## private array mm[Q], "@MV" the macro MV(j) reading the item's own local row, or "@MS" the
## macro MS(j) reading the one modulus the group shares (staged once per group); operands
## named "@F" are read as F(j) (see at()).
##
## One iteration i: (r, cy) += a_i*b + q_i*m, then the whole number moves down one limb: item k
## hands its lowest limb to item k-1 and its carry word cy (at position Q) stays with it as its
## new top limb, so carries never cross items inside the loop (a redundant form, normalised once
## after the loop by a carry scan). Item 0 already knows its next lowest limb (its limb 1, Q >= 2),
## so it computes q_{i+1} before the exchange: one barrier per iteration, the exchange slots
## double-buffered by the iteration's parity.
<%namespace file="arith.mako" import="add_chunk, apply_carry"/>
<%namespace file="scan.mako" import="seg_scan"/>
<%! from clbig.runtime.tmpl import at %>

<%def name="mont_defs()">
/* -m0^-1 mod 2^32 for odd m0: each Newton step doubles the correct low bits (3 -> 48). */
inline uint mont_minv(uint m0)
{
    uint x = m0;
    x *= 2u - m0 * x; x *= 2u - m0 * x; x *= 2u - m0 * x; x *= 2u - m0 * x;
    return 0u - x;
}
</%def>

## (r[0..Q), cy at limb Q) += a * b[0..Q): a a 32-bit expression, b a private array, cy a
## ulong. r + a*b < B^(Q+1), so the word added to cy never overflows 32 bits.
## CARRY == "ptx": two inline-PTX carry chains (the low halves, then the high halves one limb
## up), two multiply-adds per limb; otherwise 64-bit multiply-adds in OpenCL C.
<%def name="mont_row(r, cy, a, b, Q)">
% if CARRY == "ptx":
<%
    # operands: %0..%Q-1 the limbs of r, %Q the top word h, %Q+1 the low chain's carry, then a, b
    A, Bv = Q + 2, lambda j: Q + 3 + j
    ops = ["mad.lo.cc.u32 %%0, %%%d, %%%d, %%0;" % (A, Bv(0))]
    ops += ["madc.lo.cc.u32 %%%d, %%%d, %%%d, %%%d;" % (j, A, Bv(j), j) for j in range(1, Q)]
    ops += ["addc.u32 %%%d, %%%d, 0;" % (Q + 1, Q + 1)]
    if Q == 1:
        ops += ["mad.hi.u32 %%%d, %%%d, %%%d, %%%d;" % (Q, A, Bv(0), Q + 1)]
    else:
        ops += ["mad.hi.cc.u32 %%1, %%%d, %%%d, %%1;" % (A, Bv(0))]
        ops += ["madc.hi.cc.u32 %%%d, %%%d, %%%d, %%%d;" % (j + 1, A, Bv(j), j + 1) for j in range(1, Q - 1)]
        ops += ["madc.hi.u32 %%%d, %%%d, %%%d, %%%d;" % (Q, A, Bv(Q - 1), Q + 1)]
    outs = ", ".join(['"+r"(%s[%d])' % (r, j) for j in range(Q)] + ['"+r"(_h)', '"+r"(_c1)'])
    ins = ", ".join(['"r"(_a)'] + ['"r"(%s)' % at(b, j) for j in range(Q)])
%>
        {
            const uint _a = ${a};
            uint _h = 0, _c1 = 0;
            asm("${" ".join(ops)}" : ${outs} : ${ins});
            ${cy} += _h;
        }
% else:
        {
            const ulong _a = ${a};
            ulong _c = 0;
  % for j in range(Q):
            _c += _a * ${at(b, j)} + ${r}[${j}]; ${r}[${j}] = (uint)_c; _c >>= 32;
  % endfor
            ${cy} += _c;
        }
% endif
</%def>

## r moves down one limb; `top` (ulong: the limb handed down plus the carry word) fills limb
## Q-1, and what is above 32 bits of it stays in cy.
<%def name="_shift(r, cy, top, Q)">
        {
            const ulong _t = ${top};
% for j in range(Q - 1):
            ${r}[${j}] = ${r}[${j + 1}];
% endfor
            ${r}[${Q - 1}] = (uint)_t; ${cy} = _t >> 32;
        }
</%def>

## r = a * b / R mod m, fully reduced (< m) when a * b < m R (a < R and b < m, or a, b < m);
## with only a, b < R the result is below R. a: row s of xs (written by every item of the
## instance before this call, no barrier needed after it); b: private array; r: private array.
## POW2: r = a * b mod R instead (no reduction: the modulus is R itself).
## Every item of the group must call it the same number of times (barriers inside when C > 1).
<%def name="mont_mul(r, b)">
    {
        __local const uint *_xa = xs + s * ${XLD}u;
        ulong _cy = 0;
% for j in range(Q):
        ${r}[${j}] = 0;
% endfor
% if C == 1:
        for (uint _i = 0; _i < ${NP}u; ++_i) {
            ${mont_row(r, "_cy", "_xa[_i]", b, Q)}
  % if POW2:
            lo[s * ${XLD}u + _i] = ${r}[0];
  % else:
            { const uint _q = ${r}[0] * minv; ${mont_row(r, "_cy", "_q", MM, Q)} }
  % endif
            ${_shift(r, "_cy", "_cy", Q)}
        }
  % if POW2:
    % for j in range(Q):
        ${r}[${j}] = lo[s * ${XLD}u + ${j}u];
    % endfor
  % else:
        {   /* r + cy B^NP < 2m: subtract m once when it is not below m */
            uint _d[${Q}]; ulong _t; uint _c = 1;
    % for j in range(Q):
            _t = (ulong)${r}[${j}] + (uint)~${at(MM, j)} + _c; _d[${j}] = (uint)_t; _c = (uint)(_t >> 32);
    % endfor
            const uint _sub = (uint)(_cy != 0) | _c;
    % for j in range(Q):
            ${r}[${j}] = _sub ? _d[${j}] : ${r}[${j}];
    % endfor
        }
  % endif
% else:
        barrier(CLK_LOCAL_MEM_FENCE);   /* xs holds a */
  % if not POW2:
        if (k == 0) qx[${IPB}u + s] = _xa[0] * ${at(b, 0)} * minv;   /* q_0, in slot 1 */
        barrier(CLK_LOCAL_MEM_FENCE);
  % endif
        for (uint _i = 0; _i < ${NP}u; ++_i) {
            const uint _par = _i & 1u;
            ${mont_row(r, "_cy", "_xa[_i]", b, Q)}
  % if POW2:
            if (k == 0) lo[s * ${XLD}u + _i] = ${r}[0];
  % else:
            { const uint _q = qx[(_par ^ 1u) * ${IPB}u + s]; ${mont_row(r, "_cy", "_q", MM, Q)} }
            if (k == 0) {   /* q_{i+1} from this item's next lowest limb, before the exchange */
                const uint _an = _i + 1u < ${NP}u ? _xa[_i + 1u] : 0u;
                qx[_par * ${IPB}u + s] = (${r}[1] + _an * ${at(b, 0)}) * minv;
            }
  % endif
            ex[_par * ${IPB * C}u + s * ${C}u + k] = ${r}[0];
            barrier(CLK_LOCAL_MEM_FENCE);
            const uint _nb = k + 1u < ${C}u ? ex[_par * ${IPB * C}u + s * ${C}u + k + 1u] : 0u;
            ${_shift(r, "_cy", "(ulong)_nb + _cy", Q)}
        }
  % if POW2:
    % for j in range(Q):
        ${r}[${j}] = lo[s * ${XLD}u + k * ${Q}u + ${j}u];
    % endfor
  % else:
        ${_normalize_reduce(r)}
  % endif
% endif
    }
</%def>

## After the loop (C > 1): the value is sum_k B^(kQ) (r_k + cy_k B^Q) < 2m. Item k takes the
## carry word of item k-1, a carry scan resolves the rest (the top item's carry word and the
## scan's carry out make the bit at B^NP); then r - m and a borrow scan decide the subtraction.
<%def name="_normalize_reduce(r)">
        {
            const uint _seg = s * ${C}u;
            cyx[_seg + k] = (uint)_cy;
            barrier(CLK_LOCAL_MEM_FENCE);
            const uint _cin = k > 0 ? cyx[_seg + k - 1u] : 0u;
            uint _v;
            ${add_chunk(r, lambda j: "%s[%d]" % (r, j), lambda j: "_cin" if j == 0 else "0u", Q, "_v")}
            ${seg_scan("sc", "_seg", [("_v", "k")], C, "CARRY_OP", "CARRY_ID")}
            const uint _cin2 = k > 0 ? (sc[_seg + k - 1u] & 1u) : 0u;
            const uint _ovf = cyx[_seg + ${C - 1}u] + (sc[_seg + ${C - 1}u] & 1u);
            barrier(CLK_LOCAL_MEM_FENCE);   /* sc is free again */
            ${apply_carry(r, "_cin2", Q)}
            uint _d[${Q}], _w;
            ${add_chunk("_d", lambda j: "%s[%d]" % (r, j), lambda j: at(MM, j), Q, "_w", negate_b=True)}
            if (k == 0) _w = CARRY_OP(1u, _w);   /* r + ~m + 1 = r - m */
            ${seg_scan("sc", "_seg", [("_w", "k")], C, "CARRY_OP", "CARRY_ID")}
            const uint _cin3 = k > 0 ? (sc[_seg + k - 1u] & 1u) : 1u;
            const uint _sub = _ovf | (sc[_seg + ${C - 1}u] & 1u);   /* carry out: r >= m */
            ${apply_carry("_d", "_cin3", Q)}
  % for j in range(Q):
            ${r}[${j}] = _sub ? _d[${j}] : ${r}[${j}];
  % endfor
        }
</%def>

## One row of a product written out limb by limb (fully unrolled, so every register index is a
## constant): (win[0..L), top) = win + a * bs[0..L), with top a fresh word (written, not read).
## win + a*bs < B^(L+1), so top takes the whole carry. win, bs: lists of C expressions.
<%def name="_urow(win, top, a, bs)">
<% L = len(win) %>
% if CARRY == "ptx":
<%
    # operands: %0..%L-1 win, %L top, %L+1 the low chain's carry, %L+2 a, then bs
    A, Bv = L + 2, lambda j: L + 3 + j
    ops = ["mad.lo.cc.u32 %%0, %%%d, %%%d, %%0;" % (A, Bv(0))]
    ops += ["madc.lo.cc.u32 %%%d, %%%d, %%%d, %%%d;" % (j, A, Bv(j), j) for j in range(1, L)]
    ops += ["addc.u32 %%%d, %%%d, 0;" % (L + 1, L + 1)]
    if L == 1:
        ops += ["mad.hi.u32 %%%d, %%%d, %%%d, %%%d;" % (L, A, Bv(0), L + 1)]
    else:
        ops += ["mad.hi.cc.u32 %%1, %%%d, %%%d, %%1;" % (A, Bv(0))]
        ops += ["madc.hi.cc.u32 %%%d, %%%d, %%%d, %%%d;" % (j + 1, A, Bv(j), j + 1) for j in range(1, L - 1)]
        ops += ["madc.hi.u32 %%%d, %%%d, %%%d, %%%d;" % (L, A, Bv(L - 1), L + 1)]
    outs = ", ".join(['"+r"(%s)' % w for w in win] + ['"=r"(%s)' % top, '"+r"(_c1)'])
    ins = ", ".join(['"r"(_a)'] + ['"r"(%s)' % x for x in bs])
%>
        {
            const uint _a = ${a};
            uint _c1 = 0;
            asm("${" ".join(ops)}" : ${outs} : ${ins});
        }
% else:
        {
            const ulong _a = ${a};
            ulong _c = 0;
  % for w, x in zip(win, bs):
            _c += _a * ${x} + ${w}; ${w} = (uint)_c; _c >>= 32;
  % endfor
            ${top} = (uint)_c;
        }
% endif
</%def>

## r = r^2 / R mod m for r < m, one item holding the whole number (C == 1, not POW2), with
## each cross product computed once (Menezes et al., Handbook of Applied Cryptography 14.16:
## NP^2/2 digit products where a product takes NP^2) and the reduction apart (SOS, Koç et al.
## 1996): NP rows of q*m; 3/4 of the product's multiply-adds in all.
##   1. cross sums t = sum_{i<j} r_i r_j B^(i+j): row i adds r_i * r[i+1..NP) at limb 2i+1;
##      after row i limbs 2i and 2i+1 receive nothing more, so they are doubled and take
##      r_i^2 at once (a running carry word c) and r_i is dead: t and the live r stay at
##      2NP + 1 words.
##   2. u = (t_lo + Q m) / R for the low NP limbs t_lo: CIOS's reduction rows alone (r holds
##      the window, shifted down a limb per row); u <= m since t_lo, Q < R.
##   3. r^2 / R = t_hi + u < 2m (t_hi = floor(r^2 / R) < m): one conditional subtraction.
<%def name="mont_sqr(r)">
    {
        uint ${", ".join("_t%d" % j for j in range(2 * NP))};
% for j in list(range(NP)) + [2 * NP - 1]:
        _t${j} = 0u;       /* limbs no cross row writes first (the others: row tops) */
% endfor
        uint _c = 0;
% for i in range(NP):
  % if i < NP - 1:
        ${_urow(["_t%d" % j for j in range(2 * i + 1, i + NP)], "_t%d" % (i + NP), "%s[%d]" % (r, i), ["%s[%d]" % (r, j) for j in range(i + 1, NP)])}
  % endif
        {   /* limbs 2i, 2i+1 final: doubled, plus r_i^2 and the carry */
            const ulong _v = (ulong)${r}[${i}] * ${r}[${i}];
            const ulong _lo = ((ulong)_t${2 * i} << 1) + (uint)_v + _c;
            _t${2 * i} = (uint)_lo;
            const ulong _hi = ((ulong)_t${2 * i + 1} << 1) + (_v >> 32) + (_lo >> 32);
            _t${2 * i + 1} = (uint)_hi; _c = (uint)(_hi >> 32);
        }
% endfor
        ## the reduction as CIOS's rolled loop (a short loop body, the rows shifted down
        ## through r): unrolled like the cross rows it ran at half the speed (H200: 1.71 M/s
        ## at 1024 bits against 3.48 for CIOS squares), the instruction cache overflowing
% for j in range(NP):
        ${r}[${j}] = _t${j};
% endfor
        ulong _cy = 0;
        for (uint _i = 0; _i < ${NP}u; ++_i) {
            { const uint _q = ${r}[0] * minv; ${mont_row(r, "_cy", "_q", MM, NP)} }
            ${_shift(r, "_cy", "_cy", NP)}
        }
        {   /* t_hi + u < 2m: subtract m once when it is not below m */
            ulong _s = 0;
% for j in range(NP):
            _s += (ulong)_t${NP + j} + ${r}[${j}]; ${r}[${j}] = (uint)_s; _s >>= 32;
% endfor
            uint _d[${NP}]; ulong _w; uint _b = 1;
% for j in range(NP):
            _w = (ulong)${r}[${j}] + (uint)~${at(MM, j)} + _b; _d[${j}] = (uint)_w; _b = (uint)(_w >> 32);
% endfor
            const uint _sub = (uint)_s | _b | (uint)(_cy != 0);
% for j in range(NP):
            ${r}[${j}] = _sub ? _d[${j}] : ${r}[${j}];
% endfor
        }
    }
</%def>
