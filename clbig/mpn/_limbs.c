/* clbig.mpn._limbs: Python ints <-> little-endian 32-bit limb matrices at C speed.
 *
 * Why digits: int.to_bytes / int.from_bytes (and CPython's _PyLong_AsByteArray under them,
 * and PyLong_AsNativeBytes of 3.13) re-pack an int one byte at a time. Here the base-2^SHIFT
 * digits of each int (SHIFT = PyLong_SHIFT, 30 on every common build) are re-cut into 32-bit
 * limbs through a 64-bit bit accumulator, and results are written straight into the digits
 * of new ints. The int layout is CPython's non-limited API (cpython/longintrepr.h), which
 * changed in 3.12 (lv_tag) and has a public export API from 3.14 (PEP 757) that this file
 * does not use yet: other versions refuse to build (#error), and clbig then stays on its
 * pure-Python path. clbig/mpn/convert.py also checks this module against int.to_bytes on import.
 *
 * Functions (clbig/mpn/convert.py wraps them; see there for the Python-level contract):
 *   scan(seq, check[, mpz]) -> (max_bits, neg, conv)
 *   scan_ints(seq, negs, start, stop[, out, m, bits[, threads, tasks[, base]]]) -> (max_bits, negatives,
 *                                        bad): scan's common case; with out, packing as it scans
 *   pack(seq, out, m[, start, stop[, base[, threads, tasks]]]) -> None, fills rows [start, stop)
 *                                        of out (n*m uint32, or whole rows from row base;
 *                                        C-contiguous, writable)
 *   unpack(buf, n, m, neg, make[, start, stop[, defer[, raw[, threads, tasks]]]]) -> list of the
 *                                        ints of rows [start, stop)
 *   unpack_fill(list, buf, n, m, neg[, start, stop]) -> None: the digits unpack(..., defer) left
 *   move_into(dst, at, src) -> None: src's items into dst[at:] (None there), src left empty
 *   zip_lists(lists) -> list of tuples: the rows of a tuple of lists, the lists left empty
 *   threads() -> whether threads > 1 runs on native threads here
 *   unpack_mpz(buf, n, m, neg[, start, stop[, threads, tasks]]) -> list of gmpy2 mpz, where
 *                                        mpz_direct() (see "gmpy2's mpz made on the threads")
 *
 * Threads: the re-cutting needs no interpreter. scan_ints, pack and unpack(..., raw) split a
 * large batch into ranges run side by side by a pool of native threads (run_tasks, below):
 * a list is read with the caller's interpreter lock held throughout, a tuple with it released
 * (it holds a reference to every int, and ints never change, so no other thread can free or
 * alter what is read). unpack otherwise allocates the new ints with the lock held, fills their
 * digits without it (no other thread can see them yet), and applies make with it again; with
 * defer it leaves the filling to unpack_fill, which another thread may run meanwhile, its check
 * of the ints and their fill both without the lock.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if PY_VERSION_HEX < 0x03090000 || PY_VERSION_HEX >= 0x030E0000
#error "clbig.mpn._limbs reads CPython 3.9-3.13's int layout; clbig uses its pure-Python conversion here"
#endif
#if PY_VERSION_HEX < 0x030B0000
#include <longintrepr.h>      /* 3.11+: Python.h includes cpython/longintrepr.h */
#endif
#if PyLong_SHIFT > 32 || PyLong_SHIFT < 8
#error "unexpected PyLong_SHIFT"
#endif

#define LIMB_BITS 32
#define DMASK ((uint64_t)PyLong_MASK)

/* -- the int layout --------------------------------------------------------------------- */

/* Digit count of v's magnitude and its sign (v a PyLong, subclasses included). */
static inline Py_ssize_t
digit_count(PyObject *v, int *neg)
{
#if PY_VERSION_HEX >= 0x030C0000
    uintptr_t tag = ((PyLongObject *)v)->long_value.lv_tag;
    *neg = (tag & 3) == 2;              /* sign bits: 0 positive, 1 zero, 2 negative */
    return (Py_ssize_t)(tag >> 3);      /* bit 2: 3.13's immortality flag */
#else
    Py_ssize_t s = Py_SIZE(v);
    *neg = s < 0;
    return s < 0 ? -s : s;
#endif
}

static inline digit *
digits_of(PyObject *v)
{
#if PY_VERSION_HEX >= 0x030C0000
    return ((PyLongObject *)v)->long_value.ob_digit;
#else
    return ((PyLongObject *)v)->ob_digit;
#endif
}

/* Bytes before an int's digits, as _PyLong_New counts them. */
#if PY_VERSION_HEX >= 0x030C0000
#define DIGITS_OFFSET offsetof(PyLongObject, long_value.ob_digit)
#else
#define DIGITS_OFFSET offsetof(PyLongObject, ob_digit)
#endif

/* x's digit count nd and its sign, in the layout of this version. */
static inline void
set_digit_count(PyLongObject *x, Py_ssize_t nd, int neg)
{
#if PY_VERSION_HEX >= 0x030C0000
    x->long_value.lv_tag = ((uintptr_t)nd << 3) | (neg ? 2u : 0u);
#else
    ((PyVarObject *)x)->ob_size = neg ? -nd : nd;
#endif
}

/* A new int of exactly nd >= 3 digits (its value above 2^64: never a cached small int) with
 * the given sign; the caller fills every digit, the top one non-zero. */
static PyObject *
new_int(Py_ssize_t nd, int neg)
{
    PyLongObject *x = _PyLong_New(nd);
    if (x != NULL)
        set_digit_count(x, nd, neg);
    return (PyObject *)x;
}

/* -- ints made without the interpreter lock ---------------------------------------------
 *
 * Making each int under the lock (_PyLong_New) is most of limbs-to-ints' cost, and it cannot
 * be shared among threads: pymalloc needs the lock, and the first touch of its new arenas'
 * pages (page faults, microseconds each) happens inside it. Where the object allocator is
 * CPython's own with no hook on it (pymalloc, or malloc under PYTHONMALLOC=malloc), an int may
 * instead be made in memory from the raw allocator (PyMem_RawMalloc's), which needs no lock:
 * pymalloc's free hands a block outside its arenas to PyMem_RawFree, and under
 * PYTHONMALLOC=malloc PyObject_Free is PyMem_RawFree. Debug hooks (PYTHONMALLOC=debug, -X dev)
 * and tracemalloc set a context on the allocators, an embedder's allocator is not pymalloc,
 * 3.13's PYTHONMALLOC=mimalloc frees with mi_free: each keeps the locked path. So do debug
 * builds (reference tracing) and free-threaded ones (mimalloc frees by its own heaps).
 *
 * The raw allocator checked is called directly, not through PyMem_RawMalloc: a hook that
 * tracemalloc.start() puts on it meanwhile would take the lock in each call, and CPython
 * (gh-128679, fixed in 3.13.2) crashes where tracemalloc.stop() runs while such a call waits
 * for it. Such an int is freed through the hooks, which pass a block they never traced on to
 * the allocator under them. 3.13's reference tracer, told of each object made by
 * _Py_NewReference, is told of these by tell_tracer.
 * The price: sys.getallocatedblocks() counts one block too few for each such int freed. */
#if defined(Py_TRACE_REFS) || defined(Py_REF_DEBUG) || defined(Py_GIL_DISABLED)
#define RAW_INTS 0
#else
#define RAW_INTS 1
PyAPI_FUNC(int) _PyObject_DebugMallocStats(FILE *out);  /* exported; internal from 3.11 */
#ifdef _WIN32
#define NULL_DEVICE "NUL"
#else
#define NULL_DEVICE "/dev/null"
#endif
static void *pymalloc_seen = NULL;     /* the object allocator last asked about, and */
static int pymalloc_is = 0;            /* whether it was pymalloc */
#endif

/* Whether ints may be made by raw_int now (the interpreter lock held); where they may, *raw is
 * the raw allocator that raw_int is to call. */
static int
raw_ints_allowed(PyMemAllocatorEx *raw)
{
#if RAW_INTS
    PyMemAllocatorEx obj, mem;
    PyMem_GetAllocator(PYMEM_DOMAIN_OBJ, &obj);
    PyMem_GetAllocator(PYMEM_DOMAIN_MEM, &mem);
    PyMem_GetAllocator(PYMEM_DOMAIN_RAW, raw);
    if (obj.ctx != NULL || raw->ctx != NULL)     /* debug hooks, tracemalloc, an embedder's */
        return 0;
    if (obj.free == raw->free)                   /* PYTHONMALLOC=malloc */
        return 1;
    /* pymalloc serves PyMem_Malloc too; 3.13's mimalloc has other functions for it, and its
     * statistics report success as pymalloc's do */
    if (mem.malloc != obj.malloc || mem.free != obj.free)
        return 0;
    if ((void *)obj.malloc != pymalloc_seen) {   /* asked once per allocator: it walks arenas */
        FILE *f = fopen(NULL_DEVICE, "w");
        pymalloc_is = f != NULL && _PyObject_DebugMallocStats(f);   /* 0 unless pymalloc */
        if (f != NULL)
            fclose(f);
        pymalloc_seen = (void *)obj.malloc;
    }
    return pymalloc_is;
#else
    (void)raw;
    return 0;
#endif
}

static inline int
bitlen32(uint32_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return x ? 32 - __builtin_clz(x) : 0;      /* clz(0) is undefined: tested first */
#else
    int b = 0;
    while (x) {
        b++;
        x >>= 1;
    }
    return b;
#endif
}

/* Magnitude's bit length of a PyLong. */
static inline uint64_t
num_bits(PyObject *v, int *neg)
{
    Py_ssize_t nd = digit_count(v, neg);
    if (nd == 0)
        return 0;
    return (uint64_t)(nd - 1) * PyLong_SHIFT + bitlen32((uint32_t)digits_of(v)[nd - 1]);
}

/* -- limbs in memory: little-endian whatever the host -------------------------------- */

static inline void
store_limb(unsigned char *p, uint32_t x)
{
#if PY_LITTLE_ENDIAN
    memcpy(p, &x, 4);
#else
    p[0] = (unsigned char)x; p[1] = (unsigned char)(x >> 8);
    p[2] = (unsigned char)(x >> 16); p[3] = (unsigned char)(x >> 24);
#endif
}

static inline uint32_t
load_limb(const unsigned char *p)
{
#if PY_LITTLE_ENDIAN
    uint32_t x;
    memcpy(&x, p, 4);
    return x;
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}

/* -- native threads ---------------------------------------------------------------------
 *
 * A large conversion is split into tasks (ranges of rows) run by a pool of native threads
 * and the calling thread together (run_tasks). The workers never touch the interpreter: they
 * read and write memory only, so no thread state, no lock handoffs and no Python-level pool.
 * That lets a list be read in place: the caller keeps the interpreter lock for the whole job
 * and only waits, so no Python code can change the list or free its ints meanwhile (before,
 * a tuple of the list held them: a pass over every int to count its reference, 1.2 ms per
 * 262,144 ints on the H200's host, plus the Python pool's tasks). A tuple's job runs with the
 * lock released, as before: the tuple holds its ints. One job at a time (job_mu: the pool is
 * the process's, and 3.12's interpreters each have a lock of their own); a job's caller that
 * holds the interpreter lock may wait for job_mu, since a job never waits for that lock.
 * After fork the child has none of the workers: a pool is made again there (child_after_fork,
 * and a pid check; the old one is left as it is, its memory not freed). Workers block every
 * signal (Python's handlers run on the main thread), and a pool that cannot start a thread
 * runs with those it has. */
#if !defined(_WIN32) && !defined(Py_GIL_DISABLED)
#define NATIVE_THREADS 1
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#else
#define NATIVE_THREADS 0
#endif

typedef void (*task_fn)(void *job, Py_ssize_t task);

#if NATIVE_THREADS
#define POOL_MAX 256

struct pool {
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    pid_t pid;
    int started;                  /* workers running */
    unsigned long gen;            /* one more for each job: a worker runs each generation once */
    task_fn fn;                   /* the job: fn(job, t) for t in [0, tasks) */
    void *job;
    Py_ssize_t tasks, next, finished;
    int helpers;                  /* workers the job asked for: the others sleep through it */
};

struct worker_start {
    struct pool *p;
    int index;
    unsigned long seen;
};

static struct pool *the_pool = NULL;
static pthread_mutex_t job_mu = PTHREAD_MUTEX_INITIALIZER;

/* Take tasks of the current job until none is left (p->mu held on entry and on return). */
static void
take_tasks(struct pool *p)
{
    while (p->next < p->tasks) {
        Py_ssize_t t = p->next++;
        task_fn fn = p->fn;           /* the job stays until its last task ends: read here */
        void *job = p->job;
        pthread_mutex_unlock(&p->mu);
        fn(job, t);
        pthread_mutex_lock(&p->mu);
        if (++p->finished == p->tasks)
            pthread_cond_signal(&p->done);
    }
}

static void *
worker(void *arg)
{
    struct worker_start w = *(struct worker_start *)arg;
    free(arg);
    struct pool *p = w.p;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->gen == w.seen)
            pthread_cond_wait(&p->wake, &p->mu);
        w.seen = p->gen;
        if (w.index < p->helpers)
            take_tasks(p);
    }
    return NULL;
}

/* The pool of this process with at least `helpers` workers where they can be started (fewer
 * where not); NULL without one. job_mu held. */
static struct pool *
pool_with(int helpers)
{
    struct pool *p = the_pool;
    if (p == NULL || p->pid != getpid()) {
        p = calloc(1, sizeof *p);
        if (p == NULL)
            return NULL;
        if (pthread_mutex_init(&p->mu, NULL) != 0 || pthread_cond_init(&p->wake, NULL) != 0
                || pthread_cond_init(&p->done, NULL) != 0) {
            free(p);
            return NULL;
        }
        p->pid = getpid();
        the_pool = p;
    }
    if (helpers > POOL_MAX)
        helpers = POOL_MAX;
    if (p->started >= helpers)
        return p;
    pthread_attr_t attr;
    sigset_t all, old;
    if (pthread_attr_init(&attr) != 0)
        return p;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 * 1024);     /* the tasks' frames are small */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);           /* inherited by the workers */
    pthread_mutex_lock(&p->mu);
    while (p->started < helpers) {
        struct worker_start *w = malloc(sizeof *w);
        pthread_t tid;
        if (w == NULL)
            break;
        *w = (struct worker_start){p, p->started, p->gen};
        if (pthread_create(&tid, &attr, worker, w) != 0) {
            free(w);
            break;
        }
        p->started++;
    }
    pthread_mutex_unlock(&p->mu);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return p;
}

/* In a forked child: job_mu may have been copied locked (a job of a tuple runs with the
 * interpreter lock released, so another thread may fork meanwhile), and the pool's workers
 * are not there. The child is one thread now: both are made anew. */
static void
child_after_fork(void)
{
    pthread_mutex_init(&job_mu, NULL);
    the_pool = NULL;
}
#endif

/* fn(job, t) for every t in [0, tasks), on `threads` threads in all (this one among them)
 * where there are native threads and more than one task; here in order otherwise. Returns
 * when every task has ended. The caller holds the interpreter lock or not, as the job needs
 * (see above); no task may use the interpreter. */
static void
run_tasks(int threads, Py_ssize_t tasks, task_fn fn, void *job)
{
#if NATIVE_THREADS
    if (threads > 1 && tasks > 1) {
        pthread_mutex_lock(&job_mu);
        struct pool *p = pool_with(threads - 1);
        if (p != NULL && p->started > 0) {
            pthread_mutex_lock(&p->mu);
            p->fn = fn;
            p->job = job;
            p->tasks = tasks;
            p->next = p->finished = 0;
            p->helpers = threads - 1;
            p->gen++;
            pthread_cond_broadcast(&p->wake);
            take_tasks(p);
            while (p->finished < p->tasks)
                pthread_cond_wait(&p->done, &p->mu);
            pthread_mutex_unlock(&p->mu);
            pthread_mutex_unlock(&job_mu);
            return;
        }
        pthread_mutex_unlock(&job_mu);
    }
#endif
    for (Py_ssize_t t = 0; t < tasks; t++)
        fn(job, t);
}

/* run_tasks over the items of seq (a list or tuple): a tuple's with the interpreter lock
 * released (its references keep the ints alive, and ints never change), a list's with it held
 * (no Python code can change the list meanwhile). */
static void
run_tasks_on(PyObject *seq, int threads, Py_ssize_t tasks, task_fn fn, void *job)
{
    if (PyTuple_CheckExact(seq)) {
        Py_BEGIN_ALLOW_THREADS
        run_tasks(threads, tasks, fn, job);
        Py_END_ALLOW_THREADS
    } else {
        run_tasks(threads, tasks, fn, job);
    }
}

/* Tasks for `rows` rows: at least one, at most one a row. */
static inline Py_ssize_t
clamp_tasks(Py_ssize_t tasks, Py_ssize_t rows)
{
    if (tasks > rows)
        tasks = rows;
    return tasks < 1 ? 1 : tasks;
}

/* Task t's rows [*a, *b) of `tasks` equal ranges of [start, stop). */
static inline void
task_range(Py_ssize_t start, Py_ssize_t stop, Py_ssize_t tasks, Py_ssize_t t, Py_ssize_t *a,
           Py_ssize_t *b)
{
    Py_ssize_t step = (stop - start + tasks - 1) / tasks;
    *a = start + t * step < stop ? start + t * step : stop;
    *b = *a + step < stop ? *a + step : stop;
}

/* -- ints to limbs ------------------------------------------------------------------- */

/* scan(seq, check[, mpz]): one pass over the values. Exact ints are read as they are, values
 * of the type mpz (gmpy2's) through int(); anything
 * else goes through check(i, v), clbig's own validator (TypeError naming the index for
 * non-integers and bool, int(v) for numpy integers), and, if that gives no int (an mpz),
 * through operator.index. Returns (max_bits, neg, conv): the largest magnitude's bit length,
 * a bytearray of n 0/1 (None when no value is negative), and the list of converted values
 * (None when every value was an exact int): pack() takes conv where it is not None. */
static PyObject *
scan(PyObject *self, PyObject *args)
{
    PyObject *obj, *check, *seq, *conv = NULL, *negs = NULL, *res = NULL, *mpz = NULL;
    if (!PyArg_ParseTuple(args, "OO|O:scan", &obj, &check, &mpz))
        return NULL;
    /* a list is copied: check() runs Python code, which could change it under the loop */
    seq = PyList_Check(obj) ? PyList_AsTuple(obj)
                            : PySequence_Fast(obj, "clbig.mpn._limbs.scan: expected a sequence of integers");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    uint64_t maxbits = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyLong_CheckExact(v)) {
            /* gmpy2's mpz straight to an int (the check would accept it as it is) */
            PyObject *w = mpz != NULL && (PyObject *)Py_TYPE(v) == mpz
                ? PyNumber_Long(v) : PyObject_CallFunction(check, "nO", i, v);
            if (w != NULL && !PyLong_Check(w)) {
                PyObject *x = PyNumber_Index(w);
                Py_DECREF(w);
                w = x;
            }
            if (w == NULL)
                goto done;
            if (conv == NULL) {    /* a new list, so seq itself is never changed */
                conv = PySequence_List(seq);
                if (conv == NULL) {
                    Py_DECREF(w);
                    goto done;
                }
            }
            PyList_SET_ITEM(conv, i, w);   /* steals w */
            Py_DECREF(v);                  /* conv's old reference to the original */
            v = w;
        }
        int neg;
        uint64_t b = num_bits(v, &neg);
        if (b > maxbits)
            maxbits = b;
        if (neg) {
            if (negs == NULL) {
                negs = PyByteArray_FromStringAndSize(NULL, n);
                if (negs == NULL)
                    goto done;
                memset(PyByteArray_AS_STRING(negs), 0, (size_t)n);
            }
            PyByteArray_AS_STRING(negs)[i] = 1;
        }
    }
    res = Py_BuildValue("KOO", (unsigned long long)maxbits, negs ? negs : Py_None,
                        conv ? conv : Py_None);
done:
    Py_XDECREF(conv);
    Py_XDECREF(negs);
    Py_DECREF(seq);
    return res;
}

/* 0 where out (len bytes) holds the rows a job writes: all n rows of m limbs, or (base >= 0)
 * whole rows from row base, among them start..stop-1 (a staging buffer's chunk); else -1 with
 * ValueError (`noun` names the rows). scan_ints and pack check their out with it. */
static int
check_out_rows(const char *what, const char *noun, Py_ssize_t len, Py_ssize_t n, Py_ssize_t m,
               Py_ssize_t start, Py_ssize_t stop, Py_ssize_t base)
{
    if (base < 0 ? len == n * m * 4 : len % (4 * m) == 0 && start >= base && stop - base <= len / (4 * m))
        return 0;
    if (base < 0)
        PyErr_Format(PyExc_ValueError, "%s: out holds %zd bytes, not %zd %s of %zd limbs", what, len, n,
                     noun, m);
    else
        PyErr_Format(PyExc_ValueError, "%s: out holds %zd bytes: not the rows [%zd, %zd) of %zd limbs "
                     "from row %zd", what, len, start, stop, m, base);
    return -1;
}

static void pack_one(PyObject *v, Py_ssize_t nd, unsigned char *out, Py_ssize_t m);

/* scan_ints(seq, negs, start, stop[, out, m, bits[, threads, tasks[, base]]]): scan's common case
 * without Python code per item, so that threads can share a large batch: items
 * start..stop-1 of the list or tuple seq, each of which must be an exact int. Writes 1 into
 * the writable buffer negs (len(seq) bytes) where a value is negative, 0 elsewhere. With out
 * (a writable C-contiguous buffer of len(seq) rows of m limbs, or with base of the rows from
 * base on that it has room for: a staging buffer's chunk), each magnitude is also packed
 * into its row as it is scanned, and one of more than `bits` bits stops its range as a bad
 * item does: where the capacity is known, one pass reads each int instead of a scan and then
 * a pack. The items are split into `tasks` ranges run on `threads` native threads (see
 * run_tasks): a tuple's with the interpreter lock released (its references keep the ints
 * alive, and ints never change), a list's with it held. Returns (max_bits, negatives, bad):
 * bad is the index of the first item found that is not an exact int (or does not fit bits),
 * or -1; the caller then runs scan, which converts or rejects it with its messages. */
struct scan_part {
    uint64_t maxbits;
    Py_ssize_t negatives, bad;
};

struct scan_job {
    PyObject **items;
    unsigned char *negs, *rows;        /* rows NULL: no packing */
    Py_ssize_t m, start, stop, tasks;
    uint64_t bits;
    struct scan_part *parts;           /* one per task */
    Py_ssize_t base;                   /* the row at rows */
};

static void
scan_task(void *arg, Py_ssize_t t)
{
    struct scan_job *j = arg;
    Py_ssize_t a, b;
    task_range(j->start, j->stop, j->tasks, t, &a, &b);
    uint64_t maxbits = 0;
    Py_ssize_t negatives = 0, bad = -1;
    for (Py_ssize_t i = a; i < b; i++) {
        PyObject *v = j->items[i];
        if (!PyLong_CheckExact(v)) {
            bad = i;
            break;
        }
        int neg;
        uint64_t nb = num_bits(v, &neg);
        if (nb > maxbits)
            maxbits = nb;
        j->negs[i] = (unsigned char)neg;
        negatives += neg;
        if (j->rows != NULL) {
            if (nb > j->bits) {
                bad = i;
                break;
            }
            pack_one(v, digit_count(v, &neg), j->rows + (size_t)(i - j->base) * (size_t)j->m * 4, j->m);
        }
    }
    j->parts[t] = (struct scan_part){maxbits, negatives, bad};
}

static PyObject *
scan_ints(PyObject *self, PyObject *args)
{
    PyObject *seq, *negobj, *outobj = Py_None;
    Py_ssize_t start, stop, m = 0, tasks = 1, base = -1;
    unsigned long long bits = 0;
    int threads = 1;
    Py_buffer nv, ov;
    if (!PyArg_ParseTuple(args, "OOnn|OnKinn:scan_ints", &seq, &negobj, &start, &stop,
                          &outobj, &m, &bits, &threads, &tasks, &base))
        return NULL;
    if (!PyTuple_CheckExact(seq) && !PyList_CheckExact(seq)) {
        PyErr_Format(PyExc_TypeError, "scan_ints: a list or tuple, not %.100s", Py_TYPE(seq)->tp_name);
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (start < 0 || start > stop || stop > n) {
        PyErr_Format(PyExc_ValueError, "scan_ints: items [%zd, %zd) of %zd", start, stop, n);
        return NULL;
    }
    tasks = clamp_tasks(tasks, stop - start);
    ov.obj = NULL;
    if (outobj != Py_None) {
        if (m < 1 || m > PY_SSIZE_T_MAX / 4 || n > PY_SSIZE_T_MAX / (4 * m)
                || bits > (unsigned long long)m * LIMB_BITS) {
            PyErr_Format(PyExc_ValueError, "scan_ints: %llu bits in rows of %zd limbs", bits, m);
            return NULL;
        }
        if (PyObject_GetBuffer(outobj, &ov, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
            return NULL;
        if (check_out_rows("scan_ints", "rows", ov.len, n, m, start, stop, base) < 0) {
            PyBuffer_Release(&ov);
            return NULL;
        }
    }
    if (base < 0)
        base = 0;
    if (PyObject_GetBuffer(negobj, &nv, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        if (ov.obj != NULL)
            PyBuffer_Release(&ov);
        return NULL;
    }
    PyObject *res = NULL;
    struct scan_part *parts = NULL;
    if (nv.len != n) {
        PyErr_Format(PyExc_ValueError, "scan_ints: %zd sign bytes for %zd items", nv.len, n);
        goto done;
    }
    parts = PyMem_Malloc((size_t)tasks * sizeof *parts);
    if (parts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    struct scan_job job = {PySequence_Fast_ITEMS(seq), (unsigned char *)nv.buf,
                           ov.obj != NULL ? (unsigned char *)ov.buf : NULL, m, start, stop, tasks,
                           bits, parts, base};
    run_tasks_on(seq, threads, tasks, scan_task, &job);
    uint64_t maxbits = 0;
    Py_ssize_t negatives = 0, bad = -1;
    for (Py_ssize_t t = 0; t < tasks; t++) {
        maxbits = parts[t].maxbits > maxbits ? parts[t].maxbits : maxbits;
        negatives += parts[t].negatives;
        if (bad < 0)
            bad = parts[t].bad;
    }
    res = Py_BuildValue("Knn", (unsigned long long)maxbits, negatives, bad);
done:
    PyMem_Free(parts);
    PyBuffer_Release(&nv);
    if (ov.obj != NULL)
        PyBuffer_Release(&ov);
    return res;
}

/* The magnitude of v (nd digits) as m limbs at out; nd digits must fit m limbs. */
static void
pack_one(PyObject *v, Py_ssize_t nd, unsigned char *out, Py_ssize_t m)
{
    const digit *d = digits_of(v);
    uint64_t acc = 0;
    int accbits = 0;
    Py_ssize_t k = 0, j = 0;
#if PyLong_SHIFT == 30
    /* whole blocks of 16 digits = 480 bits = 15 limbs, unrolled so that the shifts are
     * constants; the state (acc, accbits) is empty again after each block */
    for (; j + 16 <= nd && k + 15 <= m; j += 16) {
        uint64_t a = 0;
        int ab = 0;
#pragma GCC unroll 16
        for (int t = 0; t < 16; t++) {
            a |= (uint64_t)d[j + t] << ab;
            ab += 30;
            if (ab >= LIMB_BITS) {
                store_limb(out + 4 * k++, (uint32_t)a);
                a >>= LIMB_BITS;
                ab -= LIMB_BITS;
            }
        }
    }
#endif
    for (; j < nd; j++) {
        acc |= (uint64_t)d[j] << accbits;          /* accbits < 32, so no bit is lost */
        accbits += PyLong_SHIFT;
        if (accbits >= LIMB_BITS) {
            store_limb(out + 4 * k++, (uint32_t)acc);
            acc >>= LIMB_BITS;
            accbits -= LIMB_BITS;
        }
    }
    if (accbits > 0 && k < m)                      /* the leftover bits (zero when k == m) */
        store_limb(out + 4 * k++, (uint32_t)acc);
    if (k < m)
        memset(out + 4 * k, 0, (size_t)(m - k) * 4);
}

/* pack(seq, out, m[, start, stop[, base[, threads, tasks]]]): the magnitudes of the ints of
 * seq[start:stop] as rows start..stop-1 of m limbs of the writable C-contiguous buffer out:
 * out holds exactly n*m*4 bytes (n = len(seq)), or, where base >= 0 is given, whole rows base,
 * base + 1, ... (a staging buffer that holds one chunk of the batch: start..stop-1 must lie
 * among them). Checks again what it relies on (every item an int whose magnitude fits m
 * limbs), so no input can write out of bounds. A list or tuple is split into `tasks` ranges on
 * `threads` native threads as in scan_ints (a tuple's with the lock released, a list's with it
 * held); another sequence is read through PySequence_Fast, on this thread. */
struct pack_job {
    PyObject **items;
    unsigned char *rows;
    Py_ssize_t m, first, start, stop, tasks;
    Py_ssize_t *bad;                   /* one per task: its first bad row, or -1 */
};

static void
pack_task(void *arg, Py_ssize_t t)
{
    struct pack_job *j = arg;
    Py_ssize_t a, b;
    task_range(j->start, j->stop, j->tasks, t, &a, &b);
    uint64_t cap = (uint64_t)j->m * LIMB_BITS;
    j->bad[t] = -1;
    for (Py_ssize_t i = a; i < b; i++) {
        PyObject *v = j->items[i];
        int neg;
        if (!PyLong_Check(v) || num_bits(v, &neg) > cap) {
            j->bad[t] = i;
            return;
        }
        pack_one(v, digit_count(v, &neg), j->rows + (size_t)(i - j->first) * (size_t)j->m * 4, j->m);
    }
}

static PyObject *
pack(PyObject *self, PyObject *args)
{
    PyObject *obj, *out, *seq;
    Py_ssize_t m, start = 0, stop = -1, base = -1, tasks = 1;
    int threads = 1;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "OOn|nnnin:pack", &obj, &out, &m, &start, &stop, &base, &threads, &tasks))
        return NULL;
    if (m < 1 || m > PY_SSIZE_T_MAX / 4) {
        PyErr_Format(PyExc_ValueError, "pack: limbs per value must be positive, got %zd", m);
        return NULL;
    }
    seq = PySequence_Fast(obj, "clbig.mpn._limbs.pack: expected a sequence of ints");
    if (seq == NULL)
        return NULL;
    Py_ssize_t *bads = NULL;
    if (PyObject_GetBuffer(out, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_DECREF(seq);
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > PY_SSIZE_T_MAX / (4 * m)) {
        PyErr_Format(PyExc_ValueError, "pack: %zd values of %zd limbs", n, m);
        goto fail;
    }
    if (stop < 0)
        stop = n;
    if (start < 0 || start > stop || stop > n) {
        PyErr_Format(PyExc_ValueError, "pack: rows [%zd, %zd) of %zd", start, stop, n);
        goto fail;
    }
    Py_ssize_t first = base < 0 ? 0 : base;          /* the row at out */
    if (check_out_rows("pack", "values", view.len, n, m, start, stop, base) < 0)
        goto fail;
    /* Each row checked as it is packed; a range's first bad row stops it, and the first of
     * all is reported with the lock held. */
    int exact = PyTuple_CheckExact(seq) || PyList_CheckExact(seq);
    tasks = exact ? clamp_tasks(tasks, stop - start) : 1;
    bads = PyMem_Malloc((size_t)tasks * sizeof *bads);
    if (bads == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    struct pack_job job = {items, (unsigned char *)view.buf, m, first, start, stop, tasks, bads};
    run_tasks_on(seq, exact ? threads : 1, tasks, pack_task, &job);
    Py_ssize_t bad = -1;
    for (Py_ssize_t t = 0; t < tasks && bad < 0; t++)
        bad = bads[t];
    if (bad >= 0) {
        PyObject *v = items[bad];
        int neg;
        if (!PyLong_Check(v))
            PyErr_Format(PyExc_TypeError, "element %zd: expected an int, got %.100s",
                         bad, Py_TYPE(v)->tp_name);
        else
            PyErr_Format(PyExc_OverflowError, "element %zd: value of %llu bits does not fit %zd limbs",
                         bad, (unsigned long long)num_bits(v, &neg), m);
        goto fail;
    }
    PyMem_Free(bads);
    PyBuffer_Release(&view);
    Py_DECREF(seq);
    Py_RETURN_NONE;
fail:
    PyMem_Free(bads);
    PyBuffer_Release(&view);
    Py_DECREF(seq);
    return NULL;
}

/* -- limbs to ints ------------------------------------------------------------------- */

/* Limbs in use (the top non-zero limb's index + 1) of the m limbs at p. Zero limbs above the
 * value (a quotient in rows as wide as its dividend, a remainder in the dividend's width) are
 * skipped eight at a time: a test of zero needs no byte order. */
static inline Py_ssize_t
top_limbs(const unsigned char *p, Py_ssize_t m)
{
    Py_ssize_t top = m;
    while (top >= 8) {
        uint64_t w[4];
        memcpy(w, p + 4 * (top - 8), 32);
        if (w[0] | w[1] | w[2] | w[3])
            break;
        top -= 8;
    }
    while (top > 0 && load_limb(p + 4 * (top - 1)) == 0)
        top--;
    return top;
}

/* Whether CPython's own constructors make the int of the top limbs at p: at most 64 bits,
 * and for a negative value one that fits a long long. */
static inline int
is_small(const unsigned char *p, Py_ssize_t top, int neg)
{
    if (top <= 1)
        return 1;
    if (top > 2)
        return 0;
    uint64_t x = load_limb(p) | (uint64_t)load_limb(p + 4) << 32;
    return !neg || x <= (uint64_t)1 << 63;
}

/* The int of the top <= 2 limbs at p where is_small. */
static PyObject *
small_int(const unsigned char *p, Py_ssize_t top, int neg)
{
    uint64_t x = top ? load_limb(p) : 0;
    if (top == 2)
        x |= (uint64_t)load_limb(p + 4) << 32;
    if (!neg || x == 0)
        return PyLong_FromUnsignedLongLong(x);
    return PyLong_FromLongLong(-(long long)(x - 1) - 1);   /* -x, without overflow */
}

/* Digits of the int whose top limbs (top > 0) are at p. */
static inline Py_ssize_t
digits_for(const unsigned char *p, Py_ssize_t top)
{
    uint64_t bits = (uint64_t)(top - 1) * LIMB_BITS + bitlen32(load_limb(p + 4 * (top - 1)));
    return (Py_ssize_t)((bits + PyLong_SHIFT - 1) / PyLong_SHIFT);
}

/* The nd digits of x (made by new_int) from the top limbs at p: no Python API, so it runs
 * without the interpreter lock. */
static void
fill_digits(PyObject *x, const unsigned char *p, Py_ssize_t top, Py_ssize_t nd)
{
    digit *d = digits_of(x);
    uint64_t acc = 0;
    int accbits = 0;
    Py_ssize_t k = 0, j = 0;
#if PyLong_SHIFT == 30
    /* whole blocks of 15 limbs = 16 digits, unrolled as in pack_one */
    for (; k + 15 <= top && j + 16 <= nd; k += 15) {
        const unsigned char *q = p + 4 * k;
        uint64_t a = 0;
        int ab = 0, l = 0;
#pragma GCC unroll 16
        for (int t = 0; t < 16; t++) {
            if (ab < 30) {
                a |= (uint64_t)load_limb(q + 4 * l++) << ab;
                ab += LIMB_BITS;
            }
            d[j++] = (digit)(a & DMASK);
            a >>= 30;
            ab -= 30;
        }
    }
#endif
    for (; j < nd; j++) {
        if (accbits < PyLong_SHIFT && k < top) {   /* accbits < SHIFT <= 32: room for a limb */
            acc |= (uint64_t)load_limb(p + 4 * k++) << accbits;
            accbits += LIMB_BITS;
        }
        d[j] = (digit)(acc & DMASK);
        acc >>= PyLong_SHIFT;
        accbits -= PyLong_SHIFT;     /* may go negative on the last digit: only zeros left */
    }
}

#if RAW_INTS
/* The int of the top limbs at p (not is_small) in memory from the raw allocator raw (see
 * raw_ints_allowed), complete, its reference count 1; NULL where that memory is not to be had.
 * No Python API: it runs without the interpreter lock. */
static PyObject *
raw_int(const PyMemAllocatorEx *raw, const unsigned char *p, Py_ssize_t top, int neg)
{
    Py_ssize_t nd = digits_for(p, top);
    PyLongObject *x = raw->malloc(raw->ctx, DIGITS_OFFSET + (size_t)nd * sizeof(digit));
    if (x == NULL)
        return NULL;
    set_digit_count(x, nd, neg);
    ((PyObject *)x)->ob_refcnt = 1;     /* not Py_SET_REFCNT: from 3.12 it reads the old count */
    ((PyObject *)x)->ob_type = &PyLong_Type;
    fill_digits((PyObject *)x, p, top, nd);
    return (PyObject *)x;
}

/* 3.13's reference tracer (PyRefTracer_SetTracer; tracemalloc's, for one), where one is set,
 * told of the ints made[0..k) (NULL: none there) as _Py_NewReference tells it of every object
 * made: it is told of their end when they are freed. The interpreter lock held. */
static void
tell_tracer(PyObject **made, Py_ssize_t k)
{
#if PY_VERSION_HEX >= 0x030D0000
    void *data;
    PyRefTracer tracer = PyRefTracer_GetTracer(&data);
    for (Py_ssize_t j = 0; tracer != NULL && j < k; j++)
        if (made[j] != NULL)
            tracer(made[j], PyRefTracer_CREATE, data);
#else
    (void)made;
    (void)k;
#endif
}

/* unpack's rows start..stop-1 as a list, the big ints made by raw_int without the lock in
 * `tasks` ranges on `threads` native threads, the small ones (CPython's own) with it
 * afterwards. */
struct raw_job {
    const PyMemAllocatorEx *raw;
    const unsigned char *base;
    const unsigned char *negs;         /* NULL: no signs */
    Py_ssize_t m, start, stop, tasks;
    PyObject **made;                   /* made[i - start]; NULL for a small int, or a row not reached */
    char *failed;                      /* one per task: the raw allocator gave no memory */
};

static void
raw_task(void *arg, Py_ssize_t t)
{
    struct raw_job *j = arg;
    Py_ssize_t a, b;
    task_range(j->start, j->stop, j->tasks, t, &a, &b);
    j->failed[t] = 0;
    for (Py_ssize_t i = a; i < b; i++) {
        const unsigned char *p = j->base + (size_t)i * (size_t)j->m * 4;
        int neg = j->negs != NULL && j->negs[i] != 0;
        Py_ssize_t top = top_limbs(p, j->m);
        if (is_small(p, top, neg))
            continue;
        if ((j->made[i - j->start] = raw_int(j->raw, p, top, neg)) == NULL) {
            j->failed[t] = 1;
            return;
        }
    }
}

static PyObject *
unpack_raw(const PyMemAllocatorEx *raw, const unsigned char *base, Py_ssize_t m, const Py_buffer *nv,
           Py_ssize_t start, Py_ssize_t stop, int threads, Py_ssize_t tasks)
{
    Py_ssize_t k = stop - start, j;
    tasks = clamp_tasks(tasks, k);
    PyObject **made = PyMem_Calloc(k ? (size_t)k : 1, sizeof(PyObject *)), *list = NULL;
    char *failed = PyMem_Malloc((size_t)tasks);
    if (made == NULL || failed == NULL) {
        PyMem_Free(made);
        PyMem_Free(failed);
        return PyErr_NoMemory();
    }
    struct raw_job job = {raw, base, nv->obj != NULL ? (const unsigned char *)nv->buf : NULL, m, start,
                          stop, tasks, made, failed};
    Py_BEGIN_ALLOW_THREADS
    run_tasks(threads, tasks, raw_task, &job);
    Py_END_ALLOW_THREADS
    tell_tracer(made, k);
    if (memchr(failed, 1, (size_t)tasks) != NULL) {
        PyErr_NoMemory();
        goto done;
    }
    list = PyList_New(k);
    if (list == NULL)
        goto done;
    for (j = 0; j < k; j++) {
        PyObject *x = made[j];
        if (x == NULL) {
            const unsigned char *p = base + (size_t)(start + j) * (size_t)m * 4;
            int neg = job.negs != NULL && job.negs[start + j] != 0;
            x = small_int(p, top_limbs(p, m), neg);
            if (x == NULL) {
                Py_CLEAR(list);
                goto done;
            }
        }
        made[j] = NULL;                 /* the list holds it now */
        PyList_SET_ITEM(list, j, x);
    }
done:
    for (j = 0; j < k; j++)
        Py_XDECREF(made[j]);            /* those not in a list: an error on the way */
    PyMem_Free(made);
    PyMem_Free(failed);
    return list;
}
#endif

/* The rows of unpack and unpack_fill: buf (exactly n*m*4 bytes) and neg (None, or n bytes)
 * as buffers (view; nv.obj NULL without signs), start..stop-1 checked; 0, or -1 with an
 * exception set and nothing held. */
static int
open_rows(const char *what, PyObject *buf, Py_ssize_t n, Py_ssize_t m, PyObject *negobj,
          Py_ssize_t start, Py_ssize_t *stop, Py_buffer *view, Py_buffer *nv)
{
    nv->obj = NULL;
    if (n < 0 || m < 1 || m > PY_SSIZE_T_MAX / 4 || n > PY_SSIZE_T_MAX / (4 * m)) {
        PyErr_Format(PyExc_ValueError, "%s: bad shape (%zd, %zd)", what, n, m);
        return -1;
    }
    if (*stop < 0)
        *stop = n;
    if (start < 0 || start > *stop || *stop > n) {
        PyErr_Format(PyExc_ValueError, "%s: rows [%zd, %zd) of %zd", what, start, *stop, n);
        return -1;
    }
    if (PyObject_GetBuffer(buf, view, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view->len != n * m * 4) {
        PyErr_Format(PyExc_ValueError, "%s: buffer holds %zd bytes, not %zd rows of %zd limbs",
                     what, view->len, n, m);
        PyBuffer_Release(view);
        return -1;
    }
    if (negobj != Py_None) {
        if (PyObject_GetBuffer(negobj, nv, PyBUF_C_CONTIGUOUS) < 0) {
            nv->obj = NULL;
            PyBuffer_Release(view);
            return -1;
        }
        if (nv->len != n) {
            PyErr_Format(PyExc_ValueError, "%s: %zd sign bytes for %zd rows", what, nv->len, n);
            PyBuffer_Release(nv);
            nv->obj = NULL;
            PyBuffer_Release(view);
            return -1;
        }
    }
    return 0;
}

/* The digits of the big ints (made by unpack) of rows start..stop-1, items[0..] of a list;
 * runs without the interpreter lock. Each int's digit count bounds the limbs to read (those
 * above the value are zero), so the rows are not scanned for their top limb a second time.
 * Ints of fewer than 3 digits are CPython's own, complete (small_int); one of 3 digits
 * (64 bits at most) may be too, and is written with the digits it has. */
static void
fill_rows(PyObject **items, const unsigned char *base, Py_ssize_t m, Py_ssize_t start,
          Py_ssize_t stop)
{
    for (Py_ssize_t i = start; i < stop; i++) {
        PyObject *x = items[i - start];
        int neg;
        Py_ssize_t nd = digit_count(x, &neg);
        if (nd < 3)
            continue;
        Py_ssize_t top = (Py_ssize_t)(((uint64_t)nd * PyLong_SHIFT + LIMB_BITS - 1) / LIMB_BITS);
        fill_digits(x, base + (size_t)i * (size_t)m * 4, top < m ? top : m, nd);
    }
}

/* unpack(buf, n, m, neg, make[, start, stop[, defer[, raw[, threads, tasks]]]]): rows
 * start..stop-1 of the n rows of m little-endian limbs of buf (a C-contiguous buffer of
 * exactly n*m*4 bytes) as a list of ints, negative where the buffer neg (None, or n bytes) is
 * non-zero; make (None or a callable, such as gmpy2.mpz) is applied to each. Ints of more than
 * 64 bits are made empty with the lock held, and their digits filled without it; with defer
 * (make None), not filled: unpack_fill(list, ...) must fill them, on any thread, before
 * anything reads the list (so that a thread fills one chunk while the caller makes the next
 * one's ints). With raw (and not defer), where raw_ints() allows, they are made whole without
 * the lock instead, in `tasks` ranges on `threads` native threads (unpack_raw). */
static PyObject *
unpack(PyObject *self, PyObject *args)
{
    PyObject *buf, *negobj, *make, *list = NULL;
    Py_ssize_t n, m, start = 0, stop = -1;
    int defer = 0, raw = 0, threads = 1;
    Py_ssize_t tasks = 1;
    Py_buffer view, nv;
    if (!PyArg_ParseTuple(args, "OnnOO|nnppin:unpack", &buf, &n, &m, &negobj, &make, &start, &stop,
                          &defer, &raw, &threads, &tasks))
        return NULL;
    if (defer && make != Py_None) {
        PyErr_SetString(PyExc_ValueError, "unpack: defer takes no make");
        return NULL;
    }
    if (open_rows("unpack", buf, n, m, negobj, start, &stop, &view, &nv) < 0)
        return NULL;
    if (make == Py_None)
        make = NULL;
    const unsigned char *base = (const unsigned char *)view.buf;
#if RAW_INTS
    PyMemAllocatorEx alloc;
    if (raw && !defer && raw_ints_allowed(&alloc)) {
        list = unpack_raw(&alloc, base, m, &nv, start, stop, threads, tasks);
        goto made;
    }
#endif
    list = PyList_New(stop - start);
    if (list == NULL)
        goto done;
    Py_ssize_t big = 0;                /* rows whose digits are still to be filled */
    for (Py_ssize_t i = start; i < stop; i++) {
        const unsigned char *p = base + (size_t)i * (size_t)m * 4;
        int neg = nv.obj != NULL && ((const unsigned char *)nv.buf)[i] != 0;
        Py_ssize_t top = top_limbs(p, m);
        PyObject *x;
        if (is_small(p, top, neg)) {
            x = small_int(p, top, neg);
        } else {
            x = new_int(digits_for(p, top), neg);     /* beyond 64 bits or -2^63: >= 3 digits */
            big++;
        }
        if (x == NULL) {
            Py_CLEAR(list);
            goto done;
        }
        PyList_SET_ITEM(list, i - start, x);
    }
    if (big && !defer) {
        PyObject **items = ((PyListObject *)list)->ob_item;
        Py_BEGIN_ALLOW_THREADS
        fill_rows(items, base, m, start, stop);
        Py_END_ALLOW_THREADS
    }
#if RAW_INTS
made:
#endif
    if (make != NULL && list != NULL) {
        for (Py_ssize_t i = 0; i < stop - start; i++) {
            PyObject *y = PyObject_CallFunctionObjArgs(make, PyList_GET_ITEM(list, i), NULL);
            if (y == NULL) {
                Py_CLEAR(list);
                goto done;
            }
            Py_SETREF(((PyListObject *)list)->ob_item[i], y);
        }
    }
done:
    if (nv.obj != NULL)
        PyBuffer_Release(&nv);
    PyBuffer_Release(&view);
    return list;
}

/* The first row of start..stop-1 whose item is not the int unpack(..., defer) left for it (an
 * exact int of the row's digit count and sign, referenced by the list alone), or -1. Reads the
 * ints' headers only, so it may run without the interpreter lock (see unpack_fill). */
static Py_ssize_t
check_rows(PyObject **items, const unsigned char *base, Py_ssize_t m, const Py_buffer *nv,
           Py_ssize_t start, Py_ssize_t stop)
{
    for (Py_ssize_t i = start; i < stop; i++) {
        const unsigned char *p = base + (size_t)i * (size_t)m * 4;
        int neg = nv->obj != NULL && ((const unsigned char *)nv->buf)[i] != 0;
        Py_ssize_t top = top_limbs(p, m);
        if (is_small(p, top, neg))
            continue;
        PyObject *x = items[i - start];
        int xneg;
        if (!PyLong_CheckExact(x) || Py_REFCNT(x) != 1 || digit_count(x, &xneg) != digits_for(p, top)
                || xneg != neg)
            return i;
    }
    return -1;
}

/* unpack_fill(list, buf, n, m, neg[, start, stop]): the digits of the ints unpack(..., defer)
 * left empty in list, from the same rows, without the interpreter lock. Each of them is
 * checked first (an exact int of this row's digit count and sign, referenced by the list
 * alone), so no other list can have its ints overwritten. */
static PyObject *
unpack_fill(PyObject *self, PyObject *args)
{
    PyObject *list, *buf, *negobj;
    Py_ssize_t n, m, start = 0, stop = -1;
    Py_buffer view, nv;
    if (!PyArg_ParseTuple(args, "O!OnnO|nn:unpack_fill", &PyList_Type, &list, &buf, &n, &m, &negobj,
                          &start, &stop))
        return NULL;
    if (open_rows("unpack_fill", buf, n, m, negobj, start, &stop, &view, &nv) < 0)
        return NULL;
    PyObject *res = NULL;
    if (PyList_GET_SIZE(list) != stop - start) {
        PyErr_Format(PyExc_ValueError, "unpack_fill: a list of %zd for rows [%zd, %zd)",
                     PyList_GET_SIZE(list), start, stop);
        goto done;
    }
    const unsigned char *base = (const unsigned char *)view.buf;
    PyObject **items = ((PyListObject *)list)->ob_item;
    Py_ssize_t bad = -1;
    /* The check and the fill both run without the interpreter lock, so that the thread making
     * the next range's ints (unpack, which holds the lock for a whole range) does not wait for
     * this one's check, nor this one for it. Only this call and the list's owner, which waits
     * for it, reach these ints: unpack made them, and the check below is that they are still
     * those ints, referenced by the list alone. */
    Py_BEGIN_ALLOW_THREADS
    bad = check_rows(items, base, m, &nv, start, stop);
    if (bad < 0)
        fill_rows(items, base, m, start, stop);
    Py_END_ALLOW_THREADS
    if (bad >= 0) {
        PyErr_Format(PyExc_ValueError, "unpack_fill: item %zd is not the int unpack left for row %zd",
                     bad - start, bad);
        goto done;
    }
    res = Py_None;
    Py_INCREF(res);
done:
    if (nv.obj != NULL)
        PyBuffer_Release(&nv);
    PyBuffer_Release(&view);
    return res;
}

/* move_into(dst, at, src): the items of the list src into dst[at:at + len(src)], where dst
 * holds None; src is left empty. The items change hands with their reference counts as they
 * are: a list made of pieces (list(chain(parts)), or extend) touches every object twice, an
 * increment then the piece's decrement, and each of those big ints lies in memory of its own
 * (10 ms a million on the 2-core Xeon, a tenth of an H200's list -> list products). dst's
 * slots are all checked to be None first, so releasing them runs no code. */
static PyObject *
move_into(PyObject *self, PyObject *args)
{
    PyObject *dst, *src;
    Py_ssize_t at;
    if (!PyArg_ParseTuple(args, "O!nO!:move_into", &PyList_Type, &dst, &at, &PyList_Type, &src))
        return NULL;
    if (!PyList_CheckExact(dst) || !PyList_CheckExact(src) || dst == src) {
        PyErr_SetString(PyExc_TypeError, "move_into: two distinct lists (not subclasses)");
        return NULL;
    }
    Py_ssize_t k = PyList_GET_SIZE(src);
    if (at < 0 || at > PyList_GET_SIZE(dst) - k) {
        PyErr_Format(PyExc_ValueError, "move_into: %zd items at %zd of a list of %zd", k, at,
                     PyList_GET_SIZE(dst));
        return NULL;
    }
    PyObject **d = ((PyListObject *)dst)->ob_item + at, **s = ((PyListObject *)src)->ob_item;
    for (Py_ssize_t j = 0; j < k; j++)
        if (d[j] != Py_None) {
            PyErr_Format(PyExc_ValueError, "move_into: item %zd of the list is taken", at + j);
            return NULL;
        }
    memcpy(d, s, (size_t)k * sizeof(PyObject *));
    Py_SET_SIZE(src, 0);              /* its items are dst's now: its memory is freed with it */
    for (Py_ssize_t j = 0; j < k; j++)
        Py_DECREF(Py_None);
    Py_RETURN_NONE;
}

/* zip_lists(lists) -> list of tuples: row i of the k lists (a tuple of k >= 1 exact lists of
 * one length n) as (lists[0][i], ..., lists[k-1][i]), the lists left empty. Every item must be
 * an object the collector does not track (ints, gmpy2's mpz: clbig made them), else nothing is
 * done and TypeError names it. The tuples take the lists' references as they are, and are not
 * tracked either (CPython's collector itself untracks a tuple of such items, once it has looked
 * at it): list(zip(q, r)) over 262,144 quotients and remainders took 55-64 ms on an H200's host,
 * twice their conversion, most of it touching each int again (a reference counted, then the
 * collector's passes over the young tuples visiting their items). */
static PyObject *
zip_lists(PyObject *self, PyObject *args)
{
    PyObject *lists;
    if (!PyArg_ParseTuple(args, "O!:zip_lists", &PyTuple_Type, &lists))
        return NULL;
    Py_ssize_t k = PyTuple_GET_SIZE(lists), n = -1, i, j;
    if (k < 1) {
        PyErr_SetString(PyExc_ValueError, "zip_lists: at least one list");
        return NULL;
    }
    for (j = 0; j < k; j++) {
        PyObject *l = PyTuple_GET_ITEM(lists, j);
        if (!PyList_CheckExact(l)) {
            PyErr_Format(PyExc_TypeError, "zip_lists: item %zd is a %.100s, not a list", j, Py_TYPE(l)->tp_name);
            return NULL;
        }
        for (Py_ssize_t h = 0; h < j; h++)
            if (PyTuple_GET_ITEM(lists, h) == l) {
                PyErr_Format(PyExc_ValueError, "zip_lists: list %zd is list %zd again", j, h);
                return NULL;
            }
        if (n >= 0 && PyList_GET_SIZE(l) != n) {
            PyErr_Format(PyExc_ValueError, "zip_lists: lists of %zd and %zd items", n, PyList_GET_SIZE(l));
            return NULL;
        }
        n = PyList_GET_SIZE(l);
    }
    for (j = 0; j < k; j++) {
        PyObject **src = ((PyListObject *)PyTuple_GET_ITEM(lists, j))->ob_item;
        for (i = 0; i < n; i++)
            if (PyObject_IS_GC(src[i])) {
                PyErr_Format(PyExc_TypeError, "zip_lists: item %zd of list %zd is a %.100s, which the "
                             "collector tracks", i, j, Py_TYPE(src[i])->tp_name);
                return NULL;
            }
    }
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    /* The collector off meanwhile (3.10+; the interpreter lock is held throughout, so no other
     * thread sees it): each tuple made counts as an allocation, and on 3.11 the collections
     * they set off ran inside this loop, each visiting every item of every tracked list (this
     * batch's among them), though none of these tuples is tracked: 262,144 rows of 2048-bit
     * values on the 2-core Xeon 74 -> 23 ms median. */
#if PY_VERSION_HEX >= 0x030A0000
    int collecting = PyGC_Disable();
#endif
    for (i = 0; i < n; i++) {
        PyObject *t = PyTuple_New(k);
        if (t == NULL) {
            /* the tuples made so far took their items' references: give the lists theirs back */
            for (Py_ssize_t h = 0; h < i; h++)
                for (j = 0; j < k; j++)
                    Py_INCREF(((PyListObject *)PyTuple_GET_ITEM(lists, j))->ob_item[h]);
            Py_CLEAR(out);
            break;
        }
        for (j = 0; j < k; j++)
            PyTuple_SET_ITEM(t, j, ((PyListObject *)PyTuple_GET_ITEM(lists, j))->ob_item[i]);
        PyObject_GC_UnTrack(t);
        PyList_SET_ITEM(out, i, t);
    }
#if PY_VERSION_HEX >= 0x030A0000
    if (collecting)
        PyGC_Enable();
#endif
    if (out != NULL)
        for (j = 0; j < k; j++)
            Py_SET_SIZE(PyTuple_GET_ITEM(lists, j), 0);     /* its items are the tuples' now */
    return out;
}

/* -- gmpy2's mpz made on the threads ----------------------------------------------------
 *
 * tolist(mpz=True) made each mpz from an int on one thread, the interpreter lock held: about
 * 300 ns a value of 2048 bits, most of it GMP importing the int's 30-bit digits. Here the
 * objects come from gmpy2's own constructor (its C API, the capsule gmpy2._C_API: GMPy_MPZ_New,
 * its cache and allocator, with the lock held) and GMP sizes their limbs; the threads then
 * write the limbs and sizes, with no lock: the objects are referenced by this call alone until
 * the list is made. GMP's mpz_realloc2 is found where gmpy2's GMP is (dlsym on gmpy2's module,
 * which searches its dependencies). Where GMP's memory functions are its own defaults (malloc),
 * the threads also size the limbs; another allocator (set by some program, asked at each call)
 * keeps that with the lock held. The layout read (gmpy2.h's MPZ_Object, gmp.h's __mpz_struct
 * with 64-bit limbs) is taken for gmpy2 2.2 and 2.3 only (gmpy2_version_known) and checked on
 * gmpy2's own mpz first; mpz_direct() is false where anything differs or is missing: then
 * convert.py keeps the old path. */
#if NATIVE_THREADS && RAW_INTS
#define MPZ_DIRECT 1
#include <dlfcn.h>

typedef struct {                  /* gmp.h's __mpz_struct, limbs of 64 bits */
    int alloc;
    int size;
    uint64_t *d;
} gmp_mpz;

typedef struct {                  /* gmpy2.h's MPZ_Object */
    PyObject_HEAD
    gmp_mpz z;
    Py_hash_t hash_cache;
} gmpy_mpz;

static int mpz_state = 0;          /* 0: not tried yet, 1: ready, -1: not here */
static PyTypeObject *mpz_type;
static PyObject *(*mpz_new)(void *context);
static void (*mpz_realloc2)(gmp_mpz *, unsigned long);
typedef void (*gmp_functions_fn)(void *(**)(size_t), void *(**)(void *, size_t, size_t),
                                 void (**)(void *, size_t));
static gmp_functions_fn gmp_get_functions;
static void *gmp_base;             /* GMP's library, where its default allocator lies */

/* Whether GMP allocates with its own default (malloc), so that any thread may size limbs:
 * asked at each call, since a program may set other functions at any time. */
static int
gmp_allocates_by_default(void)
{
    void *(*alloc)(size_t);
    void *(*realloc_)(void *, size_t, size_t);
    void (*free_)(void *, size_t);
    Dl_info ai, fi;
    gmp_get_functions(&alloc, &realloc_, &free_);
    return dladdr((void *)alloc, &ai) && ai.dli_fbase == gmp_base
           && dladdr((void *)realloc_, &fi) && fi.dli_fbase == gmp_base
           && dladdr((void *)free_, &fi) && fi.dli_fbase == gmp_base;
}

/* Whether v (an mpz) holds the limbs `want` (least significant first), `size` signed. */
static int
mpz_reads_as(PyObject *v, int size, const uint64_t *want)
{
    if (v == NULL || Py_TYPE(v) != mpz_type)
        return 0;
    gmp_mpz *z = &((gmpy_mpz *)v)->z;
    int k = size < 0 ? -size : size;
    if (z->size != size || z->alloc < k)
        return 0;
    for (int i = 0; i < k; i++)
        if (z->d[i] != want[i])
            return 0;
    return 1;
}

/* Whether gmpy2 is a version whose GMPy_MPZ_New (entry 11 of its C API) ignores its context
 * argument and whose MPZ_Object is laid out as above: 2.2 and 2.3, read in their sources. A
 * later version keeps the old path until it is read too (a constructor that used the context
 * would be called with NULL). */
static int
gmpy2_version_known(void)
{
    PyObject *mod = PyImport_ImportModule("gmpy2");
    PyObject *ver = mod != NULL ? PyObject_CallMethod(mod, "version", NULL) : NULL;
    const char *v = ver != NULL && PyUnicode_Check(ver) ? PyUnicode_AsUTF8(ver) : NULL;
    int known = v != NULL && (strncmp(v, "2.2.", 4) == 0 || strncmp(v, "2.3.", 4) == 0);
    Py_XDECREF(ver);
    Py_XDECREF(mod);
    PyErr_Clear();
    return known;
}

static int
mpz_setup(void)
{
    if (!gmpy2_version_known())
        return -1;
    void **api = PyCapsule_Import("gmpy2._C_API", 0);
    if (api == NULL) {
        PyErr_Clear();
        return -1;
    }
    mpz_type = (PyTypeObject *)api[0];          /* MPZ_Type_NUM */
    mpz_new = (PyObject *(*)(void *))api[11];   /* GMPy_MPZ_New_NUM */
    Dl_info info;
    if (mpz_type == NULL || mpz_new == NULL || mpz_type->tp_basicsize < (Py_ssize_t)sizeof(gmpy_mpz)
            || !dladdr((void *)mpz_new, &info) || info.dli_fname == NULL)
        return -1;
    void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (h == NULL)
        return -1;
    const int *limb_bits = dlsym(h, "__gmp_bits_per_limb");
    gmp_get_functions = (gmp_functions_fn)dlsym(h, "__gmp_get_memory_functions");
    mpz_realloc2 = (void (*)(gmp_mpz *, unsigned long))dlsym(h, "__gmpz_realloc2");
    Dl_info gi;
    int ok = limb_bits != NULL && *limb_bits == 64 && mpz_realloc2 != NULL && gmp_get_functions != NULL
             && dladdr((void *)mpz_realloc2, &gi);
    gmp_base = ok ? gi.dli_fbase : NULL;
    dlclose(h);
    if (!ok)
        return -1;
    /* the layout, read on gmpy2's own mpz of -(2^64 + 5) and 0 */
    PyObject *big = PyLong_FromString("-18446744073709551621", NULL, 10);
    PyObject *x = big ? PyObject_CallFunctionObjArgs((PyObject *)mpz_type, big, NULL) : NULL;
    PyObject *zero = PyObject_CallFunction((PyObject *)mpz_type, NULL);
    const uint64_t want[2] = {5, 1};
    ok = mpz_reads_as(x, -2, want) && mpz_reads_as(zero, 0, want);
    Py_XDECREF(big);
    Py_XDECREF(x);
    Py_XDECREF(zero);
    PyErr_Clear();
    return ok ? 1 : -1;
}

static int
mpz_ready(void)
{
    if (mpz_state == 0)
        mpz_state = mpz_setup();
    return mpz_state == 1;
}

struct mpz_job {
    const unsigned char *base;
    const unsigned char *negs;          /* NULL: no signs */
    Py_ssize_t m, start, stop, tasks;
    PyObject **made;                    /* made[i - start]: an mpz of 0, limbs sized where locked */
    int sized;                          /* whether they were */
};

static inline Py_ssize_t
limbs64(const unsigned char *p, Py_ssize_t m)
{
    return (top_limbs(p, m) + 1) / 2;
}

static void
mpz_task(void *arg, Py_ssize_t t)
{
    struct mpz_job *j = arg;
    Py_ssize_t a, b;
    task_range(j->start, j->stop, j->tasks, t, &a, &b);
    for (Py_ssize_t i = a; i < b; i++) {
        const unsigned char *p = j->base + (size_t)i * (size_t)j->m * 4;
        Py_ssize_t top = top_limbs(p, j->m), k = (top + 1) / 2;
        gmp_mpz *z = &((gmpy_mpz *)j->made[i - j->start])->z;
        if (!j->sized && z->alloc < k)  /* GMP's default allocator: see unpack_mpz */
            mpz_realloc2(z, (unsigned long)k * 64);
        for (Py_ssize_t w = 0; w < k; w++) {
            uint64_t lo = load_limb(p + 8 * w);
            uint64_t hi = 2 * w + 1 < top ? load_limb(p + 8 * w + 4) : 0;
            z->d[w] = lo | hi << 32;
        }
        int neg = j->negs != NULL && j->negs[i] != 0;
        z->size = neg ? -(int)k : (int)k;
    }
}

/* unpack_mpz(buf, n, m, neg[, start, stop[, threads, tasks]]) -> rows start..stop-1 as a list of
 * gmpy2 mpz (see above); mpz_direct() must be true. */
static PyObject *
unpack_mpz(PyObject *self, PyObject *args)
{
    PyObject *buf, *negobj, *list = NULL, **made = NULL;
    Py_ssize_t n, m, start = 0, stop = -1, tasks = 1, k = 0, j;
    int threads = 1;
    Py_buffer view, nv;
    if (!PyArg_ParseTuple(args, "OnnO|nnin:unpack_mpz", &buf, &n, &m, &negobj, &start, &stop,
                          &threads, &tasks))
        return NULL;
    if (!mpz_ready()) {
        PyErr_SetString(PyExc_RuntimeError, "unpack_mpz: gmpy2's mpz cannot be made here (mpz_direct())");
        return NULL;
    }
    if (open_rows("unpack_mpz", buf, n, m, negobj, start, &stop, &view, &nv) < 0)
        return NULL;
    if (m > (Py_ssize_t)(INT_MAX / 2)) {
        PyErr_Format(PyExc_ValueError, "unpack_mpz: rows of %zd limbs", m);
        goto done;
    }
    const unsigned char *base = (const unsigned char *)view.buf;
    k = stop - start;
    made = PyMem_Calloc(k ? (size_t)k : 1, sizeof(PyObject *));
    if (made == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int sized = !gmp_allocates_by_default();     /* then the limbs are sized here, locked */
    for (j = 0; j < k; j++) {
        if ((made[j] = mpz_new(NULL)) == NULL)
            goto done;
        if (sized) {
            Py_ssize_t w = limbs64(base + (size_t)(start + j) * (size_t)m * 4, m);
            gmp_mpz *z = &((gmpy_mpz *)made[j])->z;
            if (z->alloc < w)
                mpz_realloc2(z, (unsigned long)w * 64);
        }
    }
    tasks = clamp_tasks(tasks, k);
    struct mpz_job job = {base, nv.obj != NULL ? (const unsigned char *)nv.buf : NULL, m, start, stop,
                          tasks, made, sized};
    Py_BEGIN_ALLOW_THREADS
    run_tasks(threads, tasks, mpz_task, &job);
    Py_END_ALLOW_THREADS
    list = PyList_New(k);
    if (list == NULL)
        goto done;
    for (j = 0; j < k; j++) {
        PyList_SET_ITEM(list, j, made[j]);
        made[j] = NULL;
    }
done:
    if (made != NULL)
        for (j = 0; j < k; j++)
            Py_XDECREF(made[j]);
    PyMem_Free(made);
    if (nv.obj != NULL)
        PyBuffer_Release(&nv);
    PyBuffer_Release(&view);
    return list;
}
#else
#define MPZ_DIRECT 0
#endif

static PyObject *
mpz_direct(PyObject *self, PyObject *noargs)
{
#if MPZ_DIRECT
    return PyBool_FromLong(mpz_ready());
#else
    return PyBool_FromLong(0);
#endif
}

static PyObject *
raw_ints(PyObject *self, PyObject *noargs)
{
    PyMemAllocatorEx alloc;
    return PyBool_FromLong(raw_ints_allowed(&alloc));
}

static PyObject *
native_threads(PyObject *self, PyObject *noargs)
{
    return PyBool_FromLong(NATIVE_THREADS);
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS, "scan(seq, check[, mpz]) -> (max_bits, neg, conv)"},
    {"scan_ints", scan_ints, METH_VARARGS,
     "scan_ints(seq, negs, start, stop[, out, m, bits[, threads, tasks[, base]]]) -> (max_bits, negatives, bad)"},
    {"pack", pack, METH_VARARGS,
     "pack(seq, out, m[, start, stop[, base[, threads, tasks]]]): magnitudes of seq into out as m limbs each"},
    {"unpack", unpack, METH_VARARGS,
     "unpack(buf, n, m, neg, make[, start, stop[, defer[, raw[, threads, tasks]]]]) -> list of ints"},
    {"threads", native_threads, METH_NOARGS, "threads() -> whether several threads run on native threads here"},
    {"mpz_direct", mpz_direct, METH_NOARGS, "mpz_direct() -> whether unpack_mpz makes gmpy2's mpz here"},
#if MPZ_DIRECT
    {"unpack_mpz", unpack_mpz, METH_VARARGS,
     "unpack_mpz(buf, n, m, neg[, start, stop[, threads, tasks]]) -> list of gmpy2 mpz"},
#endif
    {"raw_ints", raw_ints, METH_NOARGS, "raw_ints() -> whether unpack(..., raw=True) makes ints without the lock"},
    {"unpack_fill", unpack_fill, METH_VARARGS, "unpack_fill(list, buf, n, m, neg[, start, stop]): unpack's deferred digits"},
    {"zip_lists", zip_lists, METH_VARARGS, "zip_lists(lists) -> list of tuples: the rows of a tuple of lists, the lists left empty"},
    {"move_into", move_into, METH_VARARGS, "move_into(dst, at, src): src's items into dst[at:], where dst holds None; src left empty"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "clbig.mpn._limbs",
    "Python ints <-> 32-bit limb matrices (see clbig/mpn/convert.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__limbs(void)
{
#if NATIVE_THREADS
    static int registered = 0;
    if (!registered && pthread_atfork(NULL, NULL, child_after_fork) == 0)
        registered = 1;
#endif
    PyObject *mod = PyModule_Create(&module);
    if (mod != NULL && PyModule_AddIntConstant(mod, "DIGIT_BITS", PyLong_SHIFT) < 0)
        Py_CLEAR(mod);
    return mod;
}
