/// See server/Cargo.toml: pages are rendered from many small allocations, on every core.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    server::cli::main()
}
