//! The allocator of the `avalanche` binary (and of the load benchmark, which runs its server):
//! jemalloc with one arena.
//!
//! Why (BENCHMARKS.md, "Half the CPU per command", third pass): the server allocates and frees
//! many small values a request, on a dozen threads (actix's workers, the store's committer, sled's
//! IO threads). glibc's malloc with one arena made those threads queue for the arena's lock
//! (futex waits and wake-ups were a tenth of the server's CPU); with its default of an arena for
//! each busy thread, a server paging through 50,000 games grew to 125-131 MB; mimalloc's
//! per-thread heaps took it to 160-211 MB. jemalloc serves most requests from a cache of each
//! thread's own and only then takes its arena's lock: with one arena it stays within about the
//! memory of glibc's single arena (92 MB on the same pages) and takes about a quarter less CPU a
//! command.
//!
//! One arena is asked for here, compiled into the binary (jemalloc reads `malloc_conf` when it
//! starts). `_RJEM_MALLOC_CONF` in the environment still overrides it, for instance
//! `_RJEM_MALLOC_CONF=narenas:2`.

/// The global allocator: declare it in a binary's root with `#[global_allocator]`.
pub type Allocator = tikv_jemallocator::Jemalloc;

/// A C string pointer jemalloc reads once, when it starts.
#[repr(transparent)]
pub struct MallocConf(*const std::ffi::c_char);

// SAFETY: it points at a string literal that lives as long as the program and is never written.
unsafe impl Sync for MallocConf {}

/// jemalloc's compiled-in settings (`malloc_conf`, under the `_rjem_` prefix of the
/// tikv-jemalloc build): one arena.
#[unsafe(export_name = "_rjem_malloc_conf")]
pub static MALLOC_CONF: MallocConf = MallocConf(c"narenas:1".as_ptr());

#[cfg(test)]
mod tests {
    /// jemalloc itself reads the compiled-in setting (its library is linked into the tests too,
    /// beside the tests' own allocator). `_RJEM_MALLOC_CONF=narenas:3` in the environment makes
    /// this fail, as it should.
    #[test]
    fn jemalloc_starts_with_one_arena() {
        let mut narenas: std::ffi::c_uint = 0;
        let mut size = std::mem::size_of::<std::ffi::c_uint>();
        // SAFETY: `opt.narenas` is an unsigned int; the out pointer and its size match it.
        let status = unsafe {
            tikv_jemalloc_sys::mallctl(
                c"opt.narenas".as_ptr(),
                (&mut narenas as *mut std::ffi::c_uint).cast(),
                &mut size,
                std::ptr::null_mut(),
                0,
            )
        };
        assert_eq!(status, 0, "mallctl failed");
        assert_eq!(narenas, 1);
    }
}
