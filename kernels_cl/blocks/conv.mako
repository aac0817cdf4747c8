## Classical multiplication by convolution (Oancea & Watt, section 3): a work-item computes Q
## consecutive result columns k0..k0+Q-1 entirely in registers.
##
## Products are taken in blocks of Q×Q: Q limbs of a (i0..i0+Q-1) against a window of 2Q-1
## limbs of b, so each block costs 2Q loads for Q² multiply-adds and every array index is a
## compile-time constant. Each column accumulates in a 32-bit low word and a 64-bit high word
## (64-bit low words, which spare the compiler register moves, measured the same on an H100):
## (ulong)x*y + lo never overflows, so one wide multiply-add and one 64-bit add per product.
##
## LA(i), LB(j) are callables giving C expressions for limb i of a and j of b; they must read
## zero for i >= MA (up to MA + Q - 1) and for j < 0 or j >= MB (from -3Q+2 to MB + 2Q - 3).
## Result: r[0..Q) the chunk's low limbs and `spill` (ulong) what overflows into the next chunk.
## square: LA and LB are the same operand (a·a). Each cross product a_i·a_j, i < j, is taken
## once and the column doubled afterwards, plus the squares a_i² on even columns: about half
## the multiply-adds. The triangle's edge cuts through at most two blocks per chunk; only
## those test each term.
<%def name="conv_chunk(k0, r, spill, LA, LB, MA, MB, Q, square=False)">
    {
        limb_t _lo[${Q}]; ulong _hi[${Q}]; limb_t _w[${2 * Q - 1}];
% for q in range(Q):
        _lo[${q}] = 0; _hi[${q}] = 0;
% endfor
        const int _k0 = (int)(${k0});
        const int _ilo = max(0, _k0 - ${MB - 1});
% if square:
        const int _ihi = min(${MA - 1}, (_k0 + ${Q - 2}) / 2);   /* the last i with 2i < k0 + Q - 1 */
% else:
        const int _ihi = min(${MA - 1}, _k0 + ${Q - 1});
% endif
        int _i0 = (_ilo / ${Q}) * ${Q};
% for s in range(2 * Q - 1):
        _w[${s}] = ${LB("_k0 - _i0 - %d" % (Q - 1 - s))};
% endfor
% if square:
        for (; _i0 <= _ihi && 2 * _i0 + ${2 * Q - 2} < _k0; _i0 += ${Q}) {
            ${_conv_block(LA, LB, Q, False)}
        }
        for (; _i0 <= _ihi; _i0 += ${Q}) {
            const int _d = 2 * _i0 - _k0;   /* term (u, q) is a_i·a_j with i < j iff _d + 2u < q */
            ${_conv_block(LA, LB, Q, True)}
        }
% for q in range(Q):
        {
            _hi[${q}] = (_hi[${q}] << 1) | ((limb_t)_lo[${q}] >> 31); _lo[${q}] = (limb_t)(_lo[${q}] << 1);
            if (((_k0 + ${q}) & 1) == 0) {
                const ulong _x = ${LA("(_k0 + %d) / 2" % q)};
                const ulong _sq = _x * _x, _t = (ulong)_lo[${q}] + (uint)_sq;
                _lo[${q}] = (limb_t)_t; _hi[${q}] += (_t >> 32) + (_sq >> 32);
            }
        }
% endfor
% else:
        for (; _i0 <= _ihi; _i0 += ${Q}) {
            ${_conv_block(LA, LB, Q, False)}
        }
% endif
        ulong _c = 0;
% for q in range(Q):
        { ulong _s = (ulong)_lo[${q}] + _c; ${r}[${q}] = (limb_t)_s; _c = (_s >> 32) + _hi[${q}]; }
% endfor
        ${spill} = _c;
    }
</%def>

## One Q×Q block of conv_chunk: Q limbs of a against the window _w, then the window slides.
<%def name="_conv_block(LA, LB, Q, masked)">
            ulong _a[${Q}];
% for u in range(Q):
            _a[${u}] = ${LA("_i0 + %d" % u)};
% endfor
  % for u in range(Q):
    % for q in range(Q):
      % if masked:
            { ulong _t = (_d < ${q - 2 * u} ? _a[${u}] : 0ul) * _w[${q - u + Q - 1}] + _lo[${q}]; _lo[${q}] = (limb_t)_t; _hi[${q}] += _t >> 32; }
      % else:
            { ulong _t = _a[${u}] * _w[${q - u + Q - 1}] + _lo[${q}]; _lo[${q}] = (limb_t)_t; _hi[${q}] += _t >> 32; }
      % endif
    % endfor
  % endfor
% for s in range(2 * Q - 2, Q - 1, -1):
            _w[${s}] = _w[${s - Q}];
% endfor
% for s in range(Q):
            _w[${s}] = ${LB("_k0 - _i0 - %d" % (2 * Q - 1 - s))};
% endfor
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
