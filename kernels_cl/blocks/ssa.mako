## Arithmetic modulo F = 2^K + 1 (K = 32P) on rows of P+1 limbs, for Schönhage–Strassen.
##
## A residue is canonical: value in [0, 2^K], limb P (the "top") is 1 only for 2^K = -1.
## A butterfly output is a signed sum of terms, each a residue times a power of two: word j
## gets d_j with |d_j| < 2^33, so carries stay within -2..2. A work-item folds its chunk of Q
## words into a *carry function* (carry in -> carry out, five entries of 3 bits): composing
## them across the row by one scan gives every chunk its carry-in for any carry-in at word 0.
## The wrap-around of 2^K = -1 needs exactly that: with C the whole row's carry function, the
## reduced value is v - h*F for the one h with C(-h) = h (then h = floor(v / F) and the words
## computed with carry-in -h are the result); when no h qualifies, v = 2^K (mod F).
## (The scan itself is written here, not taken from scan.mako: its segment length, the
## items per butterfly, is a kernel argument, so one build serves every ring size.)
<%def name="ssa_defs()">
/* floor(s / 2^32) for |s| < 2^35, without signed right shifts (implementation-defined). */
#define FLOOR32(s) ((long)(((ulong)((s) + (8L << 32))) >> 32) - 8L)
/* Two carry functions per uint (bits 0..14 and 16..30): entry c+2 holds f(c)+2, c in -2..2. */
#define CF_ID 0x46884688u
#define CF_AT(f, off, c) ((int)(((f) >> ((off) + 3 * ((c) + 2))) & 7u) - 2)

/* Both halves: first lo, then hi (lo covers the less significant words). */
uint cf_compose(uint lo, uint hi)
{
    uint o = 0u;
    for (uint i = 0u; i < 15u; i += 3u) {
        o |= ((hi >> (3u * ((lo >> i) & 7u))) & 7u) << i;
        o |= ((hi >> (16u + 3u * ((lo >> (16u + i)) & 7u))) & 7u) << (16u + i);
    }
    return o;
}

/* The h of the reduction (see above) from a row's carry function, 3 when none exists. */
int cf_fixed(uint f, uint off)
{
    int h = 3;
    for (int c = -2; c <= 2; c++)
        if (CF_AT(f, off, -c) == c) h = c;
    return h;
}

/* The low `bits` bits of x in reverse order. */
uint brev(uint x, uint bits)
{
    if (bits == 0u) return 0u;
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
    x = (x >> 16) | (x << 16);
    return x >> (32u - bits);
}
</%def>

## acc[q] += sg * (residue staged at S[rb..rb+P]), the top folded in as -top at word 0.
<%def name="add_plain(acc, S, rb, sg, Q)">
% for q in range(Q):
    if (j0 + ${q}u < P) ${acc}[${q}] += (${sg}) * (long)${S}[PAD(${rb} + j0 + ${q}u)];
% endfor
    if (t == 0u) ${acc}[0] -= (${sg}) * (long)${S}[PAD(${rb} + P)];
</%def>

## acc[q] += sg * (residue at S[rb..rb+P]) * 2^e mod F, 0 <= e = 32*ew + eb < K: the words
## rotated up by e bits, those that wrap past 2^K negated (2^K = -1).
<%def name="add_shifted(acc, S, rb, sg, ew, eb, Q)">
    {
        /* _x[u] = source word j0 - ew - 1 + u; those below 0 wrap (+P) and count negated */
        uint _x[${Q + 1}];
        const int _neg = (int)${ew} + 1 - (int)j0;   /* _x[u] is negated for u < _neg */
% for u in range(Q + 1):
        {
            const int _i = ${u} - _neg;
            _x[${u}] = _i < (int)P ? ${S}[PAD(${rb} + (uint)(_i >= 0 ? _i : _i + (int)P))] : 0u;
        }
% endfor
        const long _top = (long)(${S}[PAD(${rb} + P)] << ${eb});
% for q in range(Q):
        {   /* word j0+q: the low bits of _x[q+1] shifted up, the high bits of _x[q] down */
            const long _hp = (long)(_x[${q + 1}] << ${eb}), _lp = (long)((_x[${q}] >> 1) >> (31u - ${eb}));
            ${acc}[${q}] += (${sg}) * ((${q + 1} < _neg ? -_hp : _hp) + (${q} < _neg ? -_lp : _lp)
                                      - (j0 + ${q}u == ${ew} ? _top : 0l));
        }
% endfor
    }
</%def>

## Words of one output with carry-in 0 into r[], and the chunk's carry function into f (at
## bit offset 0; the caller shifts). d(q) is the C expression of word j0+q's signed sum.
<%def name="chunk_func(d, r, f, Q)">
    {
        long _c = 0; uint _z = 1u, _m = 1u;
% for q in range(Q):
        ${r}[${q}] = 0u;
        if (j0 + ${q}u < P) {
            const long _s = ${d(q)} + _c;
            ${r}[${q}] = (uint)_s; _c = FLOOR32(_s);
  % if q > 0:
            _z &= (${r}[${q}] == 0u); _m &= (${r}[${q}] == LIMB_MAX);
  % endif
        }
% endfor
        /* the chunk's remainder below 2^32Q is < 2 (_lo) or within 2 of the top (_hi)? */
        const int _lo = _z ? (int)min(${r}[0], 2u) : 2, _hi = _m ? (int)min(~${r}[0], 2u) : 2;
        ${f} = 0u;
        for (int _ci = -2; _ci <= 2; _ci++)
            ${f} |= (uint)((int)_c - (_lo < -_ci) + (_hi < _ci) + 2) << (3 * (_ci + 2));
    }
</%def>

## r[] += cin (-2..2), rippling within the chunk's valid words.
<%def name="apply_carry(r, cin, Q)">
    {
        long _c = ${cin};
% for q in range(Q):
        if (j0 + ${q}u < P) { const long _s = (long)${r}[${q}] + _c; ${r}[${q}] = (uint)_s; _c = FLOOR32(_s); }
% endfor
    }
</%def>

## The two outputs x + y, x - y of a butterfly from the signed word sums in X, Y (registers):
## r1, r2 (canonical low words) and top1, top2 (1 for 2^K). The chunks of one butterfly are
## the `seg` consecutive items from tid - t; all items of the group must take part (barriers),
## idle ones as butterflies of their own (t = 0, seg = 1).
<%def name="finish(Q)">
    uint r1[${Q}], r2[${Q}], top1, top2;
    {
        uint f1, f2;
        ${chunk_func(lambda q: "(X[%d] + Y[%d])" % (q, q), "r1", "f1", Q)}
        ${chunk_func(lambda q: "(X[%d] - Y[%d])" % (q, q), "r2", "f2", Q)}
        /* Hillis–Steele scan of the carry functions over the butterfly's ipi chunks */
        uint v = f1 | (f2 << 16);
        sc[tid] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint d = 1u; d < ipi; d <<= 1) {
            const uint o = (t >= d) ? sc[tid - d] : CF_ID;
            barrier(CLK_LOCAL_MEM_FENCE);
            v = cf_compose(o, v);
            sc[tid] = v;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        const uint prev = (t > 0u) ? sc[tid - 1u] : CF_ID, tot = sc[tid - t + seg - 1u];
% for r, off, top in (("r1", 0, "top1"), ("r2", 16, "top2")):
        {
            const int hh = cf_fixed(tot, ${off}u);
            ${top} = (hh == 3);
            if (${top}) {   /* the value is 2^K: zero words, top 1 */
  % for q in range(Q):
                ${r}[${q}] = 0u;
  % endfor
            } else {
                ${apply_carry(r, "CF_AT(prev, %du, -hh)" % off, Q)}
            }
        }
% endfor
    }
</%def>

## Row chunk r[] and its top into S at rb (the caller holds a barrier before others read).
<%def name="put_row(S, rb, r, top, Q)">
% for q in range(Q):
    if (j0 + ${q}u < P) ${S}[PAD(${rb} + j0 + ${q}u)] = ${r}[${q}];
% endfor
    if (t == 0u) ${S}[PAD(${rb} + P)] = ${top};
</%def>
