## Re-cutting between CPython's base-2^30 digits and 32-bit limbs (see clbig/pyint.py), and the
## exact bit length of each row, so a result's int can be allocated at its final size. One
## work-item per output word in the re-cuts: reads and writes are coalesced at every size.
<%namespace file="blocks/common.mako" import="header"/>
${header()}
#define DIGIT_BITS 30
#define DIGIT_MASK 0x3FFFFFFFu

% if KERNEL == "digits_to_limbs":
/* Row `inst` has nd digits from p; limb j is bits [32j, 32j+32), which start in digit 32j/30
   and reach at most two digits further. */
inline limb_t limb_of(__global const uint *p, ulong nd, ulong j)
{
    const ulong bit = j * 32u, i = bit / DIGIT_BITS;
    ulong w = 0;
    if (i < nd) w = p[i];
    if (i + 1 < nd) w |= (ulong)p[i + 1] << DIGIT_BITS;
    if (i + 2 < nd) w |= (ulong)p[i + 2] << (2 * DIGIT_BITS);
    return (limb_t)(w >> (uint)(bit % DIGIT_BITS));
}

/* n rows of m limbs whose digits lie in d one after the other; after them, at d + meta, each
   row's digit count (n words) and its start in d (n low words, then n high words): one upload.
   Widths at run time (issue 43: one build for every width): `gpr` groups per row, so the row
   and the limb come from the group's index, one division of uniform values per item. */
__kernel void digits_to_limbs(__global const uint *d, ulong meta, __global limb_t *r, uint n,
                              uint m, uint gpr)
{
    const uint g = get_group_id(0), inst = g / gpr;
    const uint j = (g - inst * gpr) * (uint)get_local_size(0) + (uint)get_local_id(0);
    if (inst >= n || j >= m) return;
    __global const uint *mt = d + meta;
    const ulong off = (ulong)mt[n + inst] | ((ulong)mt[2 * n + inst] << 32);
    r[(size_t)inst * m + j] = limb_of(d + off, mt[inst], j);
}

/* One row of m limbs from nd digits at d (a single int: its count needs no upload). */
__kernel void digit_row_to_limbs(__global const uint *d, ulong nd, __global limb_t *r, uint m)
{
    const size_t gid = get_global_id(0);
    if (gid < m) r[gid] = limb_of(d, nd, gid);
}
% elif KERNEL == "limbs_to_digits":
/* Row inst of r gets the nd low digits of row inst of a (m limbs, stride sa); widths at run
   time as above. */
__kernel void limbs_to_digits(__global const limb_t *a, ulong sa, __global uint *r, uint n,
                              uint m, uint nd, uint gpr)
{
    const uint g = get_group_id(0), inst = g / gpr;
    const uint k = (g - inst * gpr) * (uint)get_local_size(0) + (uint)get_local_id(0);
    if (inst >= n || k >= nd) return;
    const ulong bit = (ulong)k * DIGIT_BITS, j = bit >> 5;
    __global const limb_t *p = a + inst * sa;
    ulong w = 0;
    if (j < m) w = p[j];
    if (j + 1 < m) w |= (ulong)p[j + 1] << 32;
    r[(size_t)inst * nd + k] = (uint)(w >> (uint)(bit & 31u)) & DIGIT_MASK;
}
% else:
/* One work-group per row: rounds of ${WG} limbs from the top down until one is non-zero.
   A product or a sum stops in the first round; a row of zeros reads every limb once. */
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void bit_length(__global const limb_t *a, ulong sa, __global ulong *bits, uint m)
{
    const uint t = get_local_id(0);
    const size_t inst = get_group_id(0);
    __global const limb_t *p = a + inst * sa;
    __local int top;
    for (long base = m; base > 0; base -= ${WG}) {
        if (t == 0) top = -1;
        barrier(CLK_LOCAL_MEM_FENCE);
        const long j = base - 1 - (long)t;
        if (j >= 0 && p[j]) atomic_max(&top, (int)j);
        barrier(CLK_LOCAL_MEM_FENCE);
        const int found = top;
        barrier(CLK_LOCAL_MEM_FENCE);       /* everyone has read `top` before it is reset */
        if (found >= 0) {
            if (t == 0) bits[inst] = (ulong)found * 32u + 32u - clz(p[found]);
            return;
        }
    }
    if (t == 0) bits[inst] = 0;
}
% endif
