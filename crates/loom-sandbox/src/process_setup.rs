//! Process-wide settings Loom makes once, at start, before any thread exists.

/// Keep glibc's allocator to one arena. By default each thread that allocates gets an
/// arena of its own (up to 8 per core); a streamed answer is parsed on a runtime worker and
/// freed on the UI thread, so the workers' arenas kept memory the UI had already let go:
/// streaming a 200 KB answer peaked ~3 MB higher (issue 26, `benches/tui_e2e.rs`). Loom's
/// threads allocate little at once, so sharing one arena costs nothing measurable. Set
/// before any thread starts; `MALLOC_ARENA_MAX` in the environment still wins.
pub fn one_malloc_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: mallopt only sets an allocator parameter; no other thread exists yet.
        unsafe {
            nix::libc::mallopt(nix::libc::M_ARENA_MAX, 1);
        }
    }
}
