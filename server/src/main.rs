/// See server/Cargo.toml: pages are rendered from many small allocations, on every core.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc.h's `mi_option_purge_delay` (v3's sixteenth option; the crate names no constant
/// for it): how long freed memory is kept before it goes back to the system, in ms (1000).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() -> std::process::ExitCode {
    // Freed memory goes back to the system at once: a first read is the largest thing a
    // poller holds and is let go whole, and with many instances what was freed but kept
    // was a sixth of the resident memory (issue 27).
    // SAFETY: one option set before any thread of ours exists (it is not thread safe).
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 0) };
    server::cli::main()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_purge_delay_is_the_option_we_set() {
        // Its documented default, and no other option's: an upgrade that moves it fails here.
        // SAFETY: reading an option.
        let (purge, verbose) =
            unsafe { (libmimalloc_sys::mi_option_get(super::PURGE_DELAY), libmimalloc_sys::mi_option_get(2)) };
        assert_eq!((purge, verbose), (1000, 0), "mi_option_purge_delay is 1000 ms by default");
    }
}
