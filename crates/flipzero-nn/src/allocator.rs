//! Settings of mimalloc, the global allocator of the `flipzero` binary and the benches.

/// `mi_option_purge_delay`: its position in mimalloc's `mi_option_e` (mimalloc.h), which
/// `libmimalloc-sys` does not name.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keeps the memory the process frees for its next allocations. By default mimalloc hands
/// freed memory back to the kernel after 10 ms, and a training step frees and allocates
/// activations of megabytes: the kernel then zeroes fresh pages at every step (17% of an 8x8
/// training step at batch 256 in `perf`). Call it first thing in `main`, in programs whose
/// global allocator is `mimalloc::MiMalloc` (elsewhere it only sets an unused option).
pub fn keep_freed_memory() {
    // SAFETY: `mi_option_set` only stores the option's value; any option and value are valid.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) }
}
