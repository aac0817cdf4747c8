## Classical multiplication by convolution (Oancea & Watt, section 3): a work-item computes two
## chunks of Q consecutive result columns (a load-balanced pair: one low, its mirror high)
## entirely in registers.
##
## Products are taken in blocks of Q×Q: Q limbs of a (i0..i0+Q-1) against a window of 2Q-1
## limbs of b, so each block costs 2Q loads for Q² multiply-adds and every array index is a
## compile-time constant. Both chunks go through ONE loop of blocks: a pair's block counts add
## up to about the same total for every work-item, but each chunk's alone does not, and two
## loops ran each warp for its longest lane twice (3/4 of the lanes busy at 2^11 bits, 2/3 at
## 2^13).
##
## Accumulators: each column in a 32-bit low word and a 64-bit high word ((ulong)x*y + lo never
## overflows: one wide multiply-add and one 64-bit add per product). CARRY ("ptx" on NVIDIA's
## OpenCL, which takes inline PTX; "c" the same in OpenCL C, for tests): the chunk as one
## (Q+2)-limb number instead, each row a_u·window added by two carry chains: two multiply-adds
## per product and none of the register moves ptxas puts around 64-bit accumulators.
##
## LA(i, o), LB(j, o) are callables giving C expressions for limb i + o of a and j + o of b (i
## an expression, o a constant offset, default 0: a base pointer plus constant offsets lets the
## compiler fold each block's addresses into its loads); they must read zero for limbs of a
## >= MA (up to MA + Q - 1) and of b < 0 or >= MB (from -3Q+2 to MB + 2Q - 3).
## Result: r1, r2 the chunks' low limbs, sp1, sp2 (ulong) what overflows into the next chunk.
## square: LA and LB are the same operand (a·a). Each cross product a_i·a_j, i < j, is taken
## once and the columns doubled afterwards, plus the squares a_i² on even columns: about half
## the multiply-adds. Chunks may lie above the product (a result wider than it: 31-bit values
## squared mod 2^1000), where a_(k/2) would be past a's zero margin: given the chunks' span
## `cols` (C·Q; None: unknown), only chunks below column 2·MA add squares when some would
## read past MA + Q - 1. The triangle's edge cuts through at most two blocks per chunk, the only
## ones that test each term. Likewise a product's block on the diagonal (i0 = k0) has only its
## Q(Q+1)/2 terms with j >= 0 (a tenth of the work at 2^11 bits) and takes a shorter body. The
## walk takes the first chunk's edge blocks first and the second's last, so the lanes of a
## warp run the same body at the same time.
<%def name="conv_pair(k1, k2, r1, r2, sp1, sp2, LA, LB, MA, MB, Q, square=False, cols=None)">
    {
        limb_t _w[${2 * Q - 1}];
% if CARRY:
        limb_t _acc[${Q + 2}], _cb;
% else:
        limb_t _lo[${Q}]; ulong _hi[${Q}];
% endif
        ${_acc_zero(Q)}
        const int _k1 = (int)(${k1}), _k2 = (int)(${k2});
        int _k0 = _k1, _i0 = 0, _iend = -1, _ph = -1;
        /* phases: 0 and 1 the first chunk (its edge blocks: a square's masked ones or a
           product's diagonal one; then the rest), 2 the second; each sets _i0 and _iend, and
           the walk skips phases with no block */
        for (;;) {
            if (_i0 > _iend) {
                do {
                    ++_ph;
                    if (_ph == 2) {
                        ${_acc_finish(LA, r1, sp1, Q, square, _above(MA, Q, cols))}
                        ${_acc_zero(Q)}
                        _k0 = _k2;
                    }
                    if (_ph == 3) break;
                    const int _first = (max(0, _k0 - ${MB - 1}) / ${Q}) * ${Q};
% if square:
                    const int _ihi = min(${MA - 1}, (_k0 + ${Q - 2}) / 2);   /* the last i with 2i < k0 + Q - 1 */
                    /* the first block whose terms need the i < j test: 2·i0 + 2Q - 2 >= k0 */
                    const int _need = max(0, _k0 - ${2 * Q - 3}) / 2;
                    const int _edge = _first + (max(0, _need - _first) + ${Q - 1}) / ${Q} * ${Q};
% else:
                    const int _ihi = min(${MA - 1}, _k0 + ${Q - 1});
                    const int _edge = _k0;   /* the block on the diagonal: b's limbs below 0 */
% endif
                    _i0 = _ph == 0 ? _edge : _first;
                    _iend = _ph == 1 ? min(_ihi, _edge - 1) : _ihi;
                } while (_i0 > _iend);
                if (_ph == 3) break;
% for s in range(2 * Q - 1):
                _w[${s}] = ${LB("_k0 - _i0", s - Q + 1)};
% endfor
            }
% if square:
            if (2 * _i0 + ${2 * Q - 2} >= _k0) {
                const int _d = 2 * _i0 - _k0;   /* term (u, q) is a_i·a_j with i < j iff _d + 2u < q */
                ${_block(LA, LB, Q, "masked")}
            } else {
                ${_block(LA, LB, Q, "full")}
            }
% else:
            if (_i0 == _k0) {
                ${_block(LA, LB, Q, "triangle")}
            } else {
                ${_block(LA, LB, Q, "full")}
            }
% endif
            _i0 += ${Q};
        }
        ${_acc_finish(LA, r2, sp2, Q, square, _above(MA, Q, cols))}
    }
</%def>

## The condition (C text) keeping a square's diagonal reads within a's margin: empty where the
## chunks end below column 2(MA + Q), whose a_(k/2) read zero anyway. A chunk at k0 < 2·MA
## reads a_i for i < MA + Q/2 only, so one test per chunk suffices (and none is emitted where
## the chunks stop near the product, as in every full square and low half).
<%!
    def _above(MA, Q, cols):
        return "" if cols is not None and (cols - 1) // 2 <= MA + Q - 1 else " && _k0 < %d" % (2 * MA)
%>
<%def name="_acc_zero(Q)">
% if CARRY:
        _cb = 0;
  % for q in range(Q + 2):
        _acc[${q}] = 0;
  % endfor
% else:
  % for q in range(Q):
        _lo[${q}] = 0; _hi[${q}] = 0;
  % endfor
% endif
</%def>

## The chunk at _k0 from its accumulators: r its Q limbs, spill the rest. A square's sums of
## cross products are doubled and the diagonal squares a_i² (column 2i) added first.
<%def name="_acc_finish(LA, r, spill, Q, square, guard)">
% if CARRY:
        _acc[${Q}] += _cb; _acc[${Q + 1}] += _acc[${Q}] < _cb;
  % if square:
  % for j in range(Q + 1, 0, -1):
        _acc[${j}] = (_acc[${j}] << 1) | (_acc[${j - 1}] >> 31);
  % endfor
        _acc[0] <<= 1;
  % for q in range(Q):
        if (((_k0 + ${q}) & 1) == 0${guard}) {
            const ulong _x = ${LA("(_k0 + %d) / 2" % q)};
            const ulong _sq = _x * _x;
            ulong _t = (ulong)_acc[${q}] + (uint)_sq; _acc[${q}] = (limb_t)_t;
            _t = (_t >> 32) + _acc[${q + 1}] + (_sq >> 32); _acc[${q + 1}] = (limb_t)_t;
            limb_t _c = (limb_t)(_t >> 32);
    % for j in range(q + 2, Q + 2):
            _acc[${j}] += _c; _c = _c && _acc[${j}] == 0;
    % endfor
        }
  % endfor
  % endif
  % for q in range(Q):
        ${r}[${q}] = _acc[${q}];
  % endfor
        ${spill} = _acc[${Q}] | ((ulong)_acc[${Q + 1}] << 32);
% else:
  % if square:
  % for q in range(Q):
        {
            _hi[${q}] = (_hi[${q}] << 1) | ((limb_t)_lo[${q}] >> 31); _lo[${q}] = (limb_t)(_lo[${q}] << 1);
            if (((_k0 + ${q}) & 1) == 0${guard}) {
                const ulong _x = ${LA("(_k0 + %d) / 2" % q)};
                const ulong _sq = _x * _x, _t = (ulong)_lo[${q}] + (uint)_sq;
                _lo[${q}] = (limb_t)_t; _hi[${q}] += (_t >> 32) + (_sq >> 32);
            }
        }
  % endfor
  % endif
        {
            ulong _c = 0;
  % for q in range(Q):
            { ulong _s = (ulong)_lo[${q}] + _c; ${r}[${q}] = (limb_t)_s; _c = (_s >> 32) + _hi[${q}]; }
  % endfor
            ${spill} = _c;
        }
% endif
</%def>

## One Q×Q block at (_k0, _i0): Q limbs of a against the window _w, then the window slides to
## _i0 + Q. kind: "full"; "triangle" (i0 = k0: only terms u <= q); "masked" (a square's edge,
## terms tested at run time against _d).
<%def name="_block(LA, LB, Q, kind)">
% if CARRY:
            limb_t _a[${Q}];
% else:
            ulong _a[${Q}];
% endif
% for u in range(Q):
            _a[${u}] = ${LA("_i0", u)};
% endfor
% for u in range(Q):
<% q0 = u if kind == "triangle" else 0 %>\
  % if CARRY:
            {
    % for q in range(q0, Q):
      % if kind == "masked":
                const limb_t _v${q} = _d < ${q - 2 * u} ? _w[${q - u + Q - 1}] : 0u;
      % else:
                const limb_t _v${q} = _w[${q - u + Q - 1}];
      % endif
    % endfor
                ${_row(Q, u, q0)}
            }
  % else:
    % for q in range(q0, Q):
      % if kind == "masked":
            { ulong _t = (_d < ${q - 2 * u} ? _a[${u}] : 0ul) * _w[${q - u + Q - 1}] + _lo[${q}]; _lo[${q}] = (limb_t)_t; _hi[${q}] += _t >> 32; }
      % else:
            { ulong _t = _a[${u}] * _w[${q - u + Q - 1}] + _lo[${q}]; _lo[${q}] = (limb_t)_t; _hi[${q}] += _t >> 32; }
      % endif
    % endfor
  % endif
% endfor
% for s in range(2 * Q - 2, Q - 1, -1):
            _w[${s}] = _w[${s - Q}];
% endfor
% for s in range(Q):
            _w[${s}] = ${LB("_k0 - _i0", s - 2 * Q + 1)};
% endfor
</%def>

## _acc[q0..Q+2) += _a[u] · (_v{q0}.._v{Q-1}) at limbs q0..: two carry chains, one of the
## low halves and the top high half (limbs q0..Q, carry into Q+1), one of the other high halves
## (limbs q0+1..Q-1, carry counted in _cb, which the chunk's finish adds at limb Q). "ptx": one
## inline-PTX statement, so the carry flag never lives across statements. "c": the same chains
## in OpenCL C (tests run it on any device to check the accumulator's bookkeeping).
<%def name="_row(Q, u, q0)">
% if CARRY == "ptx":
<%
    A, V = Q + 3, lambda q: Q + 4 + q   # operands: %0..%Q+1 the limbs, %Q+2 _cb, then a, v
    mad = lambda first, half: ("mad" if first else "madc") + "." + half + ".cc.u32"
    ops = ["%s %%%d, %%%d, %%%d, %%%d;" % (mad(q == q0, "lo"), q, A, V(q), q) for q in range(q0, Q)]
    ops += ["madc.hi.cc.u32 %%%d, %%%d, %%%d, %%%d;" % (Q, A, V(Q - 1), Q)]
    ops += ["addc.u32 %%%d, %%%d, 0;" % (Q + 1, Q + 1)]
    if q0 < Q - 1:
        ops += ["%s %%%d, %%%d, %%%d, %%%d;" % (mad(q == q0, "hi"), q + 1, A, V(q), q + 1) for q in range(q0, Q - 1)]
        ops += ["addc.u32 %%%d, %%%d, 0;" % (Q + 2, Q + 2)]
    outs = ", ".join(['"+r"(_acc[%d])' % j for j in range(Q + 2)] + ['"+r"(_cb)'])
    ins = ", ".join(['"r"(_a[%d])' % u] + ['"r"(_v%d)' % q if q >= q0 else '"r"(0u)' for q in range(Q)])
%>
                asm("${" ".join(ops)}" : ${outs} : ${ins});
% else:
                ulong _c = 0;
  % for q in range(q0, Q):
                _c += (ulong)_acc[${q}] + _a[${u}] * _v${q}; _acc[${q}] = (limb_t)_c; _c >>= 32;
  % endfor
                _c += (ulong)_acc[${Q}] + mul_hi(_a[${u}], _v${Q - 1}); _acc[${Q}] = (limb_t)_c;
                _acc[${Q + 1}] += (limb_t)(_c >> 32);
                _c = 0;
  % for q in range(q0, Q - 1):
                _c += (ulong)_acc[${q + 1}] + mul_hi(_a[${u}], _v${q}); _acc[${q + 1}] = (limb_t)_c; _c >>= 32;
  % endfor
                _cb += (limb_t)_c;
% endif
</%def>

## r += sin (the spill of the chunk below, < 2^64; Q >= 2), giving the chunk's carry summary.
<%def name="add_spill(r, sin, Q, summary)">
    {
        ulong _t = (ulong)${r}[0] + (uint)(${sin});
        ${r}[0] = (limb_t)_t;
        _t = (ulong)${r}[1] + (${sin} >> 32) + (_t >> 32);
        ${r}[1] = (limb_t)_t;
        limb_t _c = (limb_t)(_t >> 32);
% for j in range(2, Q):
        ${r}[${j}] += _c; _c &= (${r}[${j}] == 0);
% endfor
        uint _ones = 1u;
% for j in range(Q):
        _ones &= (${r}[${j}] == LIMB_MAX);
% endfor
        ${summary} = (uint)_c | (_ones << 1);
    }
</%def>
