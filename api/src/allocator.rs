//! The allocator's settings, for the `avalanche` binary and the benchmarks that run its server.

/// glibc's malloc gives a thread that finds the arenas busy an arena of its own (up to 8 a
/// core), and each keeps the memory freed in it: the server's threads (actix's workers, the
/// store's committer and flusher, sled's IO threads) took a server paging through 50,000 games
/// to 125-131 MB this way, where one arena keeps it at 88-90 MB for about 5% more CPU a command
/// (BENCHMARKS.md, "Lists and memory"). `MALLOC_ARENA_MAX` in the environment still decides
/// when it is set. Call it first in `main`: arenas already made stay.
#[cfg(all(target_os = "linux", target_env = "gnu", not(feature = "mimalloc")))]
pub fn one_malloc_arena() {
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: `mallopt` changes a setting of glibc's allocator under the allocator's own
        // lock; it touches no memory of ours and may be called at any time.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 1);
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu", not(feature = "mimalloc"))))]
pub fn one_malloc_arena() {}
