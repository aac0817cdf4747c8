## Shared vocabulary of every clbig kernel: the limb type and the local-memory padding.
<%def name="header()">
typedef uint limb_t;
typedef ulong dlimb_t;
#define LIMB_BITS 32
#define LIMB_MAX 0xFFFFFFFFu
/* One spare word every 32 keeps work-items that read Q consecutive staged limbs
   (stride Q) on distinct local-memory banks for power-of-two Q. */
#define PAD(i) ((i) + ((i) >> 5))
#define PADDED(n) ((n) + ((n) >> 5) + 1)
</%def>
