## Schoolbook division with every width at run time: the first tier on CPUs (issue 43).
##
## div_basecase.cl.mako holds the window and the divisor in registers, unrolled over the
## divisor's limbs, and so builds per divisor width (PoCL compiled a 3072-bit one's first launch
## for 5 s); past its limits the Newton path builds several kernels more. Here one work-item
## runs one instance of Knuth's Algorithm D with loops whose bounds are arguments, in a scratch
## row of global memory per item (`per` words: the normalized dividend, max(mu, mv) + 1 limbs, then the
## normalized divisor, mv), so one build serves every width (mpn/div_basecase.divmod_loop;
## runtime.tiers decides when a width's own kernels take over).
##
## The arguments are div_basecase's, and the scratch: q = u // v (mu limbs), r = u % v (mv
## limbs); lens[i * sl] = bitlen(v_i). With K = ceil(len / 32) limbs and sh = 32 K - len, the
## divisor v << sh has its top bit set and the dividend u << sh has max(mu, mv) + 1 limbs; each
## quotient limb j, from the top, is estimated from the window's top two limbs (Knuth's qhat,
## corrected by the divisor's second limb: at most one too large), the window loses qhat v, and
## the rare negative window gets v back. st[2 i]: 0 (no slow path here), st[2 i + 1]: the
## add-backs. A zero divisor (len 0) leaves zeros (the caller raises, naming the index).
<%namespace file="blocks/common.mako" import="header"/>
${header()}

__kernel void div_loop(__global const uint *u, ulong su, uint mu, __global const uint *v,
                       ulong sv, uint mv, __global const uint *len, uint sl,
                       __global uint *qo, __global uint *ro, __global uint *st, uint n,
                       __global uint *scr, ulong per, uint first)
{
    const uint g = get_global_id(0), i = first + g;  /* rows [first, first + global size) */
    if (i >= n) return;
    __global const uint *up = u + (size_t)i * su, *vp = v + (size_t)i * sv;
    __global uint *qp = qo + (size_t)i * mu, *rp = ro + (size_t)i * mv;
    const uint nu = max(mu, mv) + 1u;
    __global uint *un = scr + (size_t)g * per, *vn = un + nu;
    const uint L = len[(size_t)i * sl];
    for (uint j = 0; j < mu; ++j) qp[j] = 0u;
    st[2 * (size_t)i] = 0u;
    st[2 * (size_t)i + 1u] = 0u;
    if (L == 0u) {                                   /* zero divisor: the caller raises */
        for (uint j = 0; j < mv; ++j) rp[j] = 0u;
        return;
    }
    const uint K = (L + 31u) >> 5, sh = 32u * K - L;
    /* limb j of p << sh, p of m limbs (zero past them) */
#define SHL(p, m, j) ((((j) < (m)) ? (p)[j] << sh : 0u) | \
                      ((sh && (j) > 0u && (j) - 1u < (m)) ? (p)[(j) - 1u] >> (32u - sh) : 0u))
    for (uint j = 0; j < K; ++j) vn[j] = SHL(vp, mv, j);
    for (uint j = 0; j < nu; ++j) un[j] = SHL(up, mu, j);
    const ulong d1 = vn[K - 1u];
    uint addbacks = 0;
    if (K == 1u) {                                   /* one limb: the long division itself */
        ulong rem = un[mu];                          /* < 2^sh <= d1: the quotient has mu limbs */
        for (uint j = mu; j-- > 0u; ) {
            const ulong cur = (rem << 32) | un[j];
            qp[j] = (uint)(cur / d1);
            rem = cur % d1;
        }
        un[0] = (uint)rem;
    } else if (mu >= K) {
        const ulong d2 = vn[K - 2u];
        for (uint j = mu - K + 1u; j-- > 0u; ) {
            const ulong num = ((ulong)un[j + K] << 32) | un[j + K - 1u];
            ulong qh = num / d1, rh = num % d1;
            while (qh > 0xFFFFFFFFul || qh * d2 > ((rh << 32) | un[j + K - 2u])) {
                --qh; rh += d1;
                if (rh > 0xFFFFFFFFul) break;
            }
            ulong carry = 0, borrow = 0;             /* window -= qh v */
            for (uint k = 0; k < K; ++k) {
                const ulong p = qh * vn[k] + carry;
                carry = p >> 32;
                const ulong t = (ulong)un[j + k] - (uint)p - borrow;
                un[j + k] = (uint)t; borrow = t >> 63;
            }
            const ulong t = (ulong)un[j + K] - carry - borrow;
            un[j + K] = (uint)t;
            if (t >> 63) {                           /* qh one too large: add v back */
                --qh; ++addbacks;
                ulong c = 0;
                for (uint k = 0; k < K; ++k) {
                    const ulong s = (ulong)un[j + k] + vn[k] + c;
                    un[j + k] = (uint)s; c = s >> 32;
                }
                un[j + K] += (uint)c;
            }
            qp[j] = (uint)qh;
        }
    }
    st[2 * (size_t)i + 1u] = addbacks;
    for (uint j = 0; j < mv; ++j)                    /* r = (window's low K limbs) >> sh */
        rp[j] = j < K ? (un[j] >> sh) | ((sh && j + 1u < K) ? un[j + 1u] << (32u - sh) : 0u) : 0u;
#undef SHL
}
