## Column sums of a product, for kernels that spread one product over many work-groups by its
## result columns (mul_cols.cl.mako): a work-item owns one column and one slice of the terms,
## so its loop is short and its neighbours read neighbouring limbs of b (coalesced) and the
## same limb of a (one broadcast load).

## acc + top·2^64 = the sum of a[i]·b[k − i] over i in [i0, i1) ∩ [k − MB + 1, k] ∩ [0, MA);
## top counts the 64-bit accumulator's wraps (fewer than the terms, so it never overflows).
## a, b: pointers (their limbs past MA, MB are never read); k, i0, i1: int expressions.
<%def name="column_sum(acc, top, a, b, k, i0, i1, MA, MB)">
    {
        const int _k = (int)(${k});
        const int _lo = max((int)(${i0}), _k - ${MB - 1});
        const int _hi = min((int)(${i1}), min(_k + 1, ${MA}));
        for (int _i = _lo; _i < _hi; ++_i) {
            const ulong _p = (ulong)${a}[_i] * (ulong)${b}[_k - _i];
            ${acc} += _p; ${top} += (${acc} < _p);
        }
    }
</%def>

## res[0..COLS) = the limbs of sum_j (lo[j] + hi[j]·2^64)·B^j, res[COLS], res[COLS + 1] what
## carries out of the last column (below 2^(33 + log2 terms): two limbs). One work-item walks
## the columns: COLS steps of a 64-bit carry, against the product's loop of many more.
## lo, hi, res: local arrays; the caller puts the barriers around it.
<%def name="resolve_columns(lo, hi, res, COLS)">
    {
        ulong _carry = 0;
        for (uint _j = 0; _j < ${COLS}u; ++_j) {
            const ulong _l = ${lo}[_j] + _carry;
            const uint _h = ${hi}[_j] + (uint)(_l < _carry);
            ${res}[_j] = (limb_t)_l;
            _carry = (_l >> 32) | ((ulong)_h << 32);
        }
        ${res}[${COLS}] = (limb_t)_carry;
        ${res}[${COLS + 1}] = (limb_t)(_carry >> 32);
    }
</%def>
