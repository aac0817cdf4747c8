## Modular products and powers with every width at run time: the first tier on CPUs (issue 43).
##
## mont.cl.mako and mont52.cl.mako write the modulus's width into the kernel and unroll every
## row over it; that is what makes them fast, and what makes a CPU runtime take seconds to
## compile each (PoCL: up to 10 s for the first launch of a 4096-bit kernel). Here one
## work-item runs one instance with plain loops over limbs whose counts are arguments, so one
## build serves every width (mpn/mont_loop.py; runtime.tiers decides when a width's own
## kernel takes over). Montgomery multiplication by CIOS over 32-bit limbs (Koç, Acar &
## Kaliski, 1996), R = B^nm: m odd with nm limbs, r2 = R^2 mod m; the residues, the Montgomery
## accumulator and the window tables of each instance live in a scratch row of global memory
## (a CPU's caches hold it): t (nm + 2 words), y, x, m, r2 (nm each), then the tables.
##
## mulmod: out = mont(mont(a, r2), b) = a b mod m, for a, b < R.
## powmod: a fixed window of w bits (run time too): T[0] = R mod m, T[1] = a R mod m, T[d] =
##   T[d-1] T[1]; per window w squares and a product by T[digit] (none for a zero digit: items
##   share no barrier), from the exponent's first non-zero window; then mont(x, 1) < m.
## multipow (K bases, a build parameter): K tables, one chain of squares (Straus), per window w
##   squares and up to K products; nwin windows of every exponent (missing limbs are zero).
## KERNEL picks one of the three per program. Each kernel runs rows [first, first + global
## size) of n, one scratch row per work-item.
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/mont.mako" import="mont_defs"/>
${header()}
${mont_defs()}

## Each item's scratch is one contiguous row of `per` words, its vectors one after another (an
## item's loops then walk consecutive words; interleaving the items' words, word j of item g
## at [j L + g], ran 1.2-17x slower on PoCL and up to 2.8x on Intel's runtime, 2-core EPYC,
## 2026-11-30: neither vectorized these loops across items, and each step touched a new cache
## line). The helpers take word strides L, 1 here.
#define AT(p, j) (p)[(size_t)(j) * L]

/* r = x y / R mod m, below m when x y < m R (below 2m before the last step, which subtracts m
   once where needed). t: nm + 2 words of scratch; r may be x or y (written after the loop). */
void ml_mul(__global uint *r, __global const uint *x, __global const uint *y,
            __global const uint *m, const uint nm, const uint minv, __global uint *t,
            const ulong L)
{
    for (uint j = 0; j < nm + 2u; ++j) AT(t, j) = 0u;
    for (uint i = 0; i < nm; ++i) {
        const ulong xi = AT(x, i);
        ulong c = 0;
        for (uint j = 0; j < nm; ++j) {          /* t += x_i y: (2^32-1)^2 + 2 (2^32-1) < 2^64 */
            c += xi * AT(y, j) + AT(t, j);
            AT(t, j) = (uint)c; c >>= 32;
        }
        c += AT(t, nm); AT(t, nm) = (uint)c; AT(t, nm + 1u) = (uint)(c >> 32);
        const ulong q = (uint)(AT(t, 0) * minv); /* t + q m = 0 mod B: then t moves down a limb */
        c = (q * AT(m, 0) + AT(t, 0)) >> 32;
        for (uint j = 1; j < nm; ++j) {
            c += q * AT(m, j) + AT(t, j);
            AT(t, j - 1u) = (uint)c; c >>= 32;
        }
        c += AT(t, nm); AT(t, nm - 1u) = (uint)c;
        AT(t, nm) = AT(t, nm + 1u) + (uint)(c >> 32);
    }
    ulong br = 0;                                /* t - m: its borrow says whether t >= m */
    for (uint j = 0; j < nm; ++j) br = ((ulong)AT(t, j) - AT(m, j) - br) >> 63;
    const int sub = AT(t, nm) >= (uint)br;
    br = 0;
    for (uint j = 0; j < nm; ++j) {
        const ulong d = (ulong)AT(t, j) - (sub ? AT(m, j) : 0u) - br;
        AT(r, j) = (uint)d; br = d >> 63;
    }
}

/* Row i of an operand of `ml` limbs (stride s; 0 broadcasts) into nm words, zero-extended. */
void ml_load(__global uint *dst, __global const uint *src, const ulong s, const uint ml,
             const uint i, const uint nm, const ulong L)
{
    __global const uint *p = src + (size_t)i * s;
    for (uint j = 0; j < nm; ++j) AT(dst, j) = j < ml ? p[j] : 0u;
}

void ml_one(__global uint *dst, const uint nm, const ulong L)
{
    for (uint j = 0; j < nm; ++j) AT(dst, j) = j == 0u;
}

void ml_copy(__global uint *dst, __global const uint *src, const uint nm, const ulong L)
{
    for (uint j = 0; j < nm; ++j) AT(dst, j) = AT(src, j);
}

/* Bits [k w, k w + w) of an exponent of me limbs (zero past them). */
uint ml_digit(__global const uint *e, const uint me, const uint k, const uint w)
{
    const uint bit = k * w, l = bit >> 5, sh = bit & 31u;
    if (l >= me) return 0u;
    ulong v = e[l];
    if (l + 1u < me) v |= (ulong)e[l + 1u] << 32;
    return (uint)(v >> sh) & ((1u << w) - 1u);
}

/* T[0] = R mod m, T[1] = b R mod m (b already in T[1]'s rows), T[d] = T[d-1] T[1]; the
   entries nm L words apart. */
void ml_table(__global uint *T, __global const uint *r2, __global const uint *m, const uint nm,
              const uint minv, const uint w, __global uint *t, __global uint *y, const ulong L)
{
    const size_t E = (size_t)nm * L;
    ml_mul(T + E, T + E, r2, m, nm, minv, t, L);
    ml_one(y, nm, L);
    ml_mul(T, r2, y, m, nm, minv, t, L);
    for (uint d = 2; d < (1u << w); ++d)
        ml_mul(T + d * E, T + (d - 1u) * E, T + E, m, nm, minv, t, L);
}

<%def name="rows()">
    const uint g = get_global_id(0), i = first + g;
    const ulong L = 1;
    if (i >= n) return;
    /* item g's vectors: t (nm + 2 words), y, x, m, r2 (nm each), then the tables */
    __global uint *t = scr + (size_t)g * per, *y = t + (nm + 2u) * L, *x = y + nm * L;
    __global uint *mi = x + nm * L, *r2i = mi + nm * L, *T = r2i + nm * L;
    ml_load(mi, m, sm, nm, i, nm, L);
    ml_load(r2i, r2, sr2, nm, i, nm, L);
    const uint minv = mont_minv(mi[0]);
</%def>

<%def name="store()">
    for (uint j = 0; j < nm; ++j) out[(size_t)i * nm + j] = AT(x, j);
</%def>

## Out of the Montgomery form: x / R mod m, below m (x < m... any x < R: x 1 < m R).
<%def name="leave()">
    ml_one(y, nm, L);
    ml_mul(x, x, y, mi, nm, minv, t, L);
    ${store()}
</%def>

% if KERNEL == "mulmod":
__kernel void mulmod_loop(__global const uint *a, ulong sa, uint ma, __global const uint *b,
                          ulong sb, uint mb, __global const uint *m, ulong sm, uint nm,
                          __global const uint *r2, ulong sr2, __global uint *out,
                          __global uint *scr, ulong per, uint first, uint n)
{
    ${rows()}
    ml_load(y, a, sa, ma, i, nm, L);
    ml_mul(x, y, r2i, mi, nm, minv, t, L);       /* a R mod m */
    ml_load(y, b, sb, mb, i, nm, L);
    ml_mul(x, x, y, mi, nm, minv, t, L);
    ${store()}
}
% elif KERNEL == "powmod":
__kernel void powmod_loop(__global const uint *a, ulong sa, uint ma, __global const uint *e,
                          ulong se, uint me, __global const uint *m, ulong sm, uint nm,
                          __global const uint *r2, ulong sr2, __global uint *out,
                          __global uint *scr, ulong per, uint w, uint first, uint n)
{
    ${rows()}
    const size_t E = (size_t)nm * L;
    __global const uint *ei = e + (size_t)i * se;
    ml_load(T + E, a, sa, ma, i, nm, L);
    ml_table(T, r2i, mi, nm, minv, w, t, y, L);
    ml_copy(x, T, nm, L);                        /* R mod m: 1, where e = 0 */
    int started = 0;
    for (uint k = (32u * me + w - 1u) / w; k-- > 0u; ) {
        if (started)
            for (uint s = 0; s < w; ++s) ml_mul(x, x, x, mi, nm, minv, t, L);
        const uint d = ml_digit(ei, me, k, w);
        if (d == 0u) continue;
        if (started) ml_mul(x, x, T + d * E, mi, nm, minv, t, L);
        else ml_copy(x, T + d * E, nm, L);
        started = 1;
    }
    ${leave()}
}
% else:
<% assert KERNEL == "multipow" and K >= 1 %>
__kernel void multipow_loop(
% for k in range(K):
                            __global const uint *b${k}, ulong sb${k}, uint mb${k},
                            __global const uint *e${k}, ulong se${k}, uint me${k},
% endfor
                            __global const uint *m, ulong sm, uint nm, __global const uint *r2,
                            ulong sr2, __global uint *out, __global uint *scr, ulong per,
                            uint w, uint nwin, uint first, uint n)
{
    ${rows()}
    const size_t E = (size_t)nm * L, TW = E << w;    /* an entry's words, a table's */
    __global const uint *ep[${K}];
    uint me[${K}];
% for k in range(K):
    ep[${k}] = e${k} + (size_t)i * se${k}; me[${k}] = me${k};
    ml_load(T + ${k}u * TW + E, b${k}, sb${k}, mb${k}, i, nm, L);
    ml_table(T + ${k}u * TW, r2i, mi, nm, minv, w, t, y, L);
% endfor
    ml_copy(x, T, nm, L);
    int started = 0;
    for (uint k = nwin; k-- > 0u; ) {
        if (started)
            for (uint s = 0; s < w; ++s) ml_mul(x, x, x, mi, nm, minv, t, L);
        for (uint q = 0; q < ${K}u; ++q) {
            const uint d = ml_digit(ep[q], me[q], k, w);
            if (d == 0u) continue;
            if (started) ml_mul(x, x, T + q * TW + d * E, mi, nm, minv, t, L);
            else ml_copy(x, T + q * TW + d * E, nm, L);
            started = 1;
        }
    }
    ${leave()}
}
% endif
